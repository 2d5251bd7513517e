// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim.hpp
/// Optimisers.
#include <hetero/optim/adam.hpp>
#include <hetero/optim/optimizer.hpp>
#include <hetero/optim/sgd.hpp>
