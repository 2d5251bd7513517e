// SPDX-License-Identifier: Apache-2.0
// The differential test against PyTorch (issue #24): seeded random cases, each a JSON
// object that says what to compute (op, inputs with their dtype, base shape, values and
// views, arguments). generate.cpp makes them, execute.cpp runs one through hetero and adds
// its result (values, dtype, shape, gradients) or the error it raised; torch_oracle.py
// recomputes each with torch and compares. Both sides interpret the same object, so a case
// is its own reproducer (torch_oracle.py prints it as C++ and as torch).
#pragma once
#include <cstdint>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include <hetero/device.hpp>

namespace hetero::torch_diff {

using Json = nlohmann::json;

/// The case categories, in the order the generator cycles through them.
inline constexpr const char* kCategories[] = {
    "unary",   "binary", "scalar", "reduce", "softmax", "cast", "matmul",     "view",
    "factory", "grad",   "where",  "logic",  "index",   "pool", "activation", "shape"};

/// Case number `id` of the stream seeded with `seed` (the same id and seed give the same
/// case on every run); category kCategories[id % 16], made by generate.cpp's generator of
/// the same position.
Json generate_case(std::uint64_t seed, std::int64_t id);

/// Runs `spec` on `device` and returns it with "result": {"dtype", "shape", "values"} (and
/// "grads" for the grad category and index cases with args "backward"), or "error": the
/// hetero::Error subclass's name and message. Never throws for a hetero::Error; any other exception
/// is reported as error "untyped" (a defect the oracle fails).
Json execute_case(const Json& spec, const Device& device);

}  // namespace hetero::torch_diff
