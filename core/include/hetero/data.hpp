// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file data.hpp
/// Data loading: datasets, the DataLoader, the IDX reader and image transforms.
#include <hetero/data/dataloader.hpp>
#include <hetero/data/dataset.hpp>
#include <hetero/data/idx.hpp>
#include <hetero/data/transforms.hpp>
