// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file distributed.hpp
/// hetero::distributed — multi-process data parallelism on MPI, as torch.distributed:
/// a process group, in-place collectives on tensors of any device and dtype, gradient
/// averaging for a Module and a sampler that shards a data set across ranks. Link
/// Hetero::distributed (find_package(Hetero COMPONENTS distributed)); run the program
/// under `mpirun -np N`.
#include <hetero/distributed/collectives.hpp>
#include <hetero/distributed/data_parallel.hpp>
#include <hetero/distributed/distributed_data_parallel.hpp>
#include <hetero/distributed/distributed_error.hpp>
#include <hetero/distributed/new_group.hpp>
#include <hetero/distributed/point_to_point.hpp>
#include <hetero/distributed/process_group.hpp>
#include <hetero/distributed/sampler.hpp>
#include <hetero/distributed/work.hpp>
