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
#include <optional>
#include <string>
#include <tuple>

#include <hetero/error.hpp>
#include <hetero/factories.hpp>
#include <hetero/ops.hpp>

#include "op_helpers.hpp"
#include "profiler_record.hpp"

namespace hetero {

namespace {

// One side of the equation: the letters of an operand (or of the output), and where its
// ellipsis stands if it has one ("i...j": letters "ij", ellipsis at 1).
struct Subscripts {
  std::string letters;
  std::optional<std::size_t> ellipsis;
};

struct Spec {
  std::vector<Subscripts> inputs;
  std::optional<Subscripts> output;  // absent: the implicit output
};

ValueError malformed(const std::string& equation, const std::string& why) {
  return ValueError("einsum(): " + why + " in equation \"" + equation + "\"");
}

// "i...j" -> letters and ellipsis position; `which` names it in messages ("operand 1").
Subscripts subscripts(const std::string& side, const std::string& which,
                      const std::string& equation) {
  Subscripts s;
  for (std::size_t i = 0; i < side.size(); ++i) {
    const char c = side[i];
    if (c == '.') {
      if (side.compare(i, 3, "...") != 0)
        throw malformed(equation, "found '.' for " + which + " that is not part of any ellipsis");
      if (s.ellipsis)
        throw malformed(equation,
                        "found '.' for " + which + " for which an ellipsis was already found");
      s.ellipsis = s.letters.size();
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      s.letters.push_back(c);
    } else {
      throw malformed(equation, std::string("invalid subscript '") + c + "' (letters only)");
    }
  }
  return s;
}

// "ij,jk->ik" (spaces ignored), as torch.einsum's grammar: letters, at most one "..." per
// operand and in the output, an optional "->" and output.
Spec parse(const std::string& equation, std::size_t operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq.push_back(c);
  Spec s;
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  for (std::size_t start = 0;;) {
    const auto comma = lhs.find(',', start);
    const std::string side =
        lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    s.inputs.push_back(subscripts(side, "operand " + std::to_string(s.inputs.size()), equation));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (s.inputs.size() != operands)
    throw malformed(equation, "the number of subscripts (" + std::to_string(s.inputs.size()) +
                                  ") does not match the number of operands (" +
                                  std::to_string(operands) + ")");
  if (arrow != std::string::npos) {
    s.output = subscripts(eq.substr(arrow + 2), "the output", equation);
    const std::string& out = s.output->letters;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const char c = out[i];
      const bool in_inputs = std::any_of(s.inputs.begin(), s.inputs.end(), [c](const auto& in) {
        return in.letters.find(c) != std::string::npos;
      });
      if (!in_inputs)
        throw malformed(equation,
                        std::string("output subscript '") + c + "' does not appear in the inputs");
      if (out.find(c, i + 1) != std::string::npos)
        throw malformed(equation,
                        std::string("output subscript '") + c + "' appears more than once");
    }
  }
  return s;
}

// The labels of the broadcast dimensions an ellipsis stands for: characters that are not
// letters, the last `width` of `total` (ellipsis dimensions are aligned from the right).
std::string ellipsis_labels(std::size_t total, std::size_t width) {
  std::string labels;
  for (std::size_t j = total - width; j < total; ++j) labels.push_back(static_cast<char>(1 + j));
  return labels;
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

// A subscript repeated within one operand ("ii->i", "bii"): its diagonal, as torch's
// t.diagonal(p, q) kept at the first position: t times an identity mask over the two
// dimensions, summed over the second (a product and a sum: every backend and autograd).
std::pair<Tensor, std::string> diagonals(Tensor t, std::string labels, std::size_t operand) {
  for (std::size_t p = 0; p < labels.size(); ++p)
    for (std::size_t q = labels.size(); q-- > p + 1;) {
      if (labels[q] != labels[p]) continue;
      const std::int64_t n = t.size(static_cast<std::int64_t>(p));
      if (t.size(static_cast<std::int64_t>(q)) != n)
        throw ShapeError(
            std::string("einsum(): subscript ") + labels[p] + " is repeated for operand " +
            std::to_string(operand) + " but the sizes don't match, " + std::to_string(n) +
            " != " + std::to_string(t.size(static_cast<std::int64_t>(q))) + " (as torch)");
      Shape mask_shape(labels.size(), 1);
      mask_shape[p] = n;
      mask_shape[q] = n;
      const Tensor mask =
          eye(n, std::nullopt, TensorOptions(t.device()).dtype(DType::bool_)).reshape(mask_shape);
      const DType dtype = t.dtype();  // kept: an integer sum would widen to int64
      const Tensor zero = zeros({}, TensorOptions(t.device()).dtype(dtype));
      t = sum(where(mask, t, zero), static_cast<std::int64_t>(q)).to(dtype);
      labels.erase(q, 1);
    }
  return {t, labels};
}

// a and b contracted, keeping the labels in `keep` (later operands' and the output's): the
// labels summed in one operand only go first; then batch (both, kept), contracted (both, not
// kept), and each operand's own. Floating operands: one batched GEMM (matmul); integral ones
// (torch multiplies those too) a broadcast product summed over the contraction.
std::pair<Tensor, std::string> contract(const Tensor& a_in, const std::string& la_in,
                                        const Tensor& b_in, const std::string& lb_in,
                                        const std::string& keep,
                                        const std::map<char, std::int64_t>& size) {
  auto [a, la] = sum_out(a_in, la_in, lb_in + keep);
  auto [b, lb] = sum_out(b_in, lb_in, la_in + keep);
  std::string batch, contracted, own_a, own_b;
  for (char c : la) {
    const bool in_b = lb.find(c) != std::string::npos, kept = keep.find(c) != std::string::npos;
    (in_b ? (kept ? batch : contracted) : own_a).push_back(c);
  }
  for (char c : lb)
    if (la.find(c) == std::string::npos) own_b.push_back(c);
  const auto product = [&](const std::string& labels) {
    std::int64_t n = 1;
    for (char c : labels) n *= size.at(c);
    return n;
  };
  const std::int64_t nb = product(batch), m = product(own_a), k = product(contracted),
                     n = product(own_b);
  const Tensor a3 = arrange(a, la, batch + own_a + contracted).reshape({nb, m, k});
  const Tensor b3 = arrange(b, lb, batch + contracted + own_b).reshape({nb, k, n});
  Shape shape;
  for (char c : batch + own_a + own_b) shape.push_back(size.at(c));
  Tensor r;
  if (is_floating_point(a3.dtype()) || is_floating_point(b3.dtype())) {
    r = matmul(a3, b3);
  } else {
    if (a3.dtype() == DType::bool_ || b3.dtype() == DType::bool_)
      throw DTypeError("einsum(): bool operands are refused, as torch's bmm refuses them");
    if (a3.dtype() != b3.dtype())
      throw DTypeError("einsum(): expected operands of one dtype, got " +
                       std::string(dtype_name(a3.dtype())) + " and " +
                       std::string(dtype_name(b3.dtype())) + " (as torch's bmm)");
    r = (a3.unsqueeze(3) * b3.unsqueeze(1)).sum(2).to(a3.dtype());
  }
  return {r.reshape(shape), batch + own_a + own_b};
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  const detail::prof::Scope op_scope("einsum", operands.empty() ? Tensor() : operands[0]);
  if (operands.empty()) throw ValueError("einsum(): must provide at least one operand (as torch)");
  for (const Tensor& t : operands) detail::impl_of(t, "einsum");
  const Spec s = parse(equation, operands.size());
  // Each operand's labels, its ellipsis expanded to labels of its own (right-aligned).
  std::size_t width = 0;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const auto letters = static_cast<std::int64_t>(s.inputs[k].letters.size());
    const std::int64_t rank = operands[k].dim();
    if (s.inputs[k].ellipsis ? letters > rank : letters != rank)
      throw ShapeError("einsum(): the number of subscripts in the equation (" +
                       std::to_string(letters) + ") " +
                       (s.inputs[k].ellipsis ? "is more than" : "does not match") +
                       " the number of dimensions (" + std::to_string(rank) + ") for operand " +
                       std::to_string(k) +
                       (s.inputs[k].ellipsis ? "" : " and no ellipsis was given") + " (as torch)");
    if (s.inputs[k].ellipsis) width = std::max(width, static_cast<std::size_t>(rank - letters));
  }
  std::vector<Tensor> ops;
  std::vector<std::string> labels;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const Subscripts& in = s.inputs[k];
    std::string l = in.letters;
    if (in.ellipsis)
      l.insert(*in.ellipsis, ellipsis_labels(width, static_cast<std::size_t>(operands[k].dim()) -
                                                        in.letters.size()));
    auto [t, unique] = diagonals(operands[k], l, k);
    ops.push_back(t);
    labels.push_back(unique);
  }
  // The output: explicit, or the ellipsis dimensions then the letters that appear once, in
  // alphabetical order (torch's implicit form).
  std::string output;
  if (s.output) {
    output = s.output->letters;
    if (s.output->ellipsis) output.insert(*s.output->ellipsis, ellipsis_labels(width, width));
  } else {
    std::map<char, int> count;
    for (const Subscripts& in : s.inputs)
      for (char c : in.letters) ++count[c];
    output = ellipsis_labels(width, width);
    for (const auto& [c, n] : count)
      if (n == 1) output.push_back(c);
  }
  std::map<char, std::int64_t> size;
  for (std::size_t k = 0; k < ops.size(); ++k)
    for (std::size_t i = 0; i < labels[k].size(); ++i) {
      const char c = labels[k][i];
      const std::int64_t n = ops[k].size(static_cast<std::int64_t>(i));
      // Sizes broadcast (1 against n), as torch's.
      if (size.count(c) && size[c] != n && size[c] != 1 && n != 1)
        throw ShapeError(std::string("einsum(): operands do not broadcast with remapped shapes: ") +
                         (std::isalpha(static_cast<unsigned char>(c))
                              ? std::string("subscript '") + c + "'"
                              : std::string("an ellipsis dimension")) +
                         " has size " + std::to_string(n) + " for operand " + std::to_string(k) +
                         " and " + std::to_string(size[c]) + " before");
      size[c] = size.count(c) && size[c] != 1 ? size[c] : n;
    }
  // Each operand broadcast to its subscripts' sizes (a view).
  for (std::size_t k = 0; k < ops.size(); ++k) {
    Shape full;
    for (char c : labels[k]) full.push_back(size[c]);
    if (full != ops[k].shape()) ops[k] = ops[k].expand(full);
  }
  // Left to right, as torch without opt_einsum: each contraction keeps what the later
  // operands and the output need.
  Tensor t = ops[0];
  std::string l = labels[0];
  for (std::size_t k = 1; k < ops.size(); ++k) {
    std::string keep = output;
    for (std::size_t later = k + 1; later < ops.size(); ++later) keep += labels[later];
    std::tie(t, l) = contract(t, l, ops[k], labels[k], keep, size);
  }
  auto [r, rl] = sum_out(t, l, output);
  return arrange(r, rl, output).contiguous();
}

}  // namespace hetero
