// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file matchers.hpp
/// gMock matchers for the conformance kit: a kernel's output against a double-precision
/// reference, reporting every mismatch's count and the first few mismatching elements
/// with their coordinates and the case's operands there, instead of stopping at the first
/// element (as GoogleTest 1.12's ASSERT_NEAR does).
///
///   EXPECT_THAT(got, ElementsNear(expected, [&](double e) { return tol(t, e); }, shape,
///                                 {{"x", x}}))
///       << op_name(op) << " " << dtype_name(t);
///
/// prints, on failure, e.g. "3 of 221 elements differ; first: [0, 4] (flat 4): got 0.5,
/// expected 0.25 (tolerance 1e-06), x = -1.5; ...".
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>

namespace hetero::conformance {

/// An operand of a case, shown beside each mismatching element: its name and its values,
/// one per output element (an operand of another size is shown by name only).
using NamedValues = std::pair<std::string, std::vector<double>>;

/// Matches a std::vector<double> with expected.size() elements, each within
/// tolerance(expected[i]) of expected[i]; NaN matches NaN, an infinity only itself. On a
/// mismatch the explanation gives the number of differing elements and the first
/// `max_shown`: index (as coordinates in `shape` when it is given), value, expected value,
/// tolerance, and each operand's value at that index.
::testing::Matcher<const std::vector<double>&> ElementsNear(
    std::vector<double> expected, std::function<double(double expected)> tolerance,
    std::vector<std::int64_t> shape = {}, std::vector<NamedValues> operands = {},
    std::size_t max_shown = 5);

/// ElementsNear with a tolerance per element (`tolerances`, expected.size() of them): for
/// references whose error bound depends on more than the expected value (a reduction's
/// sum of magnitudes, a GEMM's k).
::testing::Matcher<const std::vector<double>&> ElementsNear(std::vector<double> expected,
                                                            std::vector<double> tolerances,
                                                            std::vector<std::int64_t> shape = {},
                                                            std::vector<NamedValues> operands = {},
                                                            std::size_t max_shown = 5);

/// ElementsNear with tolerance 0: exact equality (integers, copies, indices).
::testing::Matcher<const std::vector<double>&> ElementsEqual(std::vector<double> expected,
                                                             std::vector<std::int64_t> shape = {},
                                                             std::vector<NamedValues> operands = {},
                                                             std::size_t max_shown = 5);

}  // namespace hetero::conformance
