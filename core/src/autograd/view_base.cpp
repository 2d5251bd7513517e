// SPDX-License-Identifier: Apache-2.0
// Note [View bases] (view_base.hpp): views know their base; copy_ into one records
// CopySlices on it; stale views remake their history.
#include "view_base.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <hetero/autograd.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>

#include "../op_helpers.hpp"
#include "record.hpp"

namespace hetero::detail {
namespace {

// A shape, element strides and element offset within a flat buffer.
struct Layout {
  Shape shape;
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;
};

// Where a view's elements lie among its base's, within a flat buffer of `extent` elements
// that spans the base as its storage does (as torch's as_strided_backward lays them out).
struct ViewGeometry {
  Layout base, view;
  std::int64_t extent = 0;
  bool view_overlaps = false;  // some element of the view is another's too (expand)
};

// Whether no two elements of `t` share a location: the dimensions of more than one element,
// ordered by stride, each step past all the earlier ones reach (sufficient, as torch's
// is_non_overlapping_and_dense is; a tensor it misses is treated as overlapping).
bool non_overlapping(const TensorImpl& t) {
  std::vector<std::pair<std::int64_t, std::int64_t>> dims;  // (|stride|, size)
  for (std::size_t d = 0; d < t.shape.size(); ++d)
    if (t.shape[d] > 1)
      dims.emplace_back(t.strides[d] < 0 ? -t.strides[d] : t.strides[d], t.shape[d]);
  std::sort(dims.begin(), dims.end());
  std::int64_t reach = 0;
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return false;
    reach += (size - 1) * stride;
  }
  return true;
}

ViewGeometry geometry_of(const TensorImpl& view) {
  const TensorImpl& base = *view.base;
  ViewGeometry g;
  std::int64_t first = base.offset;
  if (base.numel() > 0) {
    const auto [lo, hi] = element_span(base);
    first = lo;
    g.extent = hi - lo + 1;
  }
  g.base = {base.shape, base.strides, base.offset - first};
  g.view = {view.shape, view.strides, view.offset - first};
  g.view_overlaps = !non_overlapping(view);
  return g;
}

Tensor laid_out(const Tensor& flat, const Layout& l) {
  return strided_view(flat, l.shape, l.strides, l.offset);
}

// AsStridedBackward: the base-shaped gradient that is `g` at the view's elements and 0
// elsewhere; where the view's elements overlap, their gradients add (scatter_add).
Tensor to_base(const Tensor& g, const ViewGeometry& geo) {
  Tensor flat = zeros({geo.extent}, TensorOptions(g.device()).dtype(g.dtype()));
  if (!geo.view_overlaps) {
    laid_out(flat, geo.view).copy_(g);
  } else {
    const Tensor positions =
        laid_out(arange(geo.extent, TensorOptions(g.device()).dtype(DType::int64)), geo.view)
            .contiguous()
            .reshape({-1});
    scatter_add_into(flat, 0, positions, g.contiguous().reshape({-1}));
  }
  return laid_out(flat, geo.base);
}

// Grad mode on for a scope: a stale view's history is remade whenever it is read, inside
// NoGradGuard or the engine too, and record() records only with grad mode on.
class GradModeOn {
 public:
  GradModeOn() : was_(is_grad_enabled()) { set_grad_enabled(true); }
  ~GradModeOn() { set_grad_enabled(was_); }
  GradModeOn(const GradModeOn&) = delete;
  GradModeOn& operator=(const GradModeOn&) = delete;

 private:
  bool was_;
};

// Gives `view` the history "a view of `base`" (base requires grad).
void record_as_strided(const Tensor& view, const Tensor& base) {
  GradModeOn on;
  record("AsStridedBackward", view, {base}, [&] {
    return
        [geo = geometry_of(*view.impl())](const Tensor& g) { return Gradients{to_base(g, geo)}; };
  });
  view.impl()->base_history = base.impl()->history;
}

}  // namespace

Tensor as_view(Tensor view, const Tensor& of) {
  TensorImpl& v = *view.impl();
  const auto& o = of.impl();
  v.base = o->base ? o->base : o;
  v.base_history = v.base->history;
  v.view_without_grad = o->view_without_grad || !is_grad_enabled();
  return view;
}

const std::shared_ptr<AutogradMeta>& autograd_meta(const Tensor& t) {
  impl_of(t, "Tensor");  // Error for an undefined tensor
  TensorImpl& i = *t.impl();
  if (i.base && i.base_history != i.base->history) {
    i.base_history = i.base->history;
    const Tensor base(i.base);
    if (!i.view_without_grad && base.requires_grad()) record_as_strided(t, base);
  }
  return i.autograd;
}

void check_copy_into_view(const Tensor& dst) {
  const TensorImpl& i = *dst.impl();
  const Tensor base(i.base);
  if (base.requires_grad() && base.is_leaf())
    throw Error(
        "copy_: a view of a leaf tensor that requires grad is being used in an in-place "
        "operation (as torch); copy into it under NoGradGuard, as an optimiser step does");
  if (i.view_without_grad)
    throw Error(
        "copy_: a view was created in no_grad mode and is being modified in place with grad "
        "mode enabled (as torch, which forbids it as ambiguous): make the view and the copy "
        "both under NoGradGuard (not tracked) or both outside it (tracked)");
  if (!non_overlapping(*i.base))
    throw NotImplementedError(
        "copy_: the view's base " + shape_str(base.shape()) +
        " has elements that share a location (strides " + shape_str(base.strides()) +
        "), so CopySlices cannot lay its gradient out; clone() the base first");
}

void record_copy_slices(const Tensor& dst, const Tensor& src, bool base_had_history) {
  const Tensor base(dst.impl()->base);
  const Tensor before = base;  // its edge is the old history until record() replaces it
  record("CopySlices", base, {before, src}, [&] {
    return [geo = geometry_of(*dst.impl()), base_had_history, to_dtype = src.dtype(),
            to_device = src.device()](const Tensor& g) {
      const Tensor flat = empty({geo.extent}, TensorOptions(g.device()).dtype(g.dtype()));
      Tensor all = laid_out(flat, geo.base);
      all.copy_(g);
      const Tensor written = laid_out(flat, geo.view);
      const Tensor to_src = written.clone().to(to_dtype).to(to_device);
      if (!base_had_history) return Gradients{Tensor(), to_src};
      fill(written, 0.0);
      return Gradients{all, to_src};
    };
  });
  ++base.impl()->history;
  if (base.requires_grad()) record_as_strided(dst, base);
}

void history_rebased(const Tensor& t) { ++t.impl()->history; }

}  // namespace hetero::detail
