// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nn.hpp
/// The neural-network layers.
#include <hetero/nn/activation.hpp>
#include <hetero/nn/batch_norm.hpp>
#include <hetero/nn/clip_grad.hpp>
#include <hetero/nn/containers.hpp>
#include <hetero/nn/conv.hpp>
#include <hetero/nn/conv1d.hpp>
#include <hetero/nn/conv3d.hpp>
#include <hetero/nn/conv_transpose.hpp>
#include <hetero/nn/distance.hpp>
#include <hetero/nn/dropout.hpp>
#include <hetero/nn/embedding.hpp>
#include <hetero/nn/flatten.hpp>
#include <hetero/nn/fold.hpp>
#include <hetero/nn/group_norm.hpp>
#include <hetero/nn/init.hpp>
#include <hetero/nn/instance_norm.hpp>
#include <hetero/nn/layer_norm.hpp>
#include <hetero/nn/likelihood_loss.hpp>
#include <hetero/nn/linear.hpp>
#include <hetero/nn/loss.hpp>
#include <hetero/nn/margin_loss.hpp>
#include <hetero/nn/module.hpp>
#include <hetero/nn/multihead_attention.hpp>
#include <hetero/nn/packed_sequence.hpp>
#include <hetero/nn/padding.hpp>
#include <hetero/nn/pixel_shuffle.hpp>
#include <hetero/nn/pooling.hpp>
#include <hetero/nn/rnn.hpp>
#include <hetero/nn/rnn_cell.hpp>
#include <hetero/nn/sequential.hpp>
#include <hetero/nn/transformer.hpp>
#include <hetero/nn/transformer_model.hpp>
#include <hetero/nn/transformer_stacks.hpp>
#include <hetero/nn/upsample.hpp>
