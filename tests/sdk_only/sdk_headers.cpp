// SPDX-License-Identifier: Apache-2.0
// Every SDK header compiles against Hetero::sdk alone (Hetero::base below it): the SDK
// needs neither the core's headers nor its library. Built, never run.
#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/caching_allocator.hpp>
#include <hetero/sdk/counter_rng.hpp>
#include <hetero/sdk/device_properties.hpp>
#include <hetero/sdk/dtype_dispatch.hpp>
#include <hetero/sdk/element_conversion.hpp>
#include <hetero/sdk/elementwise_ops.hpp>
#include <hetero/sdk/find_backend.hpp>
#include <hetero/sdk/half.hpp>
#include <hetero/sdk/host_device.hpp>
#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/memory_counter.hpp>
#include <hetero/sdk/memory_policy.hpp>
#include <hetero/sdk/merge_dims.hpp>
#include <hetero/sdk/plugin.hpp>
#include <hetero/sdk/sdk.hpp>
#include <hetero/sdk/stream.hpp>

#if __has_include(<hetero/tensor.hpp>)
#error "the core's headers are on the SDK's include path"
#endif
