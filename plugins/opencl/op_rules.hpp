// SPDX-License-Identifier: Apache-2.0
#pragma once
// The OpenCL C text of the op tables' rules (Note [Op tables], <hetero/sdk/op_table.hpp>),
// put before elementwise.cl and reduce.cl, so the kernels carry no hand-numbered op list:
// - HETERO_UNARY_FLOAT_CASES / HETERO_UNARY_INT_CASES, HETERO_BINARY_FLOAT_CASES /
//   HETERO_BINARY_INT_CASES: one `case <code>: return (T)(<rule>);` per row (the integer
//   form for the rows defined on integers), over `x` (and `y`);
// - HETERO_REDUCE_FINISH_FLOAT_CASES / _INT_CASES: the finish column over `acc`, `count`;
// - REDUCE_<name> (each reduction's code), REDUCE_IS_SUM(op), REDUCE_IS_SQUARES(op),
//   REDUCE_IS_MIN(op), REDUCE_IS_INDEX(op) from the kind column.
#include <string>

namespace hetero::opencl {

/// The prelude (made once; thread-safe).
const std::string& op_rules_prelude();

}  // namespace hetero::opencl
