// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sdk.hpp
/// Everything a backend author includes: the interfaces and the plugin entry macro.
/// See sdk/README.md ("Writing a backend").
#include <hetero/device_properties.hpp>
#include <hetero/sdk/backend.hpp>
#include <hetero/sdk/buffer.hpp>
#include <hetero/sdk/capabilities.hpp>
#include <hetero/sdk/kernel_args.hpp>
#include <hetero/sdk/plugin.hpp>
#include <hetero/sdk/stream.hpp>
