// SPDX-License-Identifier: Apache-2.0
#pragma once
// TensorImpl: the state behind a Tensor handle: storage, element offset, shape,
// strides, dtype, and the autograd state.
#include <cstdint>
#include <memory>
#include <vector>

#include <hetero/tensor.hpp>

#include "autograd/node.hpp"
#include "storage.hpp"

namespace hetero::detail {

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  std::int64_t offset = 0;  // elements
  Shape shape;
  std::vector<std::int64_t> strides;  // elements
  DType dtype = DType::float32;
  std::shared_ptr<AutogradMeta> autograd;  // null: never required grad
  // Note [View bases] (autograd/view_base.hpp): a view made by a public view op points at
  // the tensor that owns its elements (never at another view), as torch's view._base, so
  // that copy_ into it can rebase that tensor's history (CopySlices).
  std::shared_ptr<TensorImpl> base;  // null: not a view (a detach()ed alias is its own base)
  std::uint64_t base_history = 0;    // base->history when this view's history was made
  bool view_without_grad = false;    // made with grad mode off (copy_ into it is refused)
  std::uint64_t history = 0;         // a base's: bumped when copy_ rebases its history

  std::int64_t numel() const {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
  }
};

}  // namespace hetero::detail
