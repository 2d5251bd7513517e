#pragma once
/// @file optim.hpp
/// Optimisers.
#include <hetero/optim/sgd.hpp>
