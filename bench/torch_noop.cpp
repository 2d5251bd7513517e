// SPDX-License-Identifier: Apache-2.0
// A libtorch program that does nothing but start (bench_startup's peer): it is linked to
// libtorch and makes one call so the library is really loaded and initialised.
#include <ATen/ATen.h>

int main() { return at::ones({1}).numel() == 1 ? 0 : 1; }
