// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file optim.hpp
/// Optimisers (SGD, Adam, AdamW, Adagrad, RMSprop, Adadelta) and learning-rate schedules.
#include <hetero/optim/adadelta.hpp>
#include <hetero/optim/adagrad.hpp>
#include <hetero/optim/adam.hpp>
#include <hetero/optim/chained_scheduler.hpp>
#include <hetero/optim/lr_scheduler.hpp>
#include <hetero/optim/lr_schedulers.hpp>
#include <hetero/optim/one_cycle_lr.hpp>
#include <hetero/optim/optimizer.hpp>
#include <hetero/optim/reduce_lr_on_plateau.hpp>
#include <hetero/optim/rmsprop.hpp>
#include <hetero/optim/sequential_lr.hpp>
#include <hetero/optim/sgd.hpp>
