// SPDX-License-Identifier: Apache-2.0
// A user's program: the chapter's try_gpu path against an installed hetero. It runs on
// a GPU when one is present and on the cpu otherwise, with no code change.
#include <iostream>

#include <hetero/hetero.hpp>

int main() {
  try {
    const hetero::Device dev = hetero::try_gpu();
    std::cout << "devices:";
    for (const auto& d : hetero::all_devices()) std::cout << ' ' << d;
    std::cout << "\ntry_gpu() = " << dev << " (" << hetero::num_gpus() << " GPU(s))\n";

    // Tensors created on the device, an op on the device, a copy back to the host.
    hetero::manual_seed(0);
    const auto x = hetero::ones({2, 3}, hetero::TensorOptions().device(dev));
    const auto y = hetero::rand({2, 3}, hetero::TensorOptions().device(dev));
    const auto z = x + y;
    std::cout << "x + y on " << z.device() << ":\n" << z << '\n';

    // The chapter's network on the device.
    hetero::nn::Sequential net{hetero::nn::Linear(3, 1)};
    net.to(dev);
    const auto out = net(x);
    std::cout << "net(x) on " << out.device() << ", shape [" << out.size(0) << ", " << out.size(1)
              << "]\n";
    return 0;
  } catch (const hetero::Error& e) {
    std::cerr << "hetero_app: " << e.what() << '\n';
    return 1;
  }
}
