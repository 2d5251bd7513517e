// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file hetero.hpp
/// Everything an application needs: devices, tensors, operations, layers, plugins.
#include <hetero/activations.hpp>
#include <hetero/attention.hpp>
#include <hetero/autograd.hpp>
#include <hetero/conv.hpp>
#include <hetero/conv1d.hpp>
#include <hetero/data.hpp>
#include <hetero/default_device.hpp>
#include <hetero/device.hpp>
#include <hetero/devices.hpp>
#include <hetero/distance.hpp>
#include <hetero/dtype.hpp>
#include <hetero/environment.hpp>
#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/generator.hpp>
#include <hetero/interop.hpp>
#include <hetero/interpolate.hpp>
#include <hetero/log.hpp>
#include <hetero/manipulation.hpp>
#include <hetero/nn.hpp>
#include <hetero/ops.hpp>
#include <hetero/ops_out.hpp>
#include <hetero/optim.hpp>
#include <hetero/padding.hpp>
#include <hetero/pixel_shuffle.hpp>
#include <hetero/plugins.hpp>
#include <hetero/profiler.hpp>
#include <hetero/relocate_storage.hpp>
#include <hetero/serialize.hpp>
#include <hetero/sorting.hpp>
#include <hetero/tensor.hpp>
#include <hetero/tensor_options.hpp>
#include <hetero/transfer_stats.hpp>
#include <hetero/version.hpp>
