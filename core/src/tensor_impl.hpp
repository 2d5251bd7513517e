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

  std::int64_t numel() const {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
  }
};

}  // namespace hetero::detail
