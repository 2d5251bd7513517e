// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file padding.hpp
/// hetero::pad, as torch.nn.functional.pad: pads (or, with negative amounts, crops) the last
/// dimensions of a tensor with a constant, their reflection, their edge values or their
/// periodic continuation. Composed from ops every backend runs (a fill and a copy into a view
/// for the constant; index_select with a host-built index for the other modes), so it runs on
/// every device and records its gradient through them.
#include <cstdint>
#include <string_view>
#include <vector>

#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// What fills the padding, as F.pad's `mode`:
/// - constant: `value`;
/// - reflect: the input mirrored about its edge element, not repeating it (pads of 2 around
///   [a b c d] give [c b a b c d c b]); each pad < the dimension's size;
/// - replicate: the edge element repeated ([a a a b c d d d]);
/// - circular: the input continued periodically ([c d a b c d a b]); each pad <= the
///   dimension's size.
enum class PadMode { constant, reflect, replicate, circular };

/// The name torch uses ("constant", "reflect", "replicate", "circular").
HETERO_API std::string_view pad_mode_name(PadMode mode) noexcept;

/// `input` padded as torch.nn.functional.pad(input, pad, mode, value). `pad` holds pairs
/// (before, after) in elements, for the last dimension first: {left, right} pads dimension
/// -1, {left, right, top, bottom} dimensions -1 and -2, and so on. A negative amount removes
/// that many elements from that side instead. Returns a new tensor of input's dtype and
/// device; its gradient is the input's region of the output's gradient (constant) or the
/// gradient summed back onto the elements each padding element copies (the other modes).
///
/// constant: any dtype and rank, up to input.dim() pairs; `value` is converted to the dtype
/// as torch.full converts it (DTypeError where it does not fit: inf into an integer tensor).
/// The other modes, as torch 1.13: 1, 2 or 3 pairs on an input of 2-3, 3-4 or 4-5
/// dimensions (NotImplementedError otherwise), every dimension but the first non-empty
/// (ShapeError), `value` 0 (ValueError). They accept every dtype (torch 1.13 refuses
/// integer reflect and replicate pads; later versions accept them).
///
/// Errors: ValueError for an odd number of amounts ("Padding length must be divisible by
/// 2"), more pairs than dimensions ("Padding length too large"), a reflect pad >= the size or
/// a circular pad > the size of its dimension; ShapeError when the output would have a
/// negative size. Crops apply front first, then back, each within what is left (as torch's
/// narrow): IndexError for a front crop beyond the dimension's size, ShapeError for a back
/// crop beyond what the front crop left, even where the other side's padding would give a
/// non-negative size (pad of a [4] tensor by {-6, 3} or {3, -6}). An empty output is allowed in
/// every mode (torch 1.13 refuses some: a constant pad with a positive amount whose output has an
/// empty padded dimension, a 1-d reflect or replicate pad to size 0, a 2-d or 3-d one where all
/// sizes are 0).
HETERO_API Tensor pad(const Tensor& input, const std::vector<std::int64_t>& pad,
                      PadMode mode = PadMode::constant, double value = 0.0);

}  // namespace hetero
