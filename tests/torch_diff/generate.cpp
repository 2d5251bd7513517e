// SPDX-License-Identifier: Apache-2.0
// Random cases for the differential test (cases.hpp): shapes with 0-d, size-1, empty and
// broadcast dimensions; contiguous, transposed and narrowed inputs; NaN, +-inf, -0.0, huge
// and tiny values; arguments now and then out of range, so that error parity is tested too.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <hetero/sdk/op_table.hpp>

#include "cases.hpp"

namespace hetero::torch_diff {
namespace {

const std::array<const char*, 9> kDtypes = {"float32", "float64", "float16", "bfloat16", "int32",
                                            "int64",   "bool",    "uint8",   "int8"};
// Every row of the op tables (Note [Op tables]), in row order: an op added to a table is
// generated here, and compared with torch, with no list to edit.
#define HETERO_DIFF_OP_NAME(name, ...) #name,
const auto kUnary = std::to_array<const char*>({HETERO_FORALL_UNARY_OPS(HETERO_DIFF_OP_NAME)});
const auto kBinary = std::to_array<const char*>({HETERO_FORALL_BINARY_OPS(HETERO_DIFF_OP_NAME)});
#undef HETERO_DIFF_OP_NAME

// The grad category's element-wise functions, from the rows too: every unary row (those
// defined on part of the line as `<name>_abs`, applied to |x| + 0.5, so that both sides
// stay finite), and every binary row with a gradient (its saved column is not `nothing`;
// pow as `pow_abs`, on |x| + 0.5), with the compositions where_gt and clamp_both, and add_,
// sub_, mul_ and div_ in place into a clone of the first operand (Note [In-place ops]).
std::vector<std::string> grad_unary() {
  const std::set<std::string> partial{"log", "sqrt", "log1p", "rsqrt", "reciprocal"};
  std::vector<std::string> names;
  for (const char* name : kUnary)
    names.push_back(partial.count(name) ? std::string(name) + "_abs" : name);
  return names;
}
std::vector<std::string> grad_binary() {
  std::vector<std::string> names;
#define HETERO_DIFF_GRAD_BINARY(name, since, dtypes, rule, integer_rule, saves, ...) \
  if (std::string_view(#saves) != "nothing") names.emplace_back(#name);
  HETERO_FORALL_BINARY_OPS(HETERO_DIFF_GRAD_BINARY)
#undef HETERO_DIFF_GRAD_BINARY
  for (std::string& name : names)
    if (name == "pow") name = "pow_abs";
  names.insert(names.end(), {"where_gt", "clamp_both", "add_", "sub_", "mul_", "div_"});
  return names;
}
// The activations of <hetero/activations.hpp> (execute.cpp's activation()): gelu_tanh is
// gelu(x, "tanh"); prelu, with its weight, is torch_layers' (kind "module").
const auto kActivations = std::to_array<const char*>(
    {"gelu", "gelu_tanh", "silu", "leaky_relu", "elu", "softplus", "selu", "celu", "mish",
     "logsigmoid", "softsign", "hardtanh", "relu6", "hardsigmoid", "hardswish"});
// The ops of the shape category (shape_case(); execute.cpp's shaping()).
const auto kShapeOps = std::to_array<const char*>(
    {"tril", "triu", "flip", "repeat", "split", "split_sizes", "chunk", "unbind", "cumsum",
     "one_hot", "bmm", "baddbmm", "einsum", "sort", "argsort", "topk"});
// einsum equations (<hetero/manipulation.hpp>): attention's contractions, matrix products,
// outer and inner products, transposes and sums; diagonals, ellipses (0-2 broadcast
// dimensions, drawn per case) and three operands.
const auto kEinsum =
    std::to_array<const char*>({"ij,jk->ik",       "bij,bjk->bik", "bhqd,bhkd->bhqk",
                                "bhqk,bhkd->bhqd", "i,i->",        "i,j->ij",
                                "ij->ji",          "ij->",         "ijk->kj",
                                "ij,ij->i",        "bi,bj->bij",   "ij,jk",
                                "ik,jk->ij",       "ijk,k->ij",    "i->",
                                "ii->i",           "ii",           "bii->bi",
                                "iji->j",          "...ij->...ji", "...ij,...jk->...ik",
                                "...ij",           "i...,i->...",  "...ij->ij",
                                "ij,jk,kl->il",    "i,i,i",        "bij,bjk,bkl->bil",
                                "ij,j...->i..."});
const std::vector<std::string> kGradUnary = [] {
  std::vector<std::string> names = grad_unary();
  names.insert(names.end(), kActivations.begin(), kActivations.end());
  // In place into a clone of the operand (Note [In-place ops]).
  names.insert(names.end(), {"exp_", "tanh_", "sigmoid_", "neg_", "relu_", "abs_"});
  return names;
}();
const std::vector<std::string> kGradBinary = grad_binary();
const std::array<const char*, 13> kReduce = {"sum",    "mean",   "max", "min", "norm",
                                             "argmax", "argmin", "var", "std", "logsumexp",
                                             "prod",   "amax",   "amin"};

bool is_float(const std::string& t) { return t.rfind("float", 0) == 0 || t == "bfloat16"; }

double largest(const std::string& t) {
  if (t == "float16") return 65504.0;
  if (t == "bfloat16") return 3.3895313892515355e38;
  if (t == "float32") return std::numeric_limits<float>::max();
  return std::numeric_limits<double>::max();
}

class Gen {
 public:
  Gen(std::uint64_t seed, std::int64_t id)
      : rng_(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(id)) {}

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class A>
  auto pick(const A& a) {
    return a[static_cast<std::size_t>(uniform(0, static_cast<int>(a.size()) - 1))];
  }
  std::string dtype() { return pick(kDtypes); }
  std::string float_dtype() {
    return pick(std::array<const char*, 4>{"float32", "float64", "float16", "bfloat16"});
  }

  /// A shape of rank 0..max_rank, dimensions mostly 1..5, now and then 0.
  Json shape(int max_rank) {
    Json s = Json::array();
    const int rank = uniform(0, max_rank);
    for (int i = 0; i < rank; ++i) s.push_back(chance(0.04) ? 0 : uniform(1, 5));
    return s;
  }

  /// One element value for dtype t: ints and bools as integers, floats as numbers or the
  /// strings "nan", "inf", "-inf".
  Json value(const std::string& t, bool special) {
    if (t == "bool") return uniform(0, 1);
    if (t == "uint8")
      return special && chance(0.08) ? pick(std::array<int, 3>{0, 255, 128}) : uniform(0, 12);
    if (!is_float(t)) {
      const std::int64_t lo = t == "int8"    ? std::numeric_limits<std::int8_t>::min()
                              : t == "int32" ? std::numeric_limits<std::int32_t>::min()
                                             : std::numeric_limits<std::int64_t>::min();
      const std::int64_t hi = t == "int8"    ? std::numeric_limits<std::int8_t>::max()
                              : t == "int32" ? std::numeric_limits<std::int32_t>::max()
                                             : std::numeric_limits<std::int64_t>::max();
      if (special && chance(0.08)) return pick(std::array<std::int64_t, 4>{lo, hi, 0, -1});
      return uniform(-9, 9);
    }
    if (special && chance(0.12)) {
      switch (uniform(0, 7)) {
        case 0:
          return "nan";
        case 1:
          return "inf";
        case 2:
          return "-inf";
        case 3:
          return -0.0;
        case 4:
          return 0.0;
        case 5:
          return largest(t) * (chance(0.5) ? 0.75 : -0.75);
        case 6:
          return t == "float16" ? 1e-7 : 1e-40;  // subnormal in the type
        default:
          return 1e-3;
      }
    }
    if (chance(0.35)) return uniform(-5, 5);
    const double scale = std::pow(10.0, uniform(-2, 2));
    return std::normal_distribution<double>(0, 1)(rng_) * scale;
  }

  /// An operand of logical shape `shape` and dtype t: its base shape, values and the views
  /// that make it (transposed or narrowed, or contiguous).
  Json input(const std::string& t, const Json& shape, bool special, bool views = true,
             bool smooth = false) {
    Json base = shape;
    Json ops = Json::array();
    const int rank = static_cast<int>(shape.size());
    const int kind = views ? uniform(0, 9) : 0;
    if (kind >= 6 && kind <= 7 && rank >= 2) {  // transposed
      const int d0 = uniform(0, rank - 2), d1 = uniform(d0 + 1, rank - 1);
      std::swap(base[d0], base[d1]);
      ops.push_back({"transpose", d0, d1});
    } else if (kind >= 8 && rank >= 1) {  // narrowed
      const int d = uniform(0, rank - 1);
      const int extra = uniform(1, 2), start = uniform(0, extra);
      base[d] = base[d].get<int>() + extra;
      ops.push_back({"narrow", d, start, shape[d]});
    }
    std::int64_t n = 1;
    for (const auto& d : base) n *= d.get<std::int64_t>();
    Json values = Json::array();
    for (std::int64_t i = 0; i < n; ++i)
      values.push_back(smooth ? Json(std::uniform_real_distribution<double>(-3, 3)(rng_))
                              : value(t, special));
    return {{"dtype", t}, {"base", base}, {"values", values}, {"views", ops}};
  }

  /// Two shapes that broadcast (or, with probability `bad`, do not).
  std::pair<Json, Json> broadcast_pair(double bad) {
    Json out = shape(3);
    Json a = out, b = out;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (chance(0.3)) a[i] = 1;
      if (chance(0.3)) b[i] = 1;
    }
    // Drop leading dimensions from one side now and then (and 0-d operands).
    if (chance(0.3)) a.erase(a.begin(), a.begin() + uniform(0, static_cast<int>(a.size())));
    if (chance(0.3)) b.erase(b.begin(), b.begin() + uniform(0, static_cast<int>(b.size())));
    if (chance(bad) && !a.empty()) a[a.size() - 1] = a.back().get<int>() + 2;
    return {a, b};
  }

  std::mt19937_64 rng_;
};

// The unary ops with an in-place member (x.exp_()).
const auto kInPlaceUnary = std::to_array<std::string_view>(
    {"neg", "abs", "exp", "log", "sqrt", "sigmoid", "tanh", "relu"});

Json unary_case(Gen& g) {
  const std::string t = g.dtype();
  Json c = {{"op", g.pick(kUnary)}, {"inputs", {g.input(t, g.shape(3), true)}}};
  const std::string op = c["op"];
  // A quarter of those in place, drawn last (the rest of the case is as before).
  if (std::find(kInPlaceUnary.begin(), kInPlaceUnary.end(), op) != kInPlaceUnary.end() &&
      g.chance(0.25))
    c["args"] = {{"inplace", true}};
  return c;
}

// Whether add, sub, mul, div or pow runs in place (x.add_(y), Note [In-place ops]): a quarter
// of them, drawn last so that the rest of the case is what it was before in-place ops.
bool in_place(Gen& g, const std::string& op) {
  const bool arithmetic = op == "add" || op == "sub" || op == "mul" || op == "div" || op == "pow";
  return arithmetic && g.chance(0.25);
}

Json binary_case(Gen& g) {
  auto [sa, sb] = g.broadcast_pair(0.04);
  const std::string ta = g.dtype(), tb = g.chance(0.5) ? ta : g.dtype();
  Json c = {{"op", g.pick(kBinary)}, {"inputs", {g.input(ta, sa, true), g.input(tb, sb, true)}}};
  if (in_place(g, c["op"].get<std::string>())) c["args"] = {{"inplace", true}};
  return c;
}

Json scalar_case(Gen& g) {
  const std::string t = g.dtype();
  const bool integral = g.chance(0.5);
  Json s;
  if (integral)
    s = g.chance(0.15)
            ? Json(g.pick(std::array<std::int64_t, 5>{300, -1, 2147483648LL, -129, 1LL << 40}))
            : Json(g.uniform(-4, 4));
  else
    s = g.value("float64", true);
  Json c = {{"op", g.pick(std::array<const char*, 11>{"add", "sub", "mul", "div", "eq", "ne", "lt",
                                                      "le", "gt", "ge", "pow"})},
            {"inputs", {g.input(t, g.shape(3), true)}},
            {"args", {{"scalar", s}, {"integral", integral}, {"left", g.chance(0.3)}}}};
  if (in_place(g, c["op"].get<std::string>())) {
    c["args"]["inplace"] = true;
    c["args"]["left"] = false;
  }
  return c;
}

Json reduce_case(Gen& g) {
  const std::string t = g.dtype();
  const Json shape = g.shape(3);
  const int rank = static_cast<int>(shape.size());
  Json args = {{"all", g.chance(0.3)}, {"keepdim", g.chance(0.5)}};
  args["dim"] = g.chance(0.05) ? rank + 1 : g.uniform(-std::max(rank, 1), std::max(rank, 1) - 1);
  const std::string op = g.pick(kReduce);
  if (op == "var" || op == "std") args["correction"] = g.uniform(0, 2);
  if (op == "logsumexp") args["all"] = false;  // torch.logsumexp needs a dim
  // A list of dims (torch's dim=(0, 2)): amax and amin always, sum, mean, var and std at
  // times. Each dimension in at most once, as itself or counted from the end; at times a
  // repeat or one out of range (errors on both sides); empty: every dimension.
  const bool takes_list = op == "sum" || op == "mean" || op == "var" || op == "std";
  if (op == "amax" || op == "amin" || (takes_list && g.chance(0.3))) {
    Json dims = Json::array();
    for (int d = 0; d < rank; ++d)
      if (g.chance(0.5)) dims.push_back(g.chance(0.5) ? d : d - rank);
    if (rank > 0 && g.chance(0.04)) dims.push_back(g.uniform(0, rank - 1));  // maybe a repeat
    if (g.chance(0.03)) dims.push_back(rank + 1);
    args["dims"] = dims;
    args["all"] = false;
  }
  Json in = g.input(t, shape, true);
  if (op == "prod" && g.chance(0.4)) {
    // Products that overflow (issue #44), in classes whose answer does not depend on the
    // order of multiplication: factors of magnitude >= 1 (the partial products only grow:
    // +-inf in every order), a 0 with an inf (NaN in every order), and int64 products that
    // wrap (exact modulo 2^64).
    const bool zero_and_inf = is_float(t) && g.chance(0.3);
    if (zero_and_inf) {  // over every element and without views, so that both are reduced
      in = g.input(t, shape, false, false);
      args["all"] = true;
    }
    for (auto& v : in["values"]) {
      if (t == "float16")
        v = g.pick(std::array<double, 5>{2, -3, 300, 6e4, 1.5});
      else if (t == "float32" || t == "bfloat16")
        v = g.pick(std::array<double, 5>{2, -3, 1e30, -1e20, 1.5});
      else if (t == "float64")
        v = g.pick(std::array<double, 5>{2, -3, 1e300, -1e200, 1.5});
      else if (t == "int64")
        v = g.pick(std::array<std::int64_t, 5>{3, -7, 1LL << 20, 1LL << 40, -(1LL << 31)});
    }
    if (zero_and_inf && in["values"].size() >= 2) {
      in["values"][0] = 0.0;
      in["values"][in["values"].size() - 1] = "inf";
    }
  }
  return {{"op", op}, {"inputs", {in}}, {"args", args}};
}

Json softmax_case(Gen& g) {
  const std::string t = g.chance(0.9) ? g.float_dtype() : g.dtype();
  const Json shape = g.shape(3);
  const int rank = std::max(static_cast<int>(shape.size()), 1);
  return {{"op", g.chance(0.5) ? "softmax" : "log_softmax"},
          {"inputs", {g.input(t, shape, g.chance(0.3))}},
          {"args", {{"dim", g.chance(0.05) ? rank : g.uniform(-rank, rank - 1)}}}};
}

Json cast_case(Gen& g) {
  const std::string from = g.dtype(), to = g.dtype();
  // Float to integer is compared only in range (out of range, torch's result is undefined
  // behaviour of C++; hetero saturates: docs/semantics.md), so no special values there.
  const bool special = !(is_float(from) && !is_float(to) && to != "bool");
  Json in = g.input(from, g.shape(3), special);
  if (is_float(from) && (to == "uint8" || to == "int8"))  // into the 8-bit range
    for (auto& v : in["values"])
      v = to == "uint8" ? std::fmod(std::fabs(v.get<double>()), 200.0)
                        : std::fmod(v.get<double>(), 100.0);
  return {{"op", "to"}, {"inputs", {in}}, {"args", {{"dtype", to}}}};
}

Json matmul_case(Gen& g) {
  const std::string t = g.float_dtype();
  const int m = g.uniform(1, 4), k = g.uniform(1, 5), n = g.uniform(1, 4), b = g.uniform(1, 3);
  Json sa, sb;
  switch (g.uniform(0, 5)) {
    case 0:
      sa = {k};
      sb = {k};
      break;
    case 1:
      sa = {m, k};
      sb = {k, n};
      break;
    case 2:
      sa = {k};
      sb = {k, n};
      break;
    case 3:
      sa = {m, k};
      sb = {k};
      break;
    case 4:
      sa = {b, m, k};
      sb = {k, n};
      break;
    default:
      sa = {g.chance(0.5) ? 1 : b, m, k};
      sb = {b, k, n};
      break;
  }
  if (g.chance(0.05)) sb[sb.size() == 1 ? 0 : sb.size() - 2] = k + 1;  // inner mismatch
  const std::string tb = g.chance(0.05) ? g.float_dtype() : t;
  return {{"op", "matmul"}, {"inputs", {g.input(t, sa, false), g.input(tb, sb, false)}}};
}

Json view_case(Gen& g) {
  const std::string t = g.dtype();
  const Json shape = g.shape(4);
  const int rank = static_cast<int>(shape.size());
  const int r = std::max(rank, 1);
  const std::string op =
      g.pick(std::array<const char*, 10>{"transpose", "t", "narrow", "squeeze", "unsqueeze",
                                         "index", "reshape", "permute", "flatten", "expand"});
  Json args;
  if (op == "transpose")
    args = {{"d0", g.uniform(-r, r - (g.chance(0.05) ? 0 : 1))}, {"d1", g.uniform(-r, r - 1)}};
  if (op == "narrow") {
    const int d = g.uniform(-r, r - 1);
    const int size = rank == 0 ? 1 : shape[static_cast<std::size_t>(d < 0 ? d + r : d)].get<int>();
    const int start = g.uniform(-size, size), len = g.uniform(0, size + (g.chance(0.1) ? 1 : 0));
    args = {{"dim", d}, {"start", start}, {"length", len}};
  }
  if (op == "squeeze") args = {{"dim", g.uniform(-r, r - (g.chance(0.05) ? 0 : 1))}};
  if (op == "unsqueeze") args = {{"dim", g.uniform(-rank - 1, rank)}};
  if (op == "index") args = {{"index", g.uniform(-3, 3)}};
  if (op == "permute") {  // a permutation of the dims, now and then one repeated or missing
    std::vector<int> dims(static_cast<std::size_t>(rank));
    for (int d = 0; d < rank; ++d) dims[static_cast<std::size_t>(d)] = d;
    for (int d = rank - 1; d > 0; --d)
      std::swap(dims[static_cast<std::size_t>(d)], dims[static_cast<std::size_t>(g.uniform(0, d))]);
    Json j = Json::array();
    for (int d : dims) j.push_back(g.chance(0.2) ? d - rank : d);
    if (g.chance(0.05) && rank > 0) j[0] = j.size() > 1 ? j[1] : Json(rank);
    if (g.chance(0.03)) j.push_back(0);
    args = {{"dims", j}};
  }
  if (op == "flatten") {
    const int a = g.uniform(-r, r - 1), b = g.uniform(-r, r - 1);
    args = {{"start", a}, {"end", b}};
  }
  if (op == "expand") {  // new leading dims, -1 keeps, size-1 dims grow; now and then a mismatch
    Json to = Json::array();
    for (int k = g.uniform(0, 2); k > 0; --k) to.push_back(g.uniform(0, 3));
    for (const auto& d : shape) {
      const auto size = d.get<std::int64_t>();
      to.push_back(g.chance(0.3) ? Json(-1) : size == 1 ? Json(g.uniform(0, 3)) : Json(size));
    }
    if (g.chance(0.05) && !to.empty()) to[0] = g.uniform(-1, 4);
    args = {{"shape", to}};
  }
  if (op == "reshape") {
    // The elements in one row, or in two with the first dimension's size, or -1.
    std::int64_t n = 1;
    for (const auto& d : shape) n *= d.get<std::int64_t>();
    Json to = g.chance(0.5) ? Json{n} : Json{-1};
    if (rank >= 1 && shape[0].get<std::int64_t>() > 0 && g.chance(0.5))
      to = {shape[0], n / shape[0].get<std::int64_t>()};
    args = {{"shape", to}};
  }
  return {{"op", op}, {"inputs", {g.input(t, shape, true)}}, {"args", args}};
}

Json factory_case(Gen& g) {
  if (g.chance(0.5)) {
    const std::string t = g.dtype();
    Json v = g.chance(0.5) ? g.value("float64", true)
                           : Json(g.pick(std::array<double, 6>{1e-8, 2.7, -2.7, 1e10, 300, -1}));
    return {{"op", "full"},
            {"inputs", Json::array()},
            {"args", {{"shape", g.shape(2)}, {"value", v}, {"dtype", t}}}};
  }
  // Integral arguments take the integral overload (an int64 result by default, as torch
  // with Python ints); fractional ones the double overload (float32 by default).
  Json args;
  if (g.chance(0.5)) {
    args = {{"integral", true},
            {"start", g.uniform(-5, 5)},
            {"end", g.uniform(-5, 10)},
            {"step", g.pick(std::array<int, 5>{1, 2, -1, 3, 0})}};
  } else {
    args = {{"integral", false},
            {"start", g.uniform(-20, 20) / 4.0},
            {"end", g.uniform(-20, 40) / 4.0},
            {"step", g.pick(std::array<double, 6>{1, 2, -1, 0.5, -0.75, 0})}};
  }
  if (g.chance(0.6)) args["dtype"] = g.dtype();
  return {{"op", "arange"}, {"inputs", Json::array()}, {"args", args}};
}

// An expression tree over leaves 0 and 1 (float leaves that require grad), summed at the
// end: [op, child...] or a leaf index.
Json expression(Gen& g, int depth) {
  if (depth == 0 || g.chance(0.25)) return g.uniform(0, 1);
  switch (g.uniform(0, 4)) {
    case 0:
    case 1:
    default:
      return {g.pick(kGradUnary), expression(g, depth - 1)};
    case 2:
      return {g.pick(kGradBinary), expression(g, depth - 1), expression(g, depth - 1)};
    case 3:
      return {g.pick(std::array<const char*, 8>{"softmax", "log_softmax", "max_dim", "mean_dim",
                                                "var_dim", "std_dim", "logsumexp_dim", "prod_dim"}),
              expression(g, depth - 1)};
  }
}

Json grad_case(Gen& g) {
  const std::string t = g.chance(0.7) ? "float64" : "float32";
  Json shape = g.shape(2);
  if (shape.empty()) shape = {g.uniform(1, 4)};
  for (auto& d : shape) d = std::max(d.get<int>(), 1);
  // Leaves in (-3, 3), no exact zeros or ties: well-conditioned, so that both sides'
  // roundings stay within the stated bound. A third of the cases (issue #44) take leaves
  // from {-1, -0.5, 0, 0.5, 1} instead: ties in maximum/minimum, max_dim and where, clamp at
  // its bounds, relu and abs at 0, prod with zeros, var/std of equal values.
  Json a = g.input(t, shape, false, true, true), b = g.input(t, shape, false, true, true);
  if (g.chance(0.33))
    for (Json* leaf : {&a, &b})
      for (auto& v : (*leaf)["values"]) v = g.pick(std::array<double, 5>{-1, -0.5, 0, 0.5, 1});
  return {{"op", "grad"}, {"inputs", {a, b}}, {"args", {{"expr", expression(g, 3)}}}};
}

// where(cond, x, y) with three broadcasting shapes (a non-bool condition now and then, which
// both sides refuse), or masked_fill(x, mask, value).
Json where_case(Gen& g) {
  auto [sx, sy] = g.broadcast_pair(0.03);
  const std::string tx = g.dtype(), ty = g.chance(0.5) ? tx : g.dtype();
  const std::string tc =
      g.chance(0.05) ? g.pick(std::array<const char*, 2>{"int64", "float32"}) : "bool";
  if (g.chance(0.3)) {
    Json value = g.chance(0.5) ? Json(g.uniform(-3, 3)) : g.value("float64", true);
    Json c = {{"op", "masked_fill"},
              {"inputs", {g.input(tx, sx, true), g.input(tc, g.chance(0.7) ? sx : sy, false)}},
              {"args", {{"value", value}}}};
    if (g.chance(0.25)) c["args"]["inplace"] = true;  // x.masked_fill_(mask, value)
    return c;
  }
  const Json sc = g.chance(0.5) ? sx : g.shape(2);
  return {{"op", "where"},
          {"inputs", {g.input(tc, sc, false), g.input(tx, sx, true), g.input(ty, sy, true)}}};
}

// Logical ops, NaN tests, clamp, isclose, all/any and cat.
Json logic_case(Gen& g) {
  const std::string t = g.dtype();
  const std::string op = g.pick(std::array<const char*, 13>{
      "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite",
      "clamp", "isclose", "all", "any", "cat", "stack"});
  if (op == "logical_and" || op == "logical_or" || op == "logical_xor") {
    auto [sa, sb] = g.broadcast_pair(0.03);
    return {{"op", op}, {"inputs", {g.input(t, sa, true), g.input(g.dtype(), sb, true)}}};
  }
  if (op == "isclose") {
    auto [sa, sb] = g.broadcast_pair(0.03);
    const std::string tb = g.chance(0.9) ? t : g.dtype();
    Json a = g.input(t, sa, true), b = g.input(tb, sb, true);
    Json args = {{"rtol", g.pick(std::array<double, 3>{1e-5, 0.1, 0.0})},
                 {"atol", g.pick(std::array<double, 3>{1e-8, 0.5, 0.0})},
                 {"equal_nan", g.chance(0.5)}};
    return {{"op", op}, {"inputs", {a, b}}, {"args", args}};
  }
  if (op == "clamp") {
    const bool integral = g.chance(0.5);
    // Issue #44's classes: integral bounds beyond (or at the edge of) the small integer
    // dtypes (torch raises, or wraps -255..-1 into uint8), NaN, infinite and float16-
    // overflowing floating bounds; min > max comes half of the time with two bounds.
    auto bound = [&]() -> Json {
      if (g.chance(0.3)) return nullptr;
      if (integral)
        return g.chance(0.15) ? Json(g.pick(std::array<int, 9>{-300, 300, -3, 255, -256, -255, 127,
                                                               -128, 128}))
                              : Json(g.uniform(-4, 4));
      if (g.chance(0.15))
        return g.pick(std::array<Json, 4>{Json("nan"), Json("inf"), Json("-inf"), Json(1e10)});
      return Json(g.uniform(-8, 8) / 2.0 + 0.25);
    };
    return {{"op", op},
            {"inputs", {g.input(t, g.shape(3), true)}},
            {"args", {{"min", bound()}, {"max", bound()}, {"integral", integral}}}};
  }
  if (op == "cat" || op == "stack") {
    const Json shape = g.shape(3);
    const int rank = static_cast<int>(shape.size()) + (op == "stack" ? 1 : 0);
    const int r = std::max(rank, 1);
    const int dim = g.chance(0.05) ? r : g.uniform(-r, r - 1);
    Json inputs = Json::array();
    const int n = g.uniform(1, 3);
    for (int k = 0; k < n; ++k) {
      Json s = shape;
      const int d = dim < 0 ? dim + r : dim;
      if (op == "cat" && d < static_cast<int>(s.size()) && g.chance(0.7)) s[d] = g.uniform(0, 3);
      if (g.chance(0.04) && !s.empty()) s[0] = s[0].get<int>() + 1;  // mismatch now and then
      inputs.push_back(g.input(g.chance(0.8) ? t : g.dtype(), s, true));
    }
    return {{"op", op}, {"inputs", inputs}, {"args", {{"dim", dim}}}};
  }
  return {{"op", op}, {"inputs", {g.input(t, g.shape(3), true)}}};
}

// gather, scatter_add, index_select and embedding: indices mostly in range (now and then one
// out of it, a wrong index dtype or rank, or a dim out of range, which both sides refuse),
// and for float32/float64 inputs the gradient of sum(y * y) now and then.
Json index_case(Gen& g) {
  const std::string op =
      g.pick(std::array<const char*, 4>{"gather", "scatter_add", "index_select", "embedding"});
  const auto index_input = [&](const Json& shape, std::int64_t range) {
    std::int64_t n = 1;
    for (const auto& d : shape) n *= d.get<std::int64_t>();
    Json values = Json::array();
    for (std::int64_t i = 0; i < n; ++i)
      values.push_back(g.chance(0.01)
                           ? (g.chance(0.5) ? -1 : range)
                           : g.uniform(0, static_cast<int>(std::max<std::int64_t>(range, 1)) - 1));
    const std::string t = g.chance(0.05) ? "int32" : "int64";
    return Json{{"dtype", t}, {"base", shape}, {"values", values}, {"views", Json::array()}};
  };
  if (op == "embedding") {
    const int rows = g.uniform(1, 6), width = g.uniform(1, 4);
    Json weight = g.input(g.chance(0.8) ? "float32" : "float64", Json::array({rows, width}), false);
    Json args = {{"backward", g.chance(0.6)}};
    if (g.chance(0.3)) args["padding_idx"] = g.uniform(-rows, rows - 1);
    return {{"op", op}, {"inputs", {index_input(g.shape(2), rows), weight}}, {"args", args}};
  }
  const std::string t =
      g.chance(0.5) ? g.pick(std::array<const char*, 2>{"float32", "float64"}) : g.dtype();
  Json shape = g.shape(3);
  const int rank = std::max(static_cast<int>(shape.size()), 1);
  const int dim = g.chance(0.03) ? rank : g.uniform(-rank, rank - 1);
  const int d = dim < 0 ? dim + rank : std::min(dim, rank - 1);
  const auto size = [&](int k) {
    return shape.empty() ? std::int64_t{1} : shape[static_cast<std::size_t>(k)].get<std::int64_t>();
  };
  Json args = {{"dim", dim},
               {"backward", t.rfind("float", 0) == 0 && t != "float16" && g.chance(0.5)}};
  Json input = g.input(t, shape, true);
  if (op == "index_select") {
    Json ishape = g.chance(0.05) ? Json::array({2, 2}) : Json::array({g.uniform(0, 6)});
    if (g.chance(0.1)) ishape = Json::array();
    // A 0-d input with other than one index: torch 1.13 writes the extra elements beyond its
    // 0-d result, or returns an uninitialised one for none (hetero raises IndexError, as
    // torch 2; docs/semantics.md), so such cases are not generated.
    if (shape.empty()) ishape = g.chance(0.5) ? Json::array() : Json::array({1});
    return {{"op", op}, {"inputs", {input, index_input(ishape, size(d))}}, {"args", args}};
  }
  // gather / scatter_add: index of the input's rank, no larger than the input apart from dim
  // (now and then larger: both refuse it).
  Json ishape = Json::array();
  for (int k = 0; k < static_cast<int>(shape.size()); ++k)
    ishape.push_back(k == d ? g.uniform(0, 5)
                            : g.uniform(0, static_cast<int>(size(k)) + (g.chance(0.03) ? 1 : 0)));
  // scatter_add into an input with no elements along dim: torch 1.13 skips its index check
  // and writes out of bounds (heap corruption; hetero raises IndexError, docs/semantics.md),
  // so the index is empty along dim there.
  if (op == "scatter_add" && size(d) == 0 && !ishape.empty())
    ishape[static_cast<std::size_t>(d)] = 0;
  Json index = index_input(ishape, size(d));
  if (op == "gather") return {{"op", op}, {"inputs", {input, index}}, {"args", args}};
  Json sshape = ishape;
  if (g.chance(0.2) && !sshape.empty()) sshape[0] = sshape[0].get<int>() + 1;  // src larger
  Json src = g.input(g.chance(0.95) ? t : g.dtype(), sshape, true);
  return {{"op", op}, {"inputs", {input, index, src}}, {"args", args}};
}

// Whether a max_pool2d window along one dimension holds padding only (docs/semantics.md row
// 21): torch 1.13's cpu backward then writes at index -1 and corrupts its heap, so such cases
// are generated without the gradient (as tests/torch_conv/make_cases.py's empty_window).
bool empty_window(std::int64_t size, std::int64_t k, std::int64_t stride, std::int64_t pad,
                  std::int64_t dil, bool ceil_mode) {
  const std::int64_t span = size + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  if (span < 0) return false;  // no output: both raise
  std::int64_t out = span / stride + 1;
  if (ceil_mode && (out - 1) * stride >= size + pad) --out;
  for (std::int64_t o = 0; o < out; ++o) {
    bool inside = false;
    for (std::int64_t i = 0; i < k && !inside; ++i) {
      const std::int64_t at = o * stride - pad + i * dil;
      inside = at >= 0 && at < size;
    }
    if (!inside) return true;
  }
  return false;
}

// Convolution and pooling (issue #44's classes): max_pool2d, avg_pool2d,
// adaptive_avg_pool2d and conv2d over random geometry (kernel, stride, padding, dilation,
// ceil_mode, groups), with now and then an infinity or NaN inside the windows, 16-bit
// inputs of values that overflow or cancel when summed in the dtype, small integer values
// (ties in max_pool2d's windows, and its gradient at them), geometry that overflows int64
// or that torch refuses, and for float32/float64 the gradient of sum(y * y).
Json pool_case(Gen& g) {
  const std::string op = g.pick(
      std::array<const char*, 4>{"max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "conv2d"});
  const std::string t = g.chance(0.6)   ? g.pick(std::array<const char*, 2>{"float32", "float64"})
                        : g.chance(0.9) ? g.pick(std::array<const char*, 2>{"float16", "bfloat16"})
                                        : g.dtype();
  const int n = g.uniform(1, 2), c = g.uniform(1, 3), h = g.uniform(1, 7), w = g.uniform(1, 7);
  Json shape = g.chance(0.15) ? Json::array({c, h, w}) : Json::array({n, c, h, w});
  const int mode = g.uniform(0, 9);  // 0-1: ties, 2-3: 16-bit extremes, 4: inf/NaN, else random
  Json args = {{"backward", (t == "float32" || t == "float64") && g.chance(0.5)}};
  auto values_for = [&](const std::string& dt, const Json& s) {
    // (Values near the dtype's largest only without the gradient: sum(y * y)'s gradient then
    // overflows or not by the order of two roundings, as in torch's two cpu kernels.)
    const bool special = mode >= 5 && !args["backward"].get<bool>() && g.chance(0.3);
    Json in = g.input(dt, s, special, mode >= 5);
    for (auto& v : in["values"]) {
      if (mode <= 1 && is_float(dt)) v = g.uniform(-1, 2);  // ties
      // 16-bit sums that overflow the dtype (not float32) or cancel, with small terms between.
      if (mode >= 2 && mode <= 3 && dt == "float16")
        v = g.pick(std::array<double, 6>{6e4, -6e4, 2048, -2048, 1, 0.5});
      if (mode >= 2 && mode <= 3 && dt == "bfloat16")
        // (3e38 for the pools only: a convolution's products overflow float32 as well, in an
        // order-dependent way, docs/semantics.md row 27)
        v = g.pick(
            std::array<double, 6>{1 << 20, -(1 << 20), op == "conv2d" ? 2.0 : 3e38, 1, 0.5, 3});
    }
    if (mode == 4 && !in["values"].empty() && is_float(dt))
      for (int k = g.uniform(1, 2); k > 0; --k)
        in["values"]
          [static_cast<std::size_t>(g.uniform(0, static_cast<int>(in["values"].size()) - 1))] =
              g.pick(std::array<const char*, 3>{"inf", "-inf", "nan"});
    return in;
  };
  const auto k2 = [&](int lo, int hi) {
    return Json::array({g.uniform(lo, hi), g.uniform(lo, hi)});
  };
  // Overflowing or refused geometry now and then: both sides raise (torch's conv2d with a
  // padding near 2^61 crashes, so conv2d gets only the huge dilation).
  const bool huge = g.chance(0.06);
  const std::int64_t big = std::int64_t{1} << 61;
  if (op == "adaptive_avg_pool2d") {
    // A 0 now and then (an empty result; torch 1.13's backward of it raises, so forward only).
    args["output_size"] = k2(g.chance(0.05) ? 0 : 1, 5);
    if (args["output_size"][0] == 0 || args["output_size"][1] == 0) args["backward"] = false;
    return {{"op", op}, {"inputs", {values_for(t, shape)}}, {"args", args}};
  }
  args["kernel"] = k2(1, 3);
  args["stride"] = g.chance(0.3) ? Json() : k2(1, 3);
  // Pools allow padding up to half the kernel (more now and then: both raise).
  const int kmin = std::min(args["kernel"][0].get<int>(), args["kernel"][1].get<int>());
  args["padding"] = k2(0, op == "conv2d" ? 2 : kmin / 2 + (g.chance(0.05) ? 1 : 0));
  args["dilation"] = op == "avg_pool2d" ? Json::array({1, 1}) : k2(1, 2);
  if (huge) {
    if (op == "conv2d" || (op == "max_pool2d" && g.chance(0.5))) {
      args["dilation"] = Json::array({big, 1});
      args["kernel"][0] = 2;  // so that the window's extent, not only a number, is huge
    } else
      args["padding"] = Json::array({0, big});
  }
  if (op == "conv2d") {
    const int groups = c > 1 && g.chance(0.3) ? c : 1;
    const int out = groups * g.uniform(1, 2);
    args["groups"] = groups;
    Json wshape = Json::array({out, c / groups, args["kernel"][0], args["kernel"][1]});
    Json inputs = {values_for(t, shape), values_for(t, wshape)};
    if (g.chance(0.6)) inputs.push_back(values_for(t, Json::array({out})));
    return {{"op", op}, {"inputs", inputs}, {"args", args}};
  }
  args["ceil_mode"] = g.chance(0.3);
  if (op == "avg_pool2d") args["count_include_pad"] = g.chance(0.5);
  if (op == "max_pool2d" && !huge) {
    const std::size_t r = shape.size();
    for (std::size_t d = 0; d < 2; ++d) {
      const auto at = [&](const char* k) { return args[k][d].get<std::int64_t>(); };
      const std::int64_t stride = args["stride"].is_null() ? at("kernel") : at("stride");
      if (empty_window(shape[r - 2 + d].get<std::int64_t>(), at("kernel"), stride, at("padding"),
                       at("dilation"), args["ceil_mode"].get<bool>()))
        args["backward"] = false;
    }
  }
  return {{"op", op}, {"inputs", {values_for(t, shape)}}, {"args", args}};
}

// An activation of any dtype (floating nine times in ten: the others raise on both sides,
// but for softsign, hardtanh and relu6, which take integers) with special values, and its
// parameters from the values models use and the edges (slope 0 and negative, a negative
// beta or alpha, a small threshold, hardtanh's min above max); for float32/float64 the
// gradient of sum(y * y) half of the time.
Json activation_case(Gen& g) {
  const std::string t = g.chance(0.9) ? g.float_dtype() : g.dtype();
  const std::string op = g.pick(kActivations);
  Json args = {{"backward", (t == "float32" || t == "float64") && g.chance(0.5)}};
  if (op == "leaky_relu")
    args["negative_slope"] = g.pick(std::array<double, 5>{0.01, 0.2, 0.0, -0.5, 3.0});
  if (op == "elu" || op == "celu")
    args["alpha"] = g.pick(std::array<double, 4>{1.0, 0.5, 2.0, -1.0});
  if (op == "hardtanh") {  // the defaults, relu6's, a narrow and an inverted range
    const auto bounds = g.pick(std::array<std::pair<double, double>, 4>{
        {{-1.0, 1.0}, {0.0, 6.0}, {-2.5, 0.5}, {0.5, -0.5}}});
    args["min_val"] = bounds.first;
    args["max_val"] = bounds.second;
  }
  if (op == "softplus") {
    args["beta"] = g.pick(std::array<double, 4>{1.0, 2.0, 0.5, -1.0});
    args["threshold"] = g.pick(std::array<double, 3>{20.0, 1.0, 5.0});
  }
  return {{"op", op}, {"inputs", {g.input(t, g.shape(3), true)}}, {"args", args}};
}

// The slicing, joining and rearranging ops of <hetero/manipulation.hpp> and bmm/baddbmm:
// any dtype (bmm floating mostly), arguments now and then out of range (both raise), and
// for float32/float64 the gradient of sum(y * y) half of the time. split, chunk and unbind
// give several tensors: both sides compare each piece flattened to float64, concatenated,
// followed by the pieces' sizes along dim (execute.cpp's shaping()).
Json shape_case(Gen& g) {
  const std::string op = g.pick(kShapeOps);
  const bool matrices = op == "bmm" || op == "baddbmm" || op == "einsum";
  // (bmm of integers: torch's cpu has it, its cuda and hetero's matmul do not: floats only,
  // as matmul_case.)
  const std::string t = matrices          ? g.float_dtype()
                        : op == "one_hot" ? (g.chance(0.9) ? "int64" : g.dtype())
                        : g.chance(0.5)   ? g.pick(std::array<const char*, 2>{"float32", "float64"})
                                          : g.dtype();
  Json args = {
      {"backward", (t == "float32" || t == "float64") && op != "one_hot" && g.chance(0.5)}};
  if (op == "einsum") {
    const std::string eq = g.pick(kEinsum);
    std::map<char, int> size;
    for (char c : eq)
      if (std::isalpha(static_cast<unsigned char>(c)) && !size.count(c))
        size[c] = g.chance(0.04) ? 0 : g.uniform(1, 4);
    std::vector<int> ellipsis(static_cast<std::size_t>(g.uniform(0, 2)));
    for (int& n : ellipsis) n = g.uniform(1, 3);
    const std::string lhs = eq.substr(0, eq.find("->"));
    Json inputs = Json::array();
    std::size_t start = 0;
    for (bool last = false; !last;) {
      const std::size_t comma = lhs.find(',', start);
      last = comma == std::string::npos;
      const std::string sub = lhs.substr(start, last ? std::string::npos : comma - start);
      Json shape = Json::array();
      for (std::size_t i = 0; i < sub.size(); ++i) {
        if (sub[i] != '.') {
          shape.push_back(size[sub[i]]);
          continue;
        }
        // The ellipsis: its dimensions, a leading one sometimes left out or 1 (broadcast).
        const std::size_t skip = !ellipsis.empty() && g.chance(0.2) ? 1 : 0;
        for (std::size_t d = skip; d < ellipsis.size(); ++d)
          shape.push_back(g.chance(0.15) ? 1 : ellipsis[d]);
        i += 2;
      }
      if (g.chance(0.03) && !shape.empty()) shape[0] = shape[0].get<int>() + 1;  // both raise
      inputs.push_back(g.input(t, shape, false));
      start = comma + 1;
    }
    args["equation"] = eq;
    return {{"op", op}, {"inputs", inputs}, {"args", args}};
  }
  if (matrices) {
    const int b = g.uniform(1, 3), n = g.uniform(1, 4), k = g.uniform(0, 4), m = g.uniform(1, 4);
    Json b1 = Json::array({b, n, k}), b2 = Json::array({b, k, m});
    if (g.chance(0.05)) b2[1] = k + 1;             // inner sizes differ: both raise
    if (g.chance(0.05)) b1 = Json::array({n, k});  // not 3-D: both raise
    Json inputs = Json::array();
    if (op == "baddbmm") {
      Json in = Json::array({b, n, m});
      if (g.chance(0.3)) in = Json::array({n, m});
      if (g.chance(0.2)) in = Json::array({1, m});
      inputs.push_back(g.input(t, in, true));
      args["beta"] = g.pick(std::array<double, 3>{1.0, 0.0, 0.5});
      args["alpha"] = g.pick(std::array<double, 3>{1.0, 2.0, -0.5});
    }
    inputs.push_back(g.input(t, b1, false));
    inputs.push_back(g.input(t, b2, false));
    return {{"op", op}, {"inputs", inputs}, {"args", args}};
  }
  Json shape = g.shape(op == "tril" || op == "triu" ? 4 : 3);
  if ((op == "tril" || op == "triu") && shape.size() < 2 && g.chance(0.8))
    shape = Json::array({g.uniform(1, 5), g.uniform(1, 5)});
  const int rank = static_cast<int>(shape.size());
  const auto dim = [&] {
    const int r = std::max(rank, 1);
    return g.chance(0.03) ? r : g.uniform(-r, r - 1);
  };
  const auto size_at = [&](int d) -> int {
    if (rank == 0) return 1;
    const int w = d < 0 ? d + rank : d;
    return w >= 0 && w < rank ? shape[static_cast<std::size_t>(w)].get<int>() : 1;
  };
  if (op == "one_hot") {
    Json in = g.input(t, shape, false);
    if (t == "int64")
      for (auto& v : in["values"]) v = g.chance(0.02) ? -1 : g.uniform(0, 4);
    args["num_classes"] = g.pick(std::array<int, 4>{-1, -1, 5, 3});
    return {{"op", op}, {"inputs", {in}}, {"args", args}};
  }
  if (op == "tril" || op == "triu") args["diagonal"] = g.uniform(-3, 3);
  if (op == "flip") {
    Json dims = Json::array();
    for (int k = g.uniform(0, std::max(rank, 1)); k > 0; --k) dims.push_back(dim());
    args["dims"] = dims;  // a dimension twice now and then: both raise
  }
  if (op == "repeat") {
    Json repeats = Json::array();
    const int n = rank + (g.chance(0.05) ? -1 : g.uniform(0, 2));
    for (int k = 0; k < n; ++k) repeats.push_back(g.chance(0.03) ? -1 : g.uniform(0, 3));
    args["repeats"] = repeats;
  }
  if (op == "split" || op == "split_sizes" || op == "chunk" || op == "unbind" || op == "cumsum")
    args["dim"] = dim();
  if (op == "sort" || op == "argsort" || op == "topk") {
    args["dim"] = dim();
    args["descending"] = g.chance(0.5);  // topk: largest
    // topk's tie order is unspecified in torch, and so is the gradient among ties: values only.
    if (op != "sort") args["backward"] = false;
    if (op == "topk") {
      const int size = size_at(args["dim"].get<int>());
      args["k"] = g.chance(0.04) ? (g.chance(0.5) ? -1 : size + 1) : g.uniform(0, size);
    }
  }
  if (op == "split") args["split_size"] = g.uniform(g.chance(0.05) ? -1 : 0, 4);
  if (op == "chunk") args["chunks"] = g.uniform(g.chance(0.05) ? 0 : 1, 5);
  if (op == "split_sizes") {
    int left = size_at(args["dim"].get<int>());
    Json sizes = Json::array();
    while (left > 0) {
      const int s = g.uniform(0, left);
      sizes.push_back(s);
      left -= s;
    }
    if (sizes.empty() || g.chance(0.3)) sizes.push_back(0);
    if (g.chance(0.05)) sizes.push_back(1);  // one too many: both raise
    args["sizes"] = sizes;
  }
  // cumsum's dtype argument: floating for floating inputs (a float to integer conversion out
  // of range is undefined in torch, docs/semantics.md row 1, as cast_case), int64 otherwise.
  if (op == "cumsum" && g.chance(0.2))
    args["dtype"] =
        is_float(t) ? g.pick(std::array<const char*, 2>{"float64", "float32"}) : "int64";
  return {{"op", op}, {"inputs", {g.input(t, shape, true)}}, {"args", args}};
}

}  // namespace

Json generate_case(std::uint64_t seed, std::int64_t id) {
  Gen g(seed, id);
  // The generators in kCategories' order.
  using Generator = Json (*)(Gen&);
  static constexpr Generator kGenerators[] = {
      unary_case,  binary_case, scalar_case,     reduce_case, softmax_case, cast_case,
      matmul_case, view_case,   factory_case,    grad_case,   where_case,   logic_case,
      index_case,  pool_case,   activation_case, shape_case};
  static_assert(std::size(kGenerators) == std::size(kCategories));
  const auto k = static_cast<std::size_t>(id) % std::size(kCategories);
  const std::string cat = kCategories[k];
  Json c = kGenerators[k](g);
  c["id"] = id;
  c["cat"] = cat;
  if (!c.contains("args")) c["args"] = Json::object();
  return c;
}

}  // namespace hetero::torch_diff
