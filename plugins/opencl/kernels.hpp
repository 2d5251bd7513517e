// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Backend kernels of the opencl plugin: each picks the program for its dtype(s) from
// the device's ProgramCache (built on first use) and enqueues one launch on the device's
// queue. Arguments were validated by the core (Note [Check then dispatch]), including
// OpenClBackend::supports (float64 only on devices with cl_khr_fp64).
#include <cstdint>

#include <hetero/sdk/kernel_args.hpp>

#include "opencl_device.hpp"

namespace hetero::opencl::kernels {

void fill(OpenClDevice& dev, const StridedView& out, Scalar value);
void cast(OpenClDevice& dev, const StridedView& src, const StridedView& dst);
void unary(OpenClDevice& dev, UnaryOp op, const StridedView& in, const StridedView& out);
void binary(OpenClDevice& dev, BinaryOp op, const StridedView& a, const StridedView& b,
            const StridedView& out);
/// Backend::ternary (where), every dtype.
void ternary(OpenClDevice& dev, TernaryOp op, const StridedView& c, const StridedView& x,
             const StridedView& y, const StridedView& out);
/// Backend::gather (every dtype; cl/index.cl).
void gather(OpenClDevice& dev, const StridedView& src, const StridedView& index, int dim,
            const StridedView& out);
/// Backend::scatter_add (every dtype): one work item per fiber, deterministic.
void scatter_add(OpenClDevice& dev, const StridedView& out, const StridedView& index, int dim,
                 const StridedView& src);
void reduce(OpenClDevice& dev, ReductionOp op, const StridedView& in, const StridedView& out);
void random(OpenClDevice& dev, RandomDistribution dist, const StridedView& out, std::uint64_t seed,
            std::uint64_t offset);

}  // namespace hetero::opencl::kernels
