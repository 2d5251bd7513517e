// SPDX-License-Identifier: Apache-2.0
// The conformance kit's matchers (issue #28): a failing comparison names how many elements
// differ and lists the first few, with coordinates and the case's operands.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <hetero/conformance/matchers.hpp>

namespace {

using hetero::conformance::ElementsEqual;
using hetero::conformance::ElementsNear;

std::string explain(const ::testing::Matcher<const std::vector<double>&>& m,
                    const std::vector<double>& got) {
  ::testing::StringMatchResultListener listener;
  EXPECT_FALSE(m.MatchAndExplain(got, &listener));
  return listener.str();
}

TEST(ConformanceMatchers, MatchWithinToleranceAndNaNMatchesNaN) {
  const std::vector<double> expected{1.0, NAN, INFINITY, -2.0};
  EXPECT_THAT((std::vector<double>{1.0 + 1e-7, NAN, INFINITY, -2.0}),
              ElementsNear(expected, [](double) { return 1e-6; }));
  EXPECT_THAT((std::vector<double>{3, 4}), ElementsEqual({3, 4}));
}

TEST(ConformanceMatchers, ListCountCoordinatesAndOperandsOfTheFirstFew) {
  std::vector<double> expected(12, 1.0), got(12, 1.0), x(12);
  for (int i = 0; i < 12; ++i) x[static_cast<std::size_t>(i)] = i * 0.5;
  for (int i : {1, 5, 6, 7, 8, 9, 11}) got[static_cast<std::size_t>(i)] = 2.0;
  const std::string text =
      explain(ElementsNear(expected, [](double) { return 0.1; }, {3, 4}, {{"x", x}}), got);
  EXPECT_NE(text.find("7 of 12 elements differ"), std::string::npos) << text;
  EXPECT_NE(text.find("[0, 1] (flat 1): got 2, expected 1 (tolerance 0.1), x = 0.5"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[1, 1] (flat 5)"), std::string::npos) << text;
  EXPECT_EQ(text.find("flat 11"), std::string::npos) << "more than five shown: " << text;
  EXPECT_NE(text.find("; ..."), std::string::npos) << text;
}

TEST(ConformanceMatchers, NaNWhereANumberIsExpectedAndSizesDiffer) {
  EXPECT_NE(explain(ElementsEqual({1, 2}), {1, NAN}).find("got nan, expected 2"),
            std::string::npos);
  EXPECT_NE(explain(ElementsNear({1, 2}, std::vector<double>{0.5, 0.5}), {1})
                .find("has 1 elements, expected 2"),
            std::string::npos);
}

}  // namespace
