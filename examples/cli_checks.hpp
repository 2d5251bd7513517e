// SPDX-License-Identifier: Apache-2.0
#pragma once
// Option checks for the examples' command lines, with messages a user can read: CLI11's
// PositiveNumber says "Value 0 not in range 0.000000 to <a 309-digit number>".
#include <cmath>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace hetero::examples {

/// A number > 0 (finite).
inline CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || !(v > 0))
          return "must be a number greater than 0, got " + text;
        return {};
      },
      "> 0");
}

/// A number >= 0 (finite).
inline CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || !(v >= 0))
          return "must be a number of at least 0, got " + text;
        return {};
      },
      ">= 0");
}

/// The options the Fashion-MNIST training examples (LeNet, ResNet-18) share.
struct ImageTrainingOptions {
  std::string data = "/usr/share/datasets/fashion-mnist";  ///< Debian's dataset-fashion-mnist
  std::string checkpoint, device;
  std::int64_t limit = 0, test_limit = 0;
  double min_accuracy = 0;
  std::uint64_t seed = 0;
  bool resume = false, quiet = false, expect_drop = false;
};

/// Adds --data --limit --test-limit --checkpoint (described by `checkpoint_help`) --resume
/// --min-accuracy --device --seed (`seed_help`) --quiet --expect-loss-drop, bound to `o`.
inline void add_image_training_options(CLI::App& app, ImageTrainingOptions& o,
                                       const std::string& checkpoint_help,
                                       const std::string& seed_help) {
  app.add_option("--data", o.data, "directory of the four IDX files");
  app.add_option("--limit", o.limit, "train on the first N samples only (0: all)")
      ->check(non_negative());
  app.add_option("--test-limit", o.test_limit, "test on the first N samples only (0: all)")
      ->check(non_negative());
  app.add_option("--checkpoint", o.checkpoint, checkpoint_help);
  app.add_flag("--resume", o.resume, "continue from --checkpoint");
  app.add_option("--min-accuracy", o.min_accuracy, "exit 1 below this test accuracy");
  app.add_option("--device", o.device, "device (default: try_gpu())");
  app.add_option("--seed", o.seed, seed_help);
  app.add_flag("--quiet", o.quiet, "no progress bar");
  app.add_flag(
      "--expect-loss-drop", o.expect_drop,
      "exit 1 unless each epoch's last tenth of steps has a lower mean loss than its first");
}

}  // namespace hetero::examples
