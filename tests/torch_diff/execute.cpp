// SPDX-License-Identifier: Apache-2.0
// Runs one case (cases.hpp) through hetero: builds its inputs on the device, applies the op,
// and records the result's dtype, shape and values (read back in float64 or int64), or the
// error raised.
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <typeinfo>

#include <hetero/hetero.hpp>
#include <hetero/sdk/op_table.hpp>

#include "cases.hpp"

namespace hetero::torch_diff {
namespace {

DType parse_dtype(const std::string& s) {
  for (int k = 0; k < kDTypeCount; ++k)
    if (dtype_name(static_cast<DType>(k)) == s) return static_cast<DType>(k);
  throw std::runtime_error("torch_diff: unknown dtype " + s);
}

Shape to_shape(const Json& j) {
  Shape s;
  for (const auto& d : j) s.push_back(d.get<std::int64_t>());
  return s;
}

double to_double(const Json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    return s == "inf" ? INFINITY : -INFINITY;
  }
  return v.get<double>();
}

Json from_double(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

Tensor apply_view(const Tensor& t, const Json& v) {
  const std::string op = v[0].get<std::string>();
  if (op == "transpose") return t.transpose(v[1].get<std::int64_t>(), v[2].get<std::int64_t>());
  return t.narrow(v[1].get<std::int64_t>(), v[2].get<std::int64_t>(), v[3].get<std::int64_t>());
}

Json values_of(const Tensor& t);

// The operand: base values uploaded in float64 or int64, converted once to the dtype, then
// the views. `in`'s values become the converted ones (what torch must start from: its own
// double -> float16 conversion rounds twice).
Tensor make_input(Json& in, const Device& device) {
  const DType t = parse_dtype(in["dtype"].get<std::string>());
  const Shape base = to_shape(in["base"]);
  Tensor x;
  if (is_floating_point(t)) {
    std::vector<double> v;
    for (const auto& e : in["values"]) v.push_back(to_double(e));
    x = from_vector(v, base, TensorOptions(device)).to(t);
  } else {
    std::vector<std::int64_t> v;
    for (const auto& e : in["values"]) v.push_back(e.get<std::int64_t>());
    x = from_vector(v, base, TensorOptions(device)).to(t);
  }
  in["values"] = values_of(x);
  for (const auto& view : in["views"]) x = apply_view(x, view);
  return x;
}

// The values of `t` in C order, exactly: floats through float64, the rest through int64.
Json values_of(const Tensor& t) {
  Json out = Json::array();
  if (is_floating_point(t.dtype())) {
    for (double x : t.to(Device::cpu()).to(DType::float64).to_vector<double>())
      out.push_back(from_double(x));
  } else {
    for (std::int64_t x : t.to(Device::cpu()).to(DType::int64).to_vector<std::int64_t>())
      out.push_back(x);
  }
  return out;
}

Json record(const Tensor& r) {
  Json shape = Json::array();
  for (auto d : r.shape()) shape.push_back(d);
  return {
      {"dtype", std::string(dtype_name(r.dtype()))}, {"shape", shape}, {"values", values_of(r)}};
}

// Every row of the unary and binary tables through its public function (generated: a new
// row is run here with no edit).
Tensor unary(const std::string& op, const Tensor& x) {
#define HETERO_DIFF_UNARY(name, ...) \
  if (op == #name) return hetero::name(x);
  HETERO_FORALL_UNARY_OPS(HETERO_DIFF_UNARY)
#undef HETERO_DIFF_UNARY
  throw std::runtime_error("torch_diff: unknown unary op " + op);
}

// x.add_(y), sub_, mul_, div_, pow_ (Note [In-place ops]): `x` itself, written; `y` a tensor
// or a Number.
template <class Y>
Tensor in_place(const std::string& op, Tensor x, const Y& y) {
  if (op == "add") return x.add_(y);
  if (op == "sub") return x.sub_(y);
  if (op == "mul") return x.mul_(y);
  if (op == "pow") return x.pow_(y);
  return x.div_(y);
}

// x.neg_(), abs_, exp_, log_, sqrt_, sigmoid_, tanh_, relu_: `x` itself, written.
Tensor in_place_unary(const std::string& op, Tensor x) {
  if (op == "neg") return x.neg_();
  if (op == "abs") return x.abs_();
  if (op == "exp") return x.exp_();
  if (op == "log") return x.log_();
  if (op == "sqrt") return x.sqrt_();
  if (op == "sigmoid") return x.sigmoid_();
  if (op == "tanh") return x.tanh_();
  if (op == "relu") return x.relu_();
  throw std::runtime_error("torch_diff: no in-place form of " + op);
}

Tensor binary(const std::string& op, const Tensor& a, const Tensor& b) {
#define HETERO_DIFF_BINARY(name, ...) \
  if (op == #name) return hetero::name(a, b);
  HETERO_FORALL_BINARY_OPS(HETERO_DIFF_BINARY)
#undef HETERO_DIFF_BINARY
  // The grad category's differentiable compositions (generate.cpp's expression()).
  if (op.ends_with('_')) return in_place(op.substr(0, op.size() - 1), a.clone(), b);
  if (op == "pow_abs") return pow(abs(a) + 0.5, b);
  if (op == "where_gt") return where(a > b, a, b * 2.0);
  if (op == "clamp_both")
    return clamp(a, std::optional<Tensor>(b - 0.5), std::optional<Tensor>(b + 0.5));
  throw std::runtime_error("torch_diff: unknown binary op " + op);
}

template <class S>
Tensor scalar_op(const std::string& op, const Tensor& x, S s, bool left) {
  if (op == "add") return left ? s + x : x + s;
  if (op == "sub") return left ? s - x : x - s;
  if (op == "mul") return left ? s * x : x * s;
  if (op == "eq") return left ? s == x : x == s;
  if (op == "ne") return left ? s != x : x != s;
  if (op == "lt") return left ? s < x : x < s;
  if (op == "le") return left ? s <= x : x <= s;
  if (op == "gt") return left ? s > x : x > s;
  if (op == "ge") return left ? s >= x : x >= s;
  if (op == "pow") return left ? pow(s, x) : pow(x, s);
  return left ? s / x : x / s;
}

Tensor reduce(const std::string& op, const Tensor& x, const Json& args) {
  const bool all = args["all"].get<bool>();
  const auto dim = args["dim"].get<std::int64_t>();
  const bool keep = args["keepdim"].get<bool>();
  if (args.contains("dims")) {  // a list of dims
    const auto dims = args["dims"].get<std::vector<std::int64_t>>();
    if (op == "sum") return sum(x, dims, keep);
    if (op == "mean") return mean(x, dims, keep);
    if (op == "amax") return amax(x, dims, keep);
    if (op == "amin") return amin(x, dims, keep);
    const auto c = args["correction"].get<std::int64_t>();
    return op == "var" ? var(x, dims, c, keep) : hetero::std(x, dims, c, keep);
  }
  if (op == "sum") return all ? sum(x) : sum(x, dim, keep);
  if (op == "mean") return all ? mean(x) : mean(x, dim, keep);
  if (op == "max") return all ? max(x) : max(x, dim, keep);
  if (op == "min") return all ? min(x) : min(x, dim, keep);
  if (op == "norm") return norm(x);
  if (op == "argmin") return all ? argmin(x) : argmin(x, dim, keep);
  if (op == "var" || op == "std") {
    const auto c = args["correction"].get<std::int64_t>();
    if (op == "var") return all ? var(x, c) : var(x, dim, c, keep);
    return all ? hetero::std(x, c) : hetero::std(x, dim, c, keep);
  }
  if (op == "logsumexp") return logsumexp(x, dim, keep);
  if (op == "prod") return all ? prod(x) : prod(x, dim, keep);
  return all ? argmax(x) : argmax(x, dim, keep);
}

Tensor view(const std::string& op, const Tensor& x, const Json& a) {
  if (op == "transpose")
    return x.transpose(a["d0"].get<std::int64_t>(), a["d1"].get<std::int64_t>());
  if (op == "t") return x.t();
  if (op == "narrow")
    return x.narrow(a["dim"].get<std::int64_t>(), a["start"].get<std::int64_t>(),
                    a["length"].get<std::int64_t>());
  if (op == "squeeze") return x.squeeze(a["dim"].get<std::int64_t>());
  if (op == "unsqueeze") return x.unsqueeze(a["dim"].get<std::int64_t>());
  if (op == "index") return x[a["index"].get<std::int64_t>()];
  if (op == "permute") return x.permute(a["dims"].get<std::vector<std::int64_t>>());
  if (op == "flatten")
    return x.flatten(a["start"].get<std::int64_t>(), a["end"].get<std::int64_t>());
  if (op == "expand") return x.expand(to_shape(a["shape"]));
  return x.reshape(to_shape(a["shape"]));
}

std::optional<Number> bound(const Json& b, bool integral) {
  if (b.is_null()) return std::nullopt;
  if (integral) return Number(b.get<std::int64_t>());
  if (b.is_string()) {  // "nan", "inf", "-inf"
    const std::string v = b.get<std::string>();
    return Number(v == "nan"   ? std::numeric_limits<double>::quiet_NaN()
                  : v == "inf" ? std::numeric_limits<double>::infinity()
                               : -std::numeric_limits<double>::infinity());
  }
  return Number(b.get<double>());
}

Tensor logic(const std::string& op, const std::vector<Tensor>& in, const Json& a) {
  if (op == "logical_and") return logical_and(in[0], in[1]);
  if (op == "logical_or") return logical_or(in[0], in[1]);
  if (op == "logical_xor") return logical_xor(in[0], in[1]);
  if (op == "logical_not") return logical_not(in[0]);
  if (op == "isnan") return isnan(in[0]);
  if (op == "isinf") return isinf(in[0]);
  if (op == "isfinite") return isfinite(in[0]);
  if (op == "all") return all(in[0]);
  if (op == "any") return any(in[0]);
  if (op == "cat") return cat(in, a["dim"].get<std::int64_t>());
  if (op == "stack") return stack(in, a["dim"].get<std::int64_t>());
  if (op == "isclose")
    return isclose(in[0], in[1], a["rtol"].get<double>(), a["atol"].get<double>(),
                   a["equal_nan"].get<bool>());
  const bool integral = a["integral"].get<bool>();
  return clamp(in[0], bound(a["min"], integral), bound(a["max"], integral));
}

Tensor factory(const std::string& op, const Json& a, const Device& device) {
  TensorOptions o(device);
  if (a.contains("dtype")) o = o.dtype(parse_dtype(a["dtype"].get<std::string>()));
  if (op == "full") return full(to_shape(a["shape"]), to_double(a["value"]), o);
  if (a["integral"].get<bool>())
    return arange(a["start"].get<std::int64_t>(), a["end"].get<std::int64_t>(),
                  a["step"].get<std::int64_t>(), o);
  return arange(a["start"].get<double>(), a["end"].get<double>(), a["step"].get<double>(), o);
}

// The index category (generate.cpp's index_case): in = input, index[, src] (embedding:
// indices, weight).
Tensor indexing(const std::string& op, const std::vector<Tensor>& in, const Json& a) {
  if (op == "embedding") {
    std::optional<std::int64_t> pad;
    if (a.contains("padding_idx")) pad = a["padding_idx"].get<std::int64_t>();
    return embedding(in[0], in[1], pad);
  }
  const std::int64_t dim = a["dim"].get<std::int64_t>();
  if (op == "gather") return gather(in[0], dim, in[1]);
  if (op == "index_select") return index_select(in[0], dim, in[1]);
  return scatter_add(in[0], dim, in[1], in[2]);
}

Size2 size2(const Json& j) { return {j[0].get<std::int64_t>(), j[1].get<std::int64_t>()}; }

// The pool category (generate.cpp's pool_case): in = input[, weight[, bias]].
Tensor pooling(const std::string& op, const std::vector<Tensor>& in, const Json& a) {
  if (op == "adaptive_avg_pool2d") return adaptive_avg_pool2d(in[0], size2(a["output_size"]));
  const Size2 kernel = size2(a["kernel"]), padding = size2(a["padding"]);
  if (op == "conv2d")
    return conv2d(in[0], in[1], in.size() > 2 ? in[2] : Tensor(),
                  a["stride"].is_null() ? Size2(1) : size2(a["stride"]), padding,
                  size2(a["dilation"]), a["groups"].get<std::int64_t>());
  std::optional<Size2> stride;
  if (!a["stride"].is_null()) stride = size2(a["stride"]);
  if (op == "max_pool2d")
    return max_pool2d(in[0], kernel, stride, padding, size2(a["dilation"]),
                      a["ceil_mode"].get<bool>());
  return avg_pool2d(in[0], kernel, stride, padding, a["ceil_mode"].get<bool>(),
                    a["count_include_pad"].get<bool>());
}

// The activations (generate.cpp's activation_case(); the grad category's with the defaults).
bool is_activation(const std::string& op) {
  static const std::set<std::string> names = {
      "gelu", "gelu_tanh",  "silu",     "leaky_relu", "elu",   "softplus",    "selu",     "celu",
      "mish", "logsigmoid", "softsign", "hardtanh",   "relu6", "hardsigmoid", "hardswish"};
  return names.count(op) != 0;
}
Tensor activation(const std::string& op, const Tensor& x, const Json& a) {
  if (op == "gelu") return gelu(x);
  if (op == "gelu_tanh") return gelu(x, "tanh");
  if (op == "silu") return silu(x);
  if (op == "leaky_relu") return leaky_relu(x, a.value("negative_slope", 0.01));
  if (op == "elu") return elu(x, a.value("alpha", 1.0));
  if (op == "softplus") return softplus(x, a.value("beta", 1.0), a.value("threshold", 20.0));
  if (op == "selu") return selu(x);
  if (op == "celu") return celu(x, a.value("alpha", 1.0));
  if (op == "mish") return mish(x);
  if (op == "logsigmoid") return logsigmoid(x);
  if (op == "softsign") return softsign(x);
  if (op == "hardtanh") return hardtanh(x, a.value("min_val", -1.0), a.value("max_val", 1.0));
  if (op == "relu6") return relu6(x);
  if (op == "hardsigmoid") return hardsigmoid(x);
  if (op == "hardswish") return hardswish(x);
  throw std::runtime_error("torch_diff: unknown activation " + op);
}

// The shape category (generate.cpp's shape_case()). The ops that give several tensors
// (split, split_sizes, chunk, unbind) give their pieces flattened to float64 and
// concatenated, then each piece's size along dim.
Tensor shaping(const std::string& op, const std::vector<Tensor>& in, const Json& a) {
  const auto dims = [&](const char* key) { return a[key].get<std::vector<std::int64_t>>(); };
  if (op == "tril") return tril(in[0], a["diagonal"].get<std::int64_t>());
  if (op == "triu") return triu(in[0], a["diagonal"].get<std::int64_t>());
  if (op == "flip") return flip(in[0], dims("dims"));
  if (op == "repeat") return repeat(in[0], dims("repeats"));
  if (op == "one_hot") return one_hot(in[0], a["num_classes"].get<std::int64_t>());
  if (op == "bmm") return bmm(in[0], in[1]);
  if (op == "einsum") return einsum(a["equation"].get<std::string>(), in);
  if (op == "baddbmm")
    return baddbmm(in[0], in[1], in[2], a["beta"].get<double>(), a["alpha"].get<double>());
  const std::int64_t dim = a["dim"].get<std::int64_t>();
  if (op == "sort") {  // the values and the indices, flattened to float64 and concatenated
    const auto [values, indices] = sort(in[0], dim, a["descending"].get<bool>(), true);
    return cat({values.reshape({-1}).to(DType::float64), indices.reshape({-1}).to(DType::float64)});
  }
  if (op == "argsort") return argsort(in[0], dim, a["descending"].get<bool>(), true);
  if (op == "topk")
    return std::get<0>(topk(in[0], a["k"].get<std::int64_t>(), dim, a["descending"].get<bool>()));
  if (op == "cumsum") {
    std::optional<DType> dtype;
    if (a.contains("dtype")) dtype = parse_dtype(a["dtype"].get<std::string>());
    return cumsum(in[0], dim, dtype);
  }
  const std::vector<Tensor> pieces =
      op == "split"         ? split(in[0], a["split_size"].get<std::int64_t>(), dim)
      : op == "split_sizes" ? split(in[0], dims("sizes"), dim)
      : op == "chunk"       ? chunk(in[0], a["chunks"].get<std::int64_t>(), dim)
                            : unbind(in[0], dim);
  std::vector<Tensor> parts;
  std::vector<double> sizes;
  const std::int64_t d = dim < 0 ? dim + in[0].dim() : dim;
  for (const Tensor& p : pieces) {
    parts.push_back(p.reshape({-1}).to(DType::float64));
    sizes.push_back(op == "unbind" ? 1.0
                                   : static_cast<double>(p.shape()[static_cast<std::size_t>(d)]));
  }
  parts.push_back(from_vector(sizes, TensorOptions(in[0].device())));
  return cat(parts);
}

// The grad category's expression (generate.cpp's expression()).
Tensor evaluate(const Json& e, const Tensor& x0, const Tensor& x1) {
  if (e.is_number()) return e.get<int>() == 0 ? x0 : x1;
  const std::string op = e[0].get<std::string>();
  if (e.size() == 3) return binary(op, evaluate(e[1], x0, x1), evaluate(e[2], x0, x1));
  const Tensor a = evaluate(e[1], x0, x1);
  const std::int64_t last = a.dim() == 0 ? 0 : a.dim() - 1;
  if (op == "softmax") return softmax(a, last);
  if (op == "log_softmax") return log_softmax(a, last);
  if (op == "max_dim") return max(a, last, true);
  if (op == "mean_dim") return mean(a, last, true);
  // Population variance (correction 0): a last dimension of size 1 gives 0, not NaN.
  if (op == "var_dim") return var(a, last, 0, true);
  if (op == "std_dim") return hetero::std(a, last, 0, true);
  if (op == "logsumexp_dim") return logsumexp(a, last, true);
  if (op == "prod_dim") return prod(a, last, true);
  if (is_activation(op)) return activation(op, a, Json::object());
  // A row defined on part of the line (generate.cpp's grad_unary()), on |a| + 0.5.
  if (op.size() > 4 && op.ends_with("_abs"))
    return unary(op.substr(0, op.size() - 4), abs(a) + 0.5);
  if (op.ends_with('_')) return in_place_unary(op.substr(0, op.size() - 1), a.clone());
  return unary(op, a);
}

Json run(Json& spec, const Device& device) {
  const std::string cat = spec["cat"].get<std::string>();
  const std::string op = spec["op"].get<std::string>();
  const Json& args = spec["args"];
  std::vector<Tensor> in;
  for (auto& i : spec["inputs"]) in.push_back(make_input(i, device));
  if (cat == "grad") {
    for (auto& x : in) x = x.contiguous().requires_grad_();
    const Tensor y = evaluate(args["expr"], in[0], in[1]).sum();
    y.backward();
    Json r = record(y.detach());
    Json grads = Json::array();
    for (const auto& x : in) grads.push_back(x.grad().defined() ? values_of(x.grad()) : Json());
    r["grads"] = grads;
    return r;
  }
  const auto layered = [&](const std::vector<Tensor>& x) {
    return cat == "pool"         ? pooling(op, x, args)
           : cat == "activation" ? activation(op, x[0], args)
           : cat == "shape"      ? shaping(op, x, args)
                                 : indexing(op, x, args);
  };
  if ((cat == "index" || cat == "pool" || cat == "activation" || cat == "shape") &&
      args["backward"].get<bool>()) {
    // The gradient of sum(y * y) for every floating input (the index stays without one).
    for (auto& x : in)
      if (is_floating_point(x.dtype())) x = x.contiguous().requires_grad_();
    const Tensor y = layered(in);
    (y * y).sum().backward();
    Json r = record(y.detach());
    Json grads = Json::array();
    for (const auto& x : in) grads.push_back(x.grad().defined() ? values_of(x.grad()) : Json());
    r["grads"] = grads;
    return r;
  }
  Tensor r;
  if (cat == "activation")
    r = activation(op, in[0], args);
  else if (cat == "shape")
    r = shaping(op, in, args);
  else if (cat == "index")
    r = indexing(op, in, args);
  else if (cat == "pool")
    r = pooling(op, in, args);
  else if (cat == "unary")
    r = args.value("inplace", false) ? in_place_unary(op, in[0]) : unary(op, in[0]);
  else if (cat == "binary")
    r = args.value("inplace", false) ? in_place(op, in[0], in[1]) : binary(op, in[0], in[1]);
  else if (cat == "scalar") {
    const bool left = args["left"].get<bool>();
    const bool integral = args["integral"].get<bool>();
    if (args.value("inplace", false))
      r = integral ? in_place(op, in[0], Number(args["scalar"].get<std::int64_t>()))
                   : in_place(op, in[0], Number(to_double(args["scalar"])));
    else
      r = integral ? scalar_op(op, in[0], args["scalar"].get<std::int64_t>(), left)
                   : scalar_op(op, in[0], to_double(args["scalar"]), left);
  } else if (cat == "reduce")
    r = reduce(op, in[0], args);
  else if (cat == "softmax")
    r = op == "softmax" ? softmax(in[0], args["dim"].get<std::int64_t>())
                        : log_softmax(in[0], args["dim"].get<std::int64_t>());
  else if (cat == "cast")
    r = in[0].to(parse_dtype(args["dtype"].get<std::string>()));
  else if (cat == "matmul")
    r = matmul(in[0], in[1]);
  else if (cat == "view")
    r = view(op, in[0], args);
  else if (cat == "where")
    r = op == "where"                  ? where(in[0], in[1], in[2])
        : args.value("inplace", false) ? in[0].masked_fill_(in[1], to_double(args["value"]))
                                       : masked_fill(in[0], in[1], to_double(args["value"]));
  else if (cat == "logic")
    r = logic(op, in, args);
  else
    r = factory(op, args, device);
  return record(r);
}

// The class name of a hetero error, as the oracle prints it.
std::string error_name(const Error& e) {
  if (dynamic_cast<const ShapeError*>(&e)) return "ShapeError";
  if (dynamic_cast<const DTypeError*>(&e)) return "DTypeError";
  if (dynamic_cast<const IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const NotImplementedError*>(&e)) return "NotImplementedError";
  if (dynamic_cast<const DeviceMismatchError*>(&e)) return "DeviceMismatchError";
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  return "Error";
}

}  // namespace

Json execute_case(const Json& spec, const Device& device) {
  Json out = spec;
  try {
    out["result"] = run(out, device);
  } catch (const Error& e) {
    out["error"] = {{"type", error_name(e)}, {"message", e.what()}};
  } catch (const std::exception& e) {
    out["error"] = {{"type", "untyped"},
                    {"message", std::string(typeid(e).name()) + ": " + e.what()}};
  }
  return out;
}

}  // namespace hetero::torch_diff
