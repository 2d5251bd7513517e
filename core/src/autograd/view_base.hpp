// SPDX-License-Identifier: Apache-2.0
#pragma once
// Note [View bases]: copy_ into a view, with autograd, as torch's CopySlices.
//
// Every public view op (view, reshape of a contiguous tensor, narrow, operator[], transpose,
// t, permute, unsqueeze, squeeze, expand, and split/chunk/unbind built on them) marks its
// result as a view of its base: the tensor that owns the elements, never itself a view
// (TensorImpl::base, as torch's view._base). detach() and set_data() make tensors of their
// own, with no base.
//
// copy_ into a view with autograd then rebases the base's history on a CopySlices node, as
// torch: the gradient of the written elements goes to the source, the gradient of the rest
// to what the base was before. The view's own history becomes an AsStridedBackward of the
// base. Other views of the base made before hold a stale history: the base's `history`
// counter has moved past theirs, so the next read of their autograd state (requires_grad,
// is_leaf, grad_fn_name, backward, hooks, or use as an op's input) remakes it as an
// AsStridedBackward of the base, as torch regenerates a view's grad_fn when its version
// changed. copy_ into a tensor that is not a view (CopyBackwards) moves the counter too.
//
// Not thread-safe: as any in-place write, a copy_ must not race with readers of the base or
// its views.
#include <memory>

#include <hetero/tensor.hpp>

#include "../tensor_impl.hpp"
#include "node.hpp"

namespace hetero::detail {

/// Marks `view`, a new tensor over `of`'s storage made by a public view op, as a view of
/// of's base (of itself when of is not a view), made with grad mode as it is now. Returns
/// `view`.
Tensor as_view(Tensor view, const Tensor& of);

/// `t`'s autograd state, after remaking its history when `t` is a view whose base's
/// history was rebased since it was made (Note [View bases]). Null when t never required
/// grad.
const std::shared_ptr<AutogradMeta>& autograd_meta(const Tensor& t);

/// What copy_ checks before it writes, when it records into `dst`, a view: Error for a view
/// of a leaf that requires grad and for a view made with grad mode off (torch's messages);
/// NotImplementedError for a view whose base overlaps itself (from_blob with a stride 0).
void check_copy_into_view(const Tensor& dst);

/// Records copy_ of `src` into the view `dst`, whose elements it already wrote: CopySlices
/// on dst's base (inputs: the base as it was, requiring grad when `base_had_history`, and
/// src), then AsStridedBackward of the base on dst.
void record_copy_slices(const Tensor& dst, const Tensor& src, bool base_had_history);

/// Marks the history of `t`, not a view, as rebased (copy_ recorded CopyBackwards on it):
/// its views remake theirs when next read.
void history_rebased(const Tensor& t);

}  // namespace hetero::detail
