// SPDX-License-Identifier: Apache-2.0
#pragma once
// The write of a binary element-wise op into an existing tensor, shared by the out= forms
// (ops_out.hpp) and the in-place members (Tensor::add_ etc.).
#include <string>

#include <hetero/sdk/op_codes.hpp>
#include <hetero/tensor.hpp>

namespace hetero::detail {

// out = op(a, b) into out's elements, with torch's rules (ops_out.hpp's file comment): the
// result dtype cast into out's (DTypeError when torch refuses it), a, b and out on one device,
// no internal overlap of out, no partial overlap of dense operands with it. `in_place`
// (x.add_(y): out is a): out's shape must be the broadcast shape (never resized), and with grad
// mode on the write is recorded (Note [In-place ops]); Error for a leaf that requires grad.
// Otherwise (the out= forms): Error when anything requires grad with grad mode on, and an
// out without elements takes the broadcast shape. Messages name op_name(op) + "_" or "_out".
Tensor& binary_into_existing(BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b,
                             bool in_place);

// DTypeError "<name>: result type R can't be cast to the desired output type T (as torch)"
// when torch's canCast refuses R into T: a floating result into an integer dtype, anything
// but bool into bool.
void check_result_cast(const std::string& name, DType result, DType out);

// Error "<name>: a leaf tensor that requires grad is being used in an in-place operation"
// when `t` is such a leaf and grad mode is on (torch's check; a view of one is copy_'s).
void check_not_grad_leaf(const std::string& name, const Tensor& t);

}  // namespace hetero::detail
