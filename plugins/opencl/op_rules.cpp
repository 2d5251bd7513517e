// SPDX-License-Identifier: Apache-2.0
#include "op_rules.hpp"

#include <hetero/sdk/op_codes.hpp>
#include <hetero/sdk/reduction_ops.hpp>

namespace hetero::opencl {
namespace {

std::string make_prelude() {
  std::string unary_float, unary_int, binary_float, binary_int, ternary, finish_float, finish_int;
  std::string is_sum = "0", is_squares = "0", is_min = "0", is_index = "0", codes;
  auto code = [](auto op) { return std::to_string(static_cast<int>(op)); };
  auto add_case = [](std::string& to, const std::string& c, const char* rule) {
    to += " case " + c + ": return (T)(" + rule + ");";
  };
#define HETERO_CL_UNARY(name, since, dtypes, floating_rule, integer_rule, ...) \
  add_case(unary_float, code(UnaryOp::name), #floating_rule);                  \
  if (HETERO_DTYPES_##dtypes == DTypeClass::numeric)                           \
    add_case(unary_int, code(UnaryOp::name), #integer_rule);
  HETERO_FORALL_UNARY_OPS(HETERO_CL_UNARY)
#undef HETERO_CL_UNARY
#define HETERO_CL_BINARY(name, since, dtypes, floating_rule, integer_rule, ...) \
  add_case(binary_float, code(BinaryOp::name), #floating_rule);                 \
  if (HETERO_DTYPES_##dtypes != DTypeClass::floating)                           \
    add_case(binary_int, code(BinaryOp::name), #integer_rule);
  HETERO_FORALL_BINARY_OPS(HETERO_CL_BINARY)
#undef HETERO_CL_BINARY
#define HETERO_CL_TERNARY(name, since, dtypes, rule) \
  add_case(ternary, code(TernaryOp::name), #rule);
  HETERO_FORALL_TERNARY_OPS(HETERO_CL_TERNARY)
#undef HETERO_CL_TERNARY
#define HETERO_CL_REDUCE(name, since, dtypes, kind, finish)                                 \
  {                                                                                         \
    const std::string c = code(ReductionOp::name);                                          \
    const std::string test = " || (op) == " + c;                                            \
    codes += "#define REDUCE_" #name " " + c + "\n";                                        \
    const ReductionKind k = HETERO_REDUCTION_KIND_##kind;                                   \
    if (k == ReductionKind::sum || k == ReductionKind::squares) {                           \
      add_case(finish_float, c, #finish);                                                   \
      if (HETERO_DTYPES_##dtypes != DTypeClass::floating) add_case(finish_int, c, #finish); \
    }                                                                                       \
    if (k == ReductionKind::sum) is_sum += test;                                            \
    if (k == ReductionKind::squares) is_squares += test;                                    \
    if (k == ReductionKind::index) is_index += test;                                        \
    if (min_reduction(ReductionOp::name)) is_min += test;                                   \
  }
  HETERO_FORALL_REDUCE_OPS(HETERO_CL_REDUCE)
#undef HETERO_CL_REDUCE
  return "// Generated from the op tables (plugins/opencl/op_rules.cpp).\n" + codes +
         "#define HETERO_UNARY_FLOAT_CASES" + unary_float + "\n#define HETERO_UNARY_INT_CASES" +
         unary_int + "\n#define HETERO_BINARY_FLOAT_CASES" + binary_float +
         "\n#define HETERO_BINARY_INT_CASES" + binary_int + "\n#define HETERO_TERNARY_CASES" +
         ternary + "\n#define HETERO_REDUCE_FINISH_FLOAT_CASES" + finish_float +
         "\n#define HETERO_REDUCE_FINISH_INT_CASES" + finish_int + "\n#define REDUCE_IS_SUM(op) (" +
         is_sum + ")\n#define REDUCE_IS_SQUARES(op) (" + is_squares +
         ")\n#define REDUCE_IS_MIN(op) (" + is_min + ")\n#define REDUCE_IS_INDEX(op) (" + is_index +
         ")\n";
}

}  // namespace

const std::string& op_rules_prelude() {
  static const std::string prelude = make_prelude();
  return prelude;
}

}  // namespace hetero::opencl
