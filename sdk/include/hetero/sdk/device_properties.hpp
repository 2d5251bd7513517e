// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sdk/device_properties.hpp
/// DeviceProperties, Capabilities and MemoryStats now live in the base layer,
/// <hetero/device_properties.hpp>, shared by applications and backends; this path stays
/// for backends written against it. Deprecated: removed at the next interface major
/// (docs/versioning.md, "Deprecated in the SDK").
#include <hetero/device_properties.hpp>
