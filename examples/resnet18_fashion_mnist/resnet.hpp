// SPDX-License-Identifier: Apache-2.0
#pragma once
// D2L's ResNet-18 (chapter "Modern Convolutional Neural Networks", section ResNet; He et al.
// 2016): b1 = 7x7 convolution (64 channels, stride 2, padding 3) + BatchNorm + ReLU + 3x3
// max-pool (stride 2, padding 1), four stages of two residual blocks (64, 128, 256, 512
// channels; each stage after the first halves the resolution in its first block and matches
// the shortcut with a strided 1x1 convolution), adaptive average pooling to 1x1, a linear
// layer. Input [N, C, H, W] float32 (28 x 28 Fashion-MNIST: 7 x 7 after b1, 1 x 1 at the last
// stage); output logits [N, classes]. Parameters are torch's default initialisation (Kaiming
// uniform with a = sqrt(5)), as D2L's PyTorch code leaves them.
#include <memory>

#include <hetero/hetero.hpp>

namespace resnet {

/// D2L's Residual: relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)), shortcut = x or a
/// strided 1x1 convolution when the channels or the stride change.
class Residual : public hetero::nn::Module {
 public:
  Residual(std::int64_t in_channels, std::int64_t channels, bool use_1x1conv, std::int64_t stride)
      : conv1_(std::make_shared<hetero::nn::Conv2d>(
            in_channels, channels, 3, hetero::nn::Conv2dOptions{.stride = stride, .padding = 1})),
        conv2_(std::make_shared<hetero::nn::Conv2d>(channels, channels, 3,
                                                    hetero::nn::Conv2dOptions{.padding = 1})),
        bn1_(std::make_shared<hetero::nn::BatchNorm2d>(channels)),
        bn2_(std::make_shared<hetero::nn::BatchNorm2d>(channels)) {
    register_module("conv1", conv1_);
    register_module("conv2", conv2_);
    if (use_1x1conv) {
      conv3_ = std::make_shared<hetero::nn::Conv2d>(in_channels, channels, 1,
                                                    hetero::nn::Conv2dOptions{.stride = stride});
      register_module("conv3", conv3_);
    }
    register_module("bn1", bn1_);
    register_module("bn2", bn2_);
  }

  hetero::Tensor forward(const hetero::Tensor& x) override {
    hetero::Tensor y = hetero::relu(bn1_->forward(conv1_->forward(x)));
    y = bn2_->forward(conv2_->forward(y));
    return hetero::relu(y + (conv3_ ? conv3_->forward(x) : x));
  }

 private:
  std::shared_ptr<hetero::nn::Conv2d> conv1_, conv2_, conv3_;
  std::shared_ptr<hetero::nn::BatchNorm2d> bn1_, bn2_;
};

/// D2L's resnet_block: `blocks` Residuals; the first halves the resolution (stride 2, 1x1
/// shortcut) unless this is the first stage.
inline hetero::nn::Sequential stage(std::int64_t in_channels, std::int64_t channels, int blocks,
                                    bool first_stage) {
  hetero::nn::Sequential s;
  for (int i = 0; i < blocks; ++i) {
    if (i == 0 && !first_stage)
      s.push_back(std::make_shared<Residual>(in_channels, channels, true, 2));
    else
      s.push_back(std::make_shared<Residual>(channels, channels, false, 1));
  }
  return s;
}

/// ResNet-18 for `in_channels`-channel images and `classes` classes (D2L's net).
inline hetero::nn::Sequential make_resnet18(std::int64_t in_channels = 1,
                                            std::int64_t classes = 10) {
  using namespace hetero::nn;
  Sequential b1{Conv2d(in_channels, 64, 7, {.stride = 2, .padding = 3}), BatchNorm2d(64), ReLU(),
                MaxPool2d(3, {.stride = 2, .padding = 1})};
  return Sequential{std::move(b1),
                    stage(64, 64, 2, true),
                    stage(64, 128, 2, false),
                    stage(128, 256, 2, false),
                    stage(256, 512, 2, false),
                    AdaptiveAvgPool2d({1, 1}),
                    Flatten(),
                    Linear(512, classes)};
}

}  // namespace resnet
