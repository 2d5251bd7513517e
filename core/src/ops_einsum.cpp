// SPDX-License-Identifier: Apache-2.0
// einsum (<hetero/manipulation.hpp>) for one or two operands: indices summed in one operand
// only are summed first; then the two operands are permuted to [batch, own, contracted] and
// [batch, contracted, own], multiplied with one batched GEMM (matmul) and permuted to the
// output's order. Every step is a view, a sum or a matmul, so every backend runs it and
// autograd differentiates it.
#include <hetero/manipulation.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include <hetero/error.hpp>
#include <hetero/ops.hpp>

#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

namespace {

struct Spec {
  std::vector<std::string> inputs;
  std::string output;
};

// "ij,jk->ik" (spaces ignored); without "->" the output is the indices that appear once, in
// alphabetical order (torch's implicit form).
Spec parse(const std::string& equation, std::size_t operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq.push_back(c);
  const auto bad = [&](const std::string& why) {
    return ValueError("einsum(): " + why + " in equation \"" + equation + "\"");
  };
  Spec s;
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  for (std::size_t start = 0;;) {
    const auto comma = lhs.find(',', start);
    s.inputs.push_back(
        lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (s.inputs.size() != operands)
    throw bad("the number of subscripts (" + std::to_string(s.inputs.size()) +
              ") does not match the number of operands (" + std::to_string(operands) + ")");
  std::map<char, int> count;
  for (const std::string& in : s.inputs)
    for (char c : in) {
      if (c == '.') throw bad("ellipsis (...) is not supported (hetero's subset)");
      if (!std::isalpha(static_cast<unsigned char>(c)))
        throw bad(std::string("invalid subscript '") + c + "' (letters only)");
      ++count[c];
    }
  for (const std::string& in : s.inputs)
    for (std::size_t i = 0; i < in.size(); ++i)
      if (in.find(in[i], i + 1) != std::string::npos)
        throw bad(std::string("subscript '") + in[i] +
                  "' repeated in one operand (a diagonal) is not supported (hetero's subset)");
  if (arrow == std::string::npos) {
    for (const auto& [c, n] : count)
      if (n == 1) s.output.push_back(c);
  } else {
    s.output = eq.substr(arrow + 2);
    for (std::size_t i = 0; i < s.output.size(); ++i) {
      const char c = s.output[i];
      if (!count.count(c))
        throw bad(std::string("output subscript '") + c + "' does not appear in the inputs");
      if (s.output.find(c, i + 1) != std::string::npos)
        throw bad(std::string("output subscript '") + c + "' appears more than once");
    }
  }
  return s;
}

// t (labelled `labels`) summed over the labels not in `keep`.
std::pair<Tensor, std::string> sum_out(Tensor t, std::string labels, const std::string& keep) {
  for (std::size_t i = labels.size(); i-- > 0;)
    if (keep.find(labels[i]) == std::string::npos) {
      t = sum(t, static_cast<std::int64_t>(i));
      labels.erase(i, 1);
    }
  return {t, labels};
}

// t permuted so that its labels are in the order of `order` (a permutation of them).
Tensor arrange(const Tensor& t, const std::string& labels, const std::string& order) {
  std::vector<std::int64_t> dims;
  for (char c : order) dims.push_back(static_cast<std::int64_t>(labels.find(c)));
  return dims.empty() ? t : t.permute(dims);
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  const detail::prof::Scope op_scope("einsum", operands.empty() ? Tensor() : operands[0]);
  if (operands.empty() || operands.size() > 2)
    throw ValueError("einsum(): hetero supports one or two operands, got " +
                     std::to_string(operands.size()));
  for (const Tensor& t : operands) detail::impl_of(t, "einsum");
  const Spec s = parse(equation, operands.size());
  std::map<char, std::int64_t> size;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    if (static_cast<std::int64_t>(s.inputs[k].size()) != operands[k].dim())
      throw ShapeError(
          "einsum(): the number of subscripts in the equation (" +
          std::to_string(s.inputs[k].size()) + ") does not match the number of dimensions (" +
          std::to_string(operands[k].dim()) + ") for operand " + std::to_string(k) + " (as torch)");
    for (std::size_t i = 0; i < s.inputs[k].size(); ++i) {
      const char c = s.inputs[k][i];
      const std::int64_t n = operands[k].size(static_cast<std::int64_t>(i));
      // Sizes broadcast (1 against n), as torch's.
      if (size.count(c) && size[c] != n && size[c] != 1 && n != 1)
        throw ShapeError(std::string("einsum(): operands do not broadcast with remapped shapes: "
                                     "subscript '") +
                         c + "' has size " + std::to_string(n) + " for operand " +
                         std::to_string(k) + " and " + std::to_string(size[c]) + " before");
      size[c] = size.count(c) && size[c] != 1 ? size[c] : n;
    }
  }
  // Each operand broadcast to its subscripts' sizes (a view).
  std::vector<Tensor> ops;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    Shape full;
    for (char c : s.inputs[k]) full.push_back(size[c]);
    ops.push_back(full == operands[k].shape() ? operands[k] : operands[k].expand(full));
  }
  if (ops.size() == 1) {
    const auto [t, labels] = sum_out(ops[0], s.inputs[0], s.output);
    return arrange(t, labels, s.output).contiguous();
  }
  // Labels summed in one operand only go first; then batch (both and out), contracted (both,
  // not out), and each operand's own (out, one operand).
  const std::string both_a = s.inputs[1] + s.output, both_b = s.inputs[0] + s.output;
  auto [a, la] = sum_out(ops[0], s.inputs[0], both_a);
  auto [b, lb] = sum_out(ops[1], s.inputs[1], both_b);
  std::string batch, contracted, own_a, own_b;
  for (char c : la) {
    const bool in_b = lb.find(c) != std::string::npos,
               in_out = s.output.find(c) != std::string::npos;
    (in_b ? (in_out ? batch : contracted) : own_a).push_back(c);
  }
  for (char c : lb)
    if (la.find(c) == std::string::npos) own_b.push_back(c);
  const auto product = [&](const std::string& labels) {
    std::int64_t n = 1;
    for (char c : labels) n *= size[c];
    return n;
  };
  const std::int64_t nb = product(batch), m = product(own_a), k = product(contracted),
                     n = product(own_b);
  const Tensor a3 = arrange(a, la, batch + own_a + contracted).reshape({nb, m, k});
  const Tensor b3 = arrange(b, lb, batch + contracted + own_b).reshape({nb, k, n});
  Shape shape;
  for (char c : batch + own_a + own_b) shape.push_back(size[c]);
  const Tensor r = matmul(a3, b3).reshape(shape);
  return arrange(r, batch + own_a + own_b, s.output).contiguous();
}

}  // namespace hetero
