// SPDX-License-Identifier: Apache-2.0
#pragma once
// The write of a binary element-wise op into an existing tensor, shared by the out= forms
// (ops_out.hpp) and the in-place members (Tensor::add_ etc.).
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

}  // namespace hetero::detail
