// SPDX-License-Identifier: Apache-2.0
// The conversion kernels (vec::convert) and the name of the dispatched target.
// Highway compiles this file once per target (foreach_target.h includes it again for each,
// with HWY_NAMESPACE naming the target); the part under HWY_ONCE exports the per-target
// functions and dispatches to the best one for the running CPU (Note [Vector kernels]).
#include <cstdint>

#include "vector_kernels.hpp"

// clang-format off: the order of these includes is Highway's protocol.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vector_convert.cpp"
#include <hwy/foreach_target.h>
#include <hwy/highway.h>
// clang-format on

#include "vector_convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hetero::cpu::vec {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

bool ConvertImpl(DType from, DType to, const void* in, void* out, std::int64_t n) {
  if (from == DType::float32 && to == DType::float64)
    return f32_to_f64(static_cast<const float*>(in), static_cast<double*>(out), n), true;
  if (from == DType::float64 && to == DType::float32)
    return f64_to_f32(static_cast<const double*>(in), static_cast<float*>(out), n), true;
  if (from == DType::float32 && ::hetero::is_half(to))
    return from_f32(to, static_cast<const float*>(in), out, n);
  if (::hetero::is_half(from) && to == DType::float32)
    return to_f32(from, in, static_cast<float*>(out), n);
  return false;
}

const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace hetero::cpu::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hetero::cpu::vec {

HWY_EXPORT(ConvertImpl);
HWY_EXPORT(TargetNameImpl);

bool convert(DType from, DType to, const void* in, void* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ConvertImpl)(from, to, in, out, n);
}
const char* target_name() { return HWY_DYNAMIC_DISPATCH(TargetNameImpl)(); }

}  // namespace hetero::cpu::vec
#endif
