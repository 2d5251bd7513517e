// SPDX-License-Identifier: Apache-2.0
#include <hetero/conformance/matchers.hpp>

#include <cmath>
#include <ostream>
#include <sstream>

namespace hetero::conformance {
namespace {

// "[i0, i1, ...]" of flat index `i` in row-major `shape`.
std::string coordinates(std::size_t i, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> c(shape.size());
  auto rest = static_cast<std::int64_t>(i);
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t extent = shape[d] > 0 ? shape[d] : 1;
    c[d] = rest % extent;
    rest /= extent;
  }
  std::ostringstream s;
  s << "[";
  for (std::size_t d = 0; d < c.size(); ++d) s << (d ? ", " : "") << c[d];
  s << "]";
  return s.str();
}

bool near(double got, double expected, double tolerance) {
  if (std::isnan(expected)) return std::isnan(got);
  if (std::isinf(expected)) return got == expected;
  return std::abs(got - expected) <= tolerance;  // false for a NaN got
}

class ElementsNearMatcher : public ::testing::MatcherInterface<const std::vector<double>&> {
 public:
  ElementsNearMatcher(std::vector<double> expected,
                      std::function<double(std::size_t, double)> tolerance,
                      std::vector<std::int64_t> shape, std::vector<NamedValues> operands,
                      std::size_t max_shown)
      : expected_(std::move(expected)),
        tolerance_(std::move(tolerance)),
        shape_(std::move(shape)),
        operands_(std::move(operands)),
        max_shown_(max_shown) {}

  bool MatchAndExplain(const std::vector<double>& got,
                       ::testing::MatchResultListener* listener) const override {
    if (got.size() != expected_.size()) {
      *listener << "has " << got.size() << " elements, expected " << expected_.size();
      return false;
    }
    std::size_t bad = 0;
    std::ostringstream shown;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double tol = tolerance_(i, expected_[i]);
      if (near(got[i], expected_[i], tol)) continue;
      if (bad++ >= max_shown_) continue;
      shown << (bad > 1 ? "; " : "");
      if (shape_.size() > 1)
        shown << coordinates(i, shape_) << " (flat " << i << ")";
      else  // no shape, or one dimension: the index is the coordinate
        shown << "[" << i << "]";
      shown << ": got " << got[i] << ", expected " << expected_[i] << " (tolerance " << tol << ")";
      for (const auto& [name, values] : operands_)
        if (values.size() == got.size()) shown << ", " << name << " = " << values[i];
    }
    if (bad == 0) return true;
    *listener << bad << " of " << got.size() << " elements differ; first: " << shown.str();
    if (bad > max_shown_) *listener << "; ...";
    return false;
  }

  void DescribeTo(std::ostream* os) const override {
    *os << "has " << expected_.size() << " elements, each within its tolerance of the reference";
    if (!shape_.empty()) {
      *os << " (shape [";
      for (std::size_t d = 0; d < shape_.size(); ++d) *os << (d ? ", " : "") << shape_[d];
      *os << "])";
    }
    if (!operands_.empty()) {
      *os << "; operands:";
      for (const auto& [name, values] : operands_) *os << " " << name;
    }
  }

 private:
  std::vector<double> expected_;
  std::function<double(std::size_t, double)> tolerance_;
  std::vector<std::int64_t> shape_;
  std::vector<NamedValues> operands_;
  std::size_t max_shown_;
};

}  // namespace

::testing::Matcher<const std::vector<double>&> ElementsNear(std::vector<double> expected,
                                                            std::function<double(double)> tolerance,
                                                            std::vector<std::int64_t> shape,
                                                            std::vector<NamedValues> operands,
                                                            std::size_t max_shown) {
  return ::testing::MakeMatcher(new ElementsNearMatcher(
      std::move(expected), [f = std::move(tolerance)](std::size_t, double e) { return f(e); },
      std::move(shape), std::move(operands), max_shown));
}

::testing::Matcher<const std::vector<double>&> ElementsNear(std::vector<double> expected,
                                                            std::vector<double> tolerances,
                                                            std::vector<std::int64_t> shape,
                                                            std::vector<NamedValues> operands,
                                                            std::size_t max_shown) {
  return ::testing::MakeMatcher(new ElementsNearMatcher(
      std::move(expected),
      [t = std::move(tolerances)](std::size_t i, double) { return i < t.size() ? t[i] : 0.0; },
      std::move(shape), std::move(operands), max_shown));
}

::testing::Matcher<const std::vector<double>&> ElementsEqual(std::vector<double> expected,
                                                             std::vector<std::int64_t> shape,
                                                             std::vector<NamedValues> operands,
                                                             std::size_t max_shown) {
  return ElementsNear(
      std::move(expected), [](double) { return 0.0; }, std::move(shape), std::move(operands),
      max_shown);
}

}  // namespace hetero::conformance
