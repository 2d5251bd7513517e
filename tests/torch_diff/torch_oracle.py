#!/usr/bin/env python3
"""The PyTorch side of hetero's differential test (issue #24; cases.hpp says what a case is).

usage: torch_oracle.py CASES.jsonl [--max-report N]

Recomputes every case of the file that the C++ generator (torch_diff) wrote, with torch on
the CPU, and compares: the result's dtype and shape always; integer and bool values exactly;
floating values within the bounds below; and errors (hetero raises exactly where torch
raises). Cases for which torch has no kernel (e.g. "not implemented for 'Half'") are compared
against torch's float64 computation rounded to the dtype instead. Exits 1 when any case differs, printing each (up to
--max-report) as a C++ and a torch reproducer.

Floating bounds, in units of the result dtype:
  element-wise ops, casts, views, factories: 2 ulps;
  activations (composed of several kernels): 2 ulps + max(4, 2 * |x f'(x) / f(x)|) ulps;
  reductions, softmax, matmul: 4 ulps + 2 * n * eps * (sum of |terms|), n the reduced count;
  gradients of the expression cases: 1e-9 (float64) / 1e-4 (float32) relative to the
  largest |gradient| of the leaf, plus 1e-12 / 1e-5 times (1 + that largest |gradient|).
Where torch's result in the dtype is off (overflow in a 16-bit reduction, ill-conditioned
expressions), hetero passes when it is within the bound of torch's float64 computation rounded
to the dtype, or no farther from that than 4 times torch's own result is.
Signed zeros compare equal; NaN equals NaN.
"""
import argparse
import copy
import json
import math
import sys
import time
from collections import Counter, defaultdict

import torch

DTYPES = {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "int32": torch.int32, "int64": torch.int64, "bool": torch.bool,
    "uint8": torch.uint8, "int8": torch.int8,
}
NAMES = {v: k for k, v in DTYPES.items()}
# Significand bits (without the implicit one) and smallest normal exponent.
FLOAT_BITS = {"float16": (10, -14), "bfloat16": (7, -126), "float32": (23, -126), "float64": (52, -1022)}
CPP_DTYPE = {"float32": "float32", "float64": "float64", "float16": "float16", "bfloat16": "bfloat16",
             "int32": "int32", "int64": "int64", "bool": "bool_", "uint8": "uint8", "int8": "int8"}


def is_float(name):
    return name in FLOAT_BITS


def as_number(v):
    return float(v) if isinstance(v, str) else v


def make_input(spec, as_float64=False, through=None):
    """spec's tensor; as_float64: a floating one in float64; through: every one converted to
    that dtype first (a binary op's common dtype, as torch's TensorIterator casts)."""
    dt = spec["dtype"]
    values = [as_number(v) for v in spec["values"]]
    if is_float(dt):
        x = torch.tensor(values, dtype=torch.float64).to(DTYPES[dt])
    else:
        x = torch.tensor(values, dtype=torch.int64).to(DTYPES[dt])
    x = x.reshape(spec["base"])
    if through is not None:
        x = x.to(through)
    if as_float64 and (is_float(dt) or through is not None):
        x = x.to(torch.float64)
    for view in spec["views"]:
        if view[0] == "transpose":
            x = x.transpose(view[1], view[2])
        else:
            x = x.narrow(view[1], view[2], view[3])
    return x


def integer_division_op(fn):
    """torch.fmod / torch.remainder, with an integer divisor of -1 given as 1: x % -1 and x % 1
    are both 0, but torch's cpu kernel computes MIN % -1 in the dtype, which traps (SIGFPE)
    on x86 for int32 and int64 and would end the oracle (hetero gives 0)."""
    def integral(v):
        return isinstance(v, int) or (isinstance(v, torch.Tensor) and not v.is_floating_point())

    def op(a, b):
        if not (integral(a) and integral(b)):
            return fn(a, b)  # computed in floating point: x % -1 keeps its sign rule, no trap
        if torch.result_type(a, b) == torch.uint8:
            return fn(a, b)  # -1 is 255 there (seed 1129104 case 2465): no trap, another result
        if isinstance(b, torch.Tensor) and b.dtype in (torch.int8, torch.int32, torch.int64):
            b = torch.where(b == -1, torch.ones_like(b), b)
        elif isinstance(b, int) and b == -1:
            b = 1
        return fn(a, b)
    return op


class ZeroTieToSecond(torch.autograd.Function):
    """torch.maximum/minimum's value r with a zero tie (+0.0 against -0.0) resolved to the
    second operand b, the gradient r's (maximum_zero_tie)."""

    @staticmethod
    def forward(ctx, r, a, b):
        tie = (a == b) & (r == 0)
        return torch.where(tie, b.to(r.dtype).expand_as(r), r)

    @staticmethod
    def backward(ctx, g):
        return g, None, None


ZERO_TIE_TO_SECOND = False  # set by maximum_zero_tie only


def extremum(fn):
    def f(a, b):
        r = fn(a, b)
        if not ZERO_TIE_TO_SECOND or not r.is_floating_point():
            return r
        ta, tb = (torch.as_tensor(v, dtype=r.dtype) for v in (a, b))
        return ZeroTieToSecond.apply(r, ta.detach(), tb.detach())
    return f


BINARY = {
    "fmod": integer_division_op(torch.fmod), "remainder": integer_division_op(torch.remainder),
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "maximum": extremum(torch.maximum), "minimum": extremum(torch.minimum),
    # Operators, so that a Python number works on either side (2 < x, 2 ** x).
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "pow": lambda a, b: torch.pow(a, b),  # as libtorch's torch::pow (`300 ** x` refuses what it wraps)
    # The grad category's differentiable compositions (generate.cpp's expression()).
    "pow_abs": lambda a, b: torch.pow(torch.abs(a) + 0.5, b),
    "where_gt": lambda a, b: torch.where(a > b, a, b * 2.0),
    "clamp_both": lambda a, b: torch.clamp(a, b - 0.5, b + 0.5),
}


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
ELU_FAMILY = ("elu", "selu", "celu")


def elu_coefficients(op, a):
    """(negcoef, poscoef, input_scale) of torch's elu kernel for elu, selu and celu."""
    if op == "selu":
        return SELU_ALPHA * SELU_SCALE, SELU_SCALE, 1.0
    alpha = a.get("alpha", 1.0)
    return (alpha, 1.0, 1.0 / alpha) if op == "celu" else (alpha, 1.0, 1.0)


def elu_family(op, x, a):
    """F.elu / F.selu / F.celu."""
    F = torch.nn.functional
    if op == "selu":
        return F.selu(x)
    return F.celu(x, a.get("alpha", 1.0)) if op == "celu" else F.elu(x, a.get("alpha", 1.0))


class EluScalarRule(torch.autograd.Function):
    """elu, selu or celu with the gradient of torch's scalar (and cuda) kernel:
    x <= 0 ? g input_scale negcoef e^(input_scale x) : g poscoef, so g poscoef at a NaN x
    (elu_gradient_at_nan)."""

    @staticmethod
    def forward(ctx, x, op, a):
        ctx.save_for_backward(x)
        ctx.coefficients = elu_coefficients(op, a)
        return elu_family(op, x, a)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        neg, pos, scale = ctx.coefficients
        return torch.where(x <= 0, g * scale * neg * torch.exp(x * scale), g * pos), None, None


ELU_SCALAR_RULE = False  # set by elu_gradient_at_nan only


class HardsigmoidExactSixth(torch.autograd.Function):
    """hardsigmoid with the gradient g / 6 in the dtype's own precision (torch 1.13 multiplies
    by float32's 1 / 6 in every dtype: hardsigmoid_exact_sixth)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.nn.functional.hardsigmoid(x)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return torch.where((x > -3) & (x < 3), g * (1 / 6), torch.zeros_like(g))


class HardswishScalarRule(torch.autograd.Function):
    """hardswish with the gradient of torch's scalar (and cuda) kernel at every element:
    x < -3 ? 0 : x <= 3 ? g (x / 3 + 0.5) : g, so 1.5 g at 3 and g at NaN; its cpu vector
    kernel gives g at 3 and NaN at NaN (hardswish_scalar_rule)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.nn.functional.hardswish(x)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return torch.where(x < -3, torch.zeros_like(g), torch.where(x <= 3, g * (x / 3 + 0.5), g))


class HardtanhScalarRule(torch.autograd.Function):
    """hardtanh (relu6) with the gradient of torch's scalar (and cuda) kernel:
    x <= min or x >= max ? 0 : g, so g at NaN; its cpu vector kernel gives 0 there
    (hardtanh_scalar_rule)."""

    @staticmethod
    def forward(ctx, x, low, high):
        ctx.save_for_backward(x)
        ctx.bounds = low, high
        return torch.nn.functional.hardtanh(x, low, high)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        low, high = ctx.bounds
        return torch.where((x <= low) | (x >= high), torch.zeros_like(g), g), None, None


HARDSIGMOID_EXACT_SIXTH = False  # set by hardsigmoid_exact_sixth only
HARDSWISH_SCALAR_RULE = False  # set by hardswish_scalar_rule only
HARDTANH_SCALAR_RULE = False  # set by hardtanh_scalar_rule only
ACCURATE = False  # set while compute() builds the float64 accuracy reference


class ZeroKeepsItsSign(torch.autograd.Function):
    """gelu's value r with r = x where x is a zero (so -0.0 stays -0.0), the gradient r's
    (gelu_zero_sign)."""

    @staticmethod
    def forward(ctx, r, x):
        return torch.where(x == 0, x, r)

    @staticmethod
    def backward(ctx, g):
        return g, None


GELU_ZERO_KEEPS_SIGN = False  # set by gelu_zero_sign only


def activation(op, x, a):
    F = torch.nn.functional
    x = x[0]
    if op == "gelu":
        if ACCURATE:  # x Phi(x), Phi by erfc: no cancellation of 1 + erf at negative x
            return x * 0.5 * torch.special.erfc(-x * math.sqrt(0.5))
        if GELU_ZERO_KEEPS_SIGN and x.is_floating_point():
            return ZeroKeepsItsSign.apply(F.gelu(x), x.detach())
        return F.gelu(x)
    if op == "gelu_tanh":
        if ACCURATE:  # x sigmoid(2u): no cancellation of 1 + tanh(u) at negative x
            return x * torch.sigmoid(2 * math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x))
        return F.gelu(x, approximate="tanh")
    if op == "silu":
        return F.silu(x)
    if op == "leaky_relu":
        return F.leaky_relu(x, a.get("negative_slope", 0.01))
    if op in ELU_FAMILY:
        if ACCURATE:  # negcoef expm1(input_scale x), as hetero (docs/semantics.md row 36)
            neg, pos, scale = elu_coefficients(op, a)
            return torch.where(x > 0, x * pos, torch.expm1(x * scale) * neg)
        if ELU_SCALAR_RULE:
            return EluScalarRule.apply(x, op, a)
        return elu_family(op, x, a)
    if op == "softplus":
        return F.softplus(x, a.get("beta", 1.0), a.get("threshold", 20.0))
    if op == "hardsigmoid" and HARDSIGMOID_EXACT_SIXTH and x.is_floating_point():
        return HardsigmoidExactSixth.apply(x)
    if op == "hardswish" and HARDSWISH_SCALAR_RULE and x.is_floating_point():
        return HardswishScalarRule.apply(x)
    if op in ("hardtanh", "relu6") and HARDTANH_SCALAR_RULE and x.is_floating_point():
        low, high = (0.0, 6.0) if op == "relu6" else (a.get("min_val", -1.0), a.get("max_val", 1.0))
        return HardtanhScalarRule.apply(x, low, high)
    if op == "hardtanh":
        return F.hardtanh(x, a.get("min_val", -1.0), a.get("max_val", 1.0))
    if op == "mish" and ACCURATE:  # x tanh(softplus(x)) without log1p(exp(x)) overflowing
        return x * torch.tanh(F.softplus(x))
    return {"relu6": F.relu6, "hardsigmoid": F.hardsigmoid, "hardswish": F.hardswish,
            "mish": F.mish, "logsigmoid": F.logsigmoid, "softsign": F.softsign}[op](x)


ACTIVATIONS = ("gelu", "gelu_tanh", "silu", "leaky_relu", "elu", "softplus", "selu", "celu",
               "mish", "logsigmoid", "softsign", "hardtanh", "relu6", "hardsigmoid", "hardswish")


def activation_condition(case):
    """|x f'(x) / f(x)| of the activation case's element-wise function at each input element
    (float64, the accurate forms; 0 where f(x) is 0 or the number is not finite): how much a
    relative error in an inner value grows in the result. gelu_tanh at -3.57 is 14.5, so the
    float32 composition of hetero (5-8 kernels, each rounding once) lands 8.7 ulps from the
    exact value while torch's fused kernel lands 2.3 (seed 1130191 case 4974)."""
    global ACCURATE
    # (integer input: softsign's, whose result is float32)
    x = make_input(case["inputs"][0], as_float64=True).double().clone().requires_grad_()
    previous, ACCURATE = ACCURATE, True
    try:
        y = activation(case["op"], [x], case["args"])
    finally:
        ACCURATE = previous
    (slope,) = torch.autograd.grad(y.sum(), x)
    with torch.no_grad():
        cond = (x * slope / y).abs()
        cond = torch.where(torch.isfinite(cond), cond, torch.zeros_like(cond))
    return flat(cond)


def shaping(op, x, a):
    """The shape category (execute.cpp's shaping(): several pieces flattened to float64,
    concatenated, then each piece's size along dim)."""
    if op in ("tril", "triu"):
        return getattr(torch, op)(x[0], a["diagonal"])
    if op == "flip":
        return torch.flip(x[0], a["dims"])
    if op == "repeat":
        return x[0].repeat(*a["repeats"]) if a["repeats"] else x[0].repeat(torch.Size([]))
    if op == "one_hot":
        return torch.nn.functional.one_hot(x[0], a["num_classes"])
    if op == "bmm":
        return torch.bmm(x[0], x[1])
    if op == "einsum":
        return torch.einsum(a["equation"], *x)
    if op == "baddbmm":
        return torch.baddbmm(x[0], x[1], x[2], beta=a["beta"], alpha=a["alpha"])
    dim = a["dim"]
    if op == "sort":
        v, i = torch.sort(x[0], dim=dim, descending=a["descending"], stable=True)
        return torch.cat([v.reshape(-1).to(torch.float64), i.reshape(-1).to(torch.float64)])
    if op == "argsort":
        return torch.argsort(x[0], dim=dim, descending=a["descending"], stable=True)
    if op == "topk":  # values only: the indices of ties are unspecified
        return torch.topk(x[0], a["k"], dim, largest=a["descending"]).values
    if op == "cumsum":
        return torch.cumsum(x[0], dim, dtype=DTYPES[a["dtype"]] if "dtype" in a else None)
    if op == "split":
        pieces = torch.split(x[0], a["split_size"], dim)
    elif op == "split_sizes":
        pieces = torch.split(x[0], a["sizes"], dim)
    elif op == "chunk":
        pieces = torch.chunk(x[0], a["chunks"], dim)
    else:
        pieces = torch.unbind(x[0], dim)
    d = dim + x[0].dim() if dim < 0 else dim
    sizes = [1.0 if op == "unbind" else float(p.shape[d]) for p in pieces]
    return torch.cat([p.reshape(-1).to(torch.float64) for p in pieces] + [torch.tensor(sizes, dtype=torch.float64)])


def logic(op, x, a):
    if op in ("logical_and", "logical_or", "logical_xor"):
        return getattr(torch, op)(x[0], x[1])
    if op in ("logical_not", "isnan", "isinf", "isfinite", "all", "any"):
        return getattr(torch, op)(x[0])
    if op in ("cat", "stack"):
        return getattr(torch, op)(x, a["dim"])
    if op == "isclose":
        return torch.isclose(x[0], x[1], rtol=a["rtol"], atol=a["atol"], equal_nan=a["equal_nan"])
    conv = int if a["integral"] else float
    lo = None if a["min"] is None else conv(a["min"])
    hi = None if a["max"] is None else conv(a["max"])
    return torch.clamp(x[0], lo, hi)


def indexing(op, x, a):
    if op == "embedding":
        return torch.nn.functional.embedding(x[0], x[1], padding_idx=a.get("padding_idx"))
    if op == "gather":
        return torch.gather(x[0], a["dim"], x[1])
    if op == "index_select":
        return torch.index_select(x[0], a["dim"], x[1])
    return torch.scatter_add(x[0], a["dim"], x[1], x[2])


def pooling(op, x, a):
    F = torch.nn.functional
    if op == "adaptive_avg_pool2d":
        return F.adaptive_avg_pool2d(x[0], a["output_size"])
    if op == "conv2d":
        return F.conv2d(x[0], x[1], x[2] if len(x) > 2 else None, a["stride"] or 1,
                        a["padding"], a["dilation"], a["groups"])
    if op == "max_pool2d":
        return F.max_pool2d(x[0], a["kernel"], a["stride"], a["padding"], a["dilation"],
                            ceil_mode=a["ceil_mode"])
    return F.avg_pool2d(x[0], a["kernel"], a["stride"], a["padding"], ceil_mode=a["ceil_mode"],
                        count_include_pad=a["count_include_pad"])


def reduce(op, x, a):
    if "dims" in a:  # a list of dims (torch's dim=(0, 2)); empty: every dimension
        dims = tuple(a["dims"])
        if op in ("var", "std"):
            return getattr(torch, op)(x, dims, correction=a["correction"], keepdim=a["keepdim"])
        return getattr(torch, op)(x, dims, keepdim=a["keepdim"])
    if op == "norm":
        return x.norm()
    if op in ("var", "std"):
        fn = getattr(torch, op)
        if a["all"]:
            return fn(x, None, correction=a["correction"])
        return fn(x, a["dim"], correction=a["correction"], keepdim=a["keepdim"])
    if op == "logsumexp":
        return torch.logsumexp(x, a["dim"], keepdim=a["keepdim"])
    if op == "prod":
        return torch.prod(x) if a["all"] else torch.prod(x, a["dim"], keepdim=a["keepdim"])
    fn = {"sum": torch.sum, "mean": torch.mean, "max": torch.max, "min": torch.min,
          "argmax": torch.argmax, "argmin": torch.argmin}[op]
    if a["all"]:
        return fn(x)
    r = fn(x, a["dim"], keepdim=a["keepdim"])
    return r.values if op in ("max", "min") else r


def view(op, x, a):
    if op == "transpose":
        return x.transpose(a["d0"], a["d1"])
    if op == "t":
        return x.t()
    if op == "narrow":
        return x.narrow(a["dim"], a["start"], a["length"])
    if op == "squeeze":
        return x.squeeze(a["dim"])
    if op == "unsqueeze":
        return x.unsqueeze(a["dim"])
    if op == "index":
        return x[a["index"]]
    if op == "permute":
        return x.permute(a["dims"])
    if op == "flatten":
        return torch.flatten(x, a["start"], a["end"])
    if op == "expand":
        return x.expand(a["shape"])
    return x.reshape(a["shape"])


ROUND_EACH_OP_TO = None  # set by singular_divisor(): every node's value rounded to this dtype


def evaluate(e, x0, x1):
    r = evaluate_node(e, x0, x1)
    if ROUND_EACH_OP_TO is None or isinstance(e, int):
        return r
    return r.to(ROUND_EACH_OP_TO).to(r.dtype)


def evaluate_node(e, x0, x1):
    if isinstance(e, int):
        return x0 if e == 0 else x1
    op = e[0]
    if len(e) == 3 and op.endswith("_"):  # in place into a copy of the first operand
        return getattr(evaluate(e[1], x0, x1).clone(), op)(evaluate(e[2], x0, x1))
    if len(e) == 3:
        fn = BINARY[op] if op in BINARY else getattr(torch, op)
        return fn(evaluate(e[1], x0, x1), evaluate(e[2], x0, x1))
    a = evaluate(e[1], x0, x1)
    last = a.dim() - 1 if a.dim() > 0 else 0
    if op == "softmax":
        return torch.softmax(a, last)
    if op == "log_softmax":
        return torch.log_softmax(a, last)
    if op == "max_dim":  # its gradient goes to the index torch.max returns (semantics.md 3)
        return torch.max(a, last, keepdim=True)[0]
    if op == "mean_dim":
        return a.mean(last, keepdim=True)
    if op in ("var_dim", "std_dim"):
        return getattr(torch, op[:3])(a, last, correction=0, keepdim=True)
    if op == "logsumexp_dim":
        return torch.logsumexp(a, last, keepdim=True)
    if op == "prod_dim":
        return torch.prod(a, last, keepdim=True)
    if op in ACTIVATIONS:
        return activation(op, [a], {})
    if op.endswith("_abs"):  # a row defined on part of the line, on |a| + 0.5 (generate.cpp)
        return getattr(torch, op[:-4])(torch.abs(a) + 0.5)
    if op.endswith("_"):  # in place into a copy of the operand
        return getattr(a.clone(), op)()
    return getattr(torch, op)(a)


def compute(case, as_float64=False, through=None):
    """torch's result for the case: a tensor, or (value, [grads]) for the grad category.
    as_float64: floating inputs converted to float64 first, and the activations computed
    without cancellation (the accuracy reference)."""
    global ACCURATE
    previous, ACCURATE = ACCURATE, as_float64
    try:
        return compute_torch(case, as_float64, through)
    finally:
        ACCURATE = previous


def compute_torch(case, as_float64, through):
    cat, op, a = case["cat"], case["op"], case["args"]
    x = [make_input(i, as_float64, through) for i in case["inputs"]]
    if cat == "unary":
        if a.get("inplace"):  # x.exp_(): x itself, written
            return getattr(x[0], op + "_")()
        return getattr(torch, op)(x[0])
    if cat == "binary":
        if a.get("inplace"):  # x.add_(y): x itself, written
            return getattr(x[0], op + "_")(x[1])
        return BINARY[op](x[0], x[1]) if op in BINARY else getattr(torch, op)(x[0], x[1])
    if cat == "scalar":
        s = int(a["scalar"]) if a["integral"] else float(as_number(a["scalar"]))
        if a.get("inplace"):
            return getattr(x[0], op + "_")(s)
        return BINARY[op](s, x[0]) if a["left"] else BINARY[op](x[0], s)
    if cat == "reduce":
        return reduce(op, x[0], a)
    if cat == "softmax":
        return getattr(torch, op)(x[0], a["dim"])
    if cat == "cast":
        return x[0].to(DTYPES[a["dtype"]])
    if cat == "matmul":
        return torch.matmul(x[0], x[1])
    if cat == "view":
        return view(op, x[0], a)
    if cat == "where":
        if op == "where":
            return torch.where(x[0], x[1], x[2])
        v = as_number(a["value"])
        fill = x[0].masked_fill_ if a.get("inplace") else x[0].masked_fill
        return fill(x[1], int(v) if isinstance(v, int) else float(v))
    if cat == "logic":
        return logic(op, x, a)
    if cat in ("index", "pool", "activation", "shape"):
        fn = {"index": indexing, "pool": pooling, "activation": activation, "shape": shaping}[cat]
        # (gelu, gelu_tanh and elu: activation() computes them without cancellation in the
        # accuracy reference, ACCURATE)
        if not a["backward"]:
            return fn(op, x, a)
        # The gradient of sum(y * y) for every floating input (execute.cpp does the same).
        leaves = [t.clone().requires_grad_() if t.is_floating_point() else t for t in x]
        y = fn(op, leaves, a)
        (y * y).sum().backward()
        return y.detach(), [l.grad if l.is_floating_point() else None for l in leaves]
    if cat == "factory":
        if op == "full":
            return torch.full(a["shape"], float(as_number(a["value"])), dtype=DTYPES[a["dtype"]])
        kw = {"dtype": DTYPES[a["dtype"]]} if "dtype" in a else {}
        return torch.arange(a["start"], a["end"], a["step"], **kw)
    leaves = [t.clone().requires_grad_() for t in x]
    y = evaluate(a["expr"], *leaves).sum()
    y.backward()
    return y.detach(), [l.grad for l in leaves]


def flat(t):
    """Values in C order as Python numbers (floats through float64)."""
    if t.is_floating_point():
        return t.detach().to(torch.float64).contiguous().reshape(-1).tolist()
    return t.to(torch.int64).contiguous().reshape(-1).tolist()


def ulp(x, dtype):
    bits, emin = FLOAT_BITS[dtype]
    ax = abs(x)
    e = math.frexp(ax)[1] - 1 if ax > 0 else emin
    return 2.0 ** (max(e, emin) - bits)


def close_any(h, t, r, dtype, extra):
    """h within bound of torch's t, or of the float64 reference r rounded to the dtype, or
    no farther from r than 4 times t is (hetero at least as accurate as torch)."""
    if close(h, t, dtype, extra):
        return True
    if r is None:
        return False
    if close(h, r, dtype, extra):
        return True
    finite = not any(math.isnan(v) or math.isinf(v) for v in (h, t, r))
    return finite and abs(h - r) <= 4 * abs(t - r)


def close(h, t, dtype, extra):
    if isinstance(t, float) and math.isnan(t):
        return isinstance(h, float) and math.isnan(h)
    if isinstance(h, float) and math.isnan(h):
        return False
    if math.isinf(t) or math.isinf(h):
        return h == t
    return abs(h - t) <= 2 * ulp(t, dtype) + extra


def reduction_slack(case, dtype):
    """The extra bound of accumulating ops: 2 * n * eps * sum|terms| (n the reduced count)."""
    cat, op = case["cat"], case["op"]
    if cat == "shape" and op == "einsum":  # a contraction of at most every element
        vals = [[abs(as_number(v)) for v in i["values"]] for i in case["inputs"]]
        vals = [[v for v in vs if not math.isinf(v) and not math.isnan(v)] for vs in vals]
        eps = 2.0 ** -FLOAT_BITS[dtype][0]
        n = max(len(v) for v in vals) + 1
        bound = math.prod(max(v, default=0.0) for v in vals) * max(len(v) for v in vals)
        return 4 * n * eps * max(bound, sum(vals[0]))
    if cat == "shape" and op in ("bmm", "baddbmm", "cumsum"):
        vals = [[abs(as_number(v)) for v in i["values"]] for i in case["inputs"]]
        vals = [[v for v in vs if not math.isinf(v) and not math.isnan(v)] for vs in vals]
        eps = 2.0 ** -FLOAT_BITS[dtype][0]
        if op == "cumsum":  # n additions of terms no larger than the sum of all
            return 2 * max(len(vals[0]), 1) * eps * sum(vals[0])
        k = case["inputs"][-2]["base"][-1] if case["inputs"][-2]["base"] else 1
        ma, mb = max(vals[-2], default=0.0), max(vals[-1], default=0.0)
        alpha = abs(case["args"]["alpha"]) if op == "baddbmm" else 1.0
        bias = max(vals[0], default=0.0) if op == "baddbmm" else 0.0
        return 4 * (k + 2) * eps * (alpha * k * ma * mb + bias)
    if cat not in ("reduce", "softmax", "matmul", "pool"):
        return 0.0
    inputs = [[abs(as_number(v)) for v in i["values"]] for i in case["inputs"]]
    eps = 2.0 ** -FLOAT_BITS[dtype][0]
    finite = [[v for v in vals if not math.isinf(v) and not math.isnan(v)] for vals in inputs]
    if cat == "pool":
        a = case["args"]
        ma = max(finite[0], default=0.0)
        if op == "max_pool2d":
            return 0.0
        if op == "conv2d":  # a dot product of C/groups * KH * KW terms, plus the bias
            k = case["inputs"][1]["base"][1] * a["kernel"][0] * a["kernel"][1]
            mb = max(finite[1], default=0.0)
            bias = max(finite[2], default=0.0) if len(finite) > 2 else 0.0
            return 4 * (k + 1) * eps * (k * ma * mb + bias)
        base = case["inputs"][0]["base"]  # a window's terms: at most its height times width
        n = a["kernel"][0] * a["kernel"][1] if "kernel" in a else base[-1] * base[-2]
        return 4 * (n + 1) * eps * ma
    if cat == "matmul":
        k = case["inputs"][0]["base"][-1] if case["inputs"][0]["base"] else 1
        ma = max(finite[0], default=0.0)
        mb = max(finite[1], default=0.0)
        return 4 * (k + 1) * eps * k * ma * mb
    total = sum(finite[0]) if finite else 0.0
    n = max(len(inputs[0]), 1)
    if cat == "softmax":
        return 4 * n * eps * (1 + (max(finite[0], default=0.0) if op == "log_softmax" else 0))
    if op == "logsumexp":  # m + log(sum(exp(x - m))): as log_softmax's (m cancels)
        return 4 * n * eps * (1 + max(finite[0], default=0.0))
    if op == "prod":  # n roundings of a product no larger than that of max(|v|, 1)
        big = math.prod(max(v, 1.0) for v in finite[0]) if finite else 1.0
        return 2 * n * eps * big
    if op in ("var", "std"):  # a sum of n squared deviations, each rounded, scaled by
        # 1 / (n - correction); std's bound is this divided by 2 std (compare(): sqrt's slope)
        return 2 * n * eps * sum(v * v for v in finite[0])
    if op in ("sum", "mean", "norm"):
        # Each term scaled before the sum: terms near float64's largest would overflow it
        # (an infinite bound, which accepted any finite result).
        k = 2 * n * eps
        bound = sum(k * v for v in finite[0])
        if op == "norm":
            m = max(finite[0], default=0.0)
            if m > 0:
                bound += (k * m) * math.sqrt(sum((v / m) ** 2 for v in finite[0]))
        return bound
    return 0.0


class Failure(Exception):
    pass


def compare(case, got, expect, reference):
    hd, hs = got["dtype"], got["shape"]
    if isinstance(expect, tuple):  # the grad category, index cases with "backward"
        value, grads = expect
        if case["cat"] in ("index", "pool", "shape") and (hs != list(value.shape) or NAMES.get(value.dtype) != hd):
            raise Failure(f"result: hetero {hd} {hs}, torch {value.dtype} {list(value.shape)}")
        rvalue, rgrads = reference if reference is not None else (None, [None] * len(grads))
        tensors = [(value, rvalue, got["values"], 0)] + [
            (g, rg, hg, i + 1) for i, (g, rg, hg) in enumerate(zip(grads, rgrads, got["grads"]))]
        rtol = 1e-9 if hd == "float64" else 1e-4
        # A cumsum's value may differ from torch's by its summation bound (another order
        # absorbs other terms: [2.6e38, 0.04, -7.8, -2.6e38, 13.7] gives 13.7 or 0 last), and
        # the gradient of sum(y * y), 2 * reversed cumsum(y), by 2 n times that.
        grad_slack = 0.0
        if case["cat"] == "shape" and case["op"] == "cumsum":
            grad_slack = 2 * len(case["result"]["values"]) * reduction_slack(case, hd)
        for t, r, hvals, which in tensors:
            if t is None or hvals is None:  # a leaf the expression does not use
                if (t is None) != (hvals is None):
                    raise Failure(f"gradient of x{which - 1}: hetero {hvals is not None}, torch {t is not None}")
                continue
            tv = flat(t)
            rv = flat(r) if r is not None else [None] * len(tv)
            # The scale of the values: torch's finite ones, and the float64 reference's where
            # torch's are not finite (x / gelu_tanh(x y) at x y = -6.8: torch's float32 gelu
            # cancels to -0, the division gives inf, the reference 1.1e14).
            scale = max([abs(v) for v in tv + [x for x in rv if x is not None]
                         if not math.isinf(v) and not math.isnan(v)], default=0.0)
            for k, (h, e, rr) in enumerate(zip((as_number(v) for v in hvals), tv, rv)):
                if not close_any(h, e, rr, hd, (1e-12 if hd == "float64" else 1e-5) * (1 + scale) + rtol * scale
                                 + (grad_slack if which > 0 else 0.0)):
                    what = "value" if which == 0 else f"gradient of x{which - 1}"
                    raise Failure(f"{what} element {k}: hetero {h!r}, torch {e!r}")
        return
    td = NAMES.get(expect.dtype, str(expect.dtype).replace("torch.", ""))
    if hd != td:
        raise Failure(f"dtype: hetero {hd}, torch {td}")
    if hs != list(expect.shape):
        raise Failure(f"shape: hetero {hs}, torch {list(expect.shape)}")
    tv = flat(expect)
    rv = flat(reference.to(expect.dtype)) if reference is not None and is_float(td) else [None] * len(tv)
    hv = [as_number(v) for v in got["values"]]
    if not is_float(td):
        for k, (h, e) in enumerate(zip(hv, tv)):
            if h != e:
                raise Failure(f"element {k}: hetero {h}, torch {e}")
        return
    exact = case["cat"] == "reduce" and case["op"] in ("max", "min", "amax", "amin")
    slack = 0.0 if exact else reduction_slack(case, td)
    activation_cond = activation_condition(case) if case["cat"] == "activation" else None
    for k, (h, e, r) in enumerate(zip(hv, tv, rv)):
        if exact and not ((math.isnan(h) and math.isnan(e)) or h == e):
            raise Failure(f"element {k}: hetero {h!r}, torch {e!r} (expected exact)")
        # The activations are composed in hetero from 5-8 element-wise kernels, each rounding
        # once, and the errors of the inner ones grow by the function's condition number
        # (gelu_tanh in float32: 4.5 ulps from the exact value at -1.87, where it is 3.3;
        # torch's fused kernel 1.5): 4 ulps more than a single kernel's 2, or twice the
        # condition number where that is larger (activation_condition).
        extra = 0.0
        if activation_cond is not None and not math.isinf(e) and not math.isnan(e):
            extra = max(4.0, 2 * activation_cond[k]) * ulp(e, td)
        bound = slack
        if case["cat"] == "reduce" and case["op"] == "std":
            # |sqrt(a) - sqrt(b)| = |a - b| / (sqrt(a) + sqrt(b)): the variance's bound over
            # 2 std (seed 1129104 case 7379: torch 3 ulps from the exact std, hetero 0.1)
            bound = slack / (2 * abs(e)) if e != 0 and math.isfinite(e) else math.sqrt(slack)
        if not close_any(h, e, r, td, bound + extra):
            raise Failure(f"element {k}: hetero {h!r}, torch {e!r} ({abs(h - e) / ulp(e, td):.1f} ulps)")


TORCH_LACKS = ("not implemented for 'Half'", "not implemented for 'BFloat16'")


# --- documented differences: each is a row of docs/semantics.md (the names match) ----------
def agrees(case, want):
    """Whether hetero's result of `case` is within compare()'s bounds of `want`."""
    try:
        compare(case, case["result"], want, None)
        return True
    except Failure:
        return False


def torch_skips_dtype_check(case, herr, expect):
    """torch returns early, before its dtype check, for empty input to softmax/log_softmax and
    for argmax/argmin whose reduced extent is 0 or 1; hetero raises DTypeError there as elsewhere."""
    if not herr or herr["type"] != "DTypeError" or expect is None:
        return False
    x = make_input(case["inputs"][0])
    if case["cat"] == "softmax":
        return x.numel() == 0
    if case["cat"] == "reduce" and case["op"] in ("argmax", "argmin"):
        a = case["args"]
        extent = x.numel() if a["all"] or x.dim() == 0 else x.shape[a["dim"]]
        return x.numel() == 0 or extent <= 1
    return False


def scalar_rdiv_is_a_division(case, herr, expect):
    """s / x: hetero divides; torch computes reciprocal(x) * s, which overflows for a
    subnormal x (1e-40 / 1e-40 is inf in torch, 1 in hetero)."""
    if herr or expect is None or case["cat"] != "scalar" or case["op"] != "div" or not case["args"]["left"]:
        return False
    x = make_input(case["inputs"][0])
    s = int(case["args"]["scalar"]) if case["args"]["integral"] else float(as_number(case["args"]["scalar"]))
    divided = torch.full_like(expect, s) / x.to(expect.dtype)
    return agrees(case, divided)


def int16_is_int32(case, herr, expect):
    """uint8 with int8 promotes to int16 in torch, a dtype hetero lacks: hetero computes in
    int32. The values agree (a sum, difference or product of two 8-bit values fits 16 bits);
    pow, which wraps, agrees modulo 2^16."""
    if herr or not isinstance(expect, torch.Tensor) or expect.dtype != torch.int16 or \
            case["result"]["dtype"] != "int32":
        return False
    got = dict(case["result"])
    if case["op"] == "pow":
        got["values"] = [((int(v) + 32768) % 65536) - 32768 for v in got["values"]]
    try:
        compare(case, got, expect.to(torch.int32), None)
        return True
    except Failure:
        return False


def masked_fill_takes_bool_masks(case, herr, expect):
    """masked_fill with a mask that is not bool: hetero raises DTypeError (torch 2's rule);
    torch 1.13 accepts it with a deprecation warning."""
    return (bool(herr) and herr["type"] == "DTypeError" and expect is not None
            and case["op"] == "masked_fill" and case["inputs"][1]["dtype"] != "bool")


def negative_into_unsigned(case, herr, expect):
    """A negative value into uint8 (masked_fill(x, m, -1)): hetero's overflow check (that of
    full()) raises; torch's lets -255..-1 through, wrapped (-1 is 255)."""
    if not herr or herr["type"] != "DTypeError" or expect is None or case["op"] != "masked_fill":
        return False
    v = as_number(case["args"]["value"])
    return case["inputs"][0]["dtype"] == "uint8" and -255 <= v < 0


def pow_exponent_in_double(case, herr, expect):
    """x ** s with a float scalar s: hetero computes in float64 and rounds once (torch's scalar
    path); torch's vectorised path rounds s to float32 first, up to ~8 ulps apart."""
    if herr or expect is None or case["cat"] != "scalar" or case["op"] != "pow" or case["args"]["left"]:
        return False
    if case["args"]["integral"] or not expect.is_floating_point():
        return False
    x = make_input(case["inputs"][0])
    want = (x.to(torch.float64) ** float(as_number(case["args"]["scalar"]))).to(expect.dtype)
    return agrees(case, want)


def isclose_broadcasts(case, herr, expect):
    """isclose of operands that broadcast where the first is the smaller: torch 1.13 raises
    "output with shape ... doesn't match the broadcast shape" (its in-place |= on the first
    operand's shape); hetero returns the broadcast result, compared here with torch's
    isclose of the operands broadcast first."""
    if herr or expect is not None or case["op"] != "isclose":
        return False
    x = [make_input(i) for i in case["inputs"]]
    a = case["args"]
    try:
        x0, x1 = torch.broadcast_tensors(x[0], x[1])
        want = torch.isclose(x0, x1, rtol=a["rtol"], atol=a["atol"], equal_nan=a["equal_nan"])
        compare(case, case["result"], want, None)
        return True
    except Exception:
        return False


def scatter_add_src_gradient(case, herr, expect):
    """The gradient of scatter_add's src where src is larger than index: torch 1.13's backward
    returns gather(g, index), of index's shape, and its engine raises "returned an invalid
    gradient"; hetero gives src's shape, zero beyond index (torch 2's rule), compared here
    with torch's gradient padded so."""
    if herr or expect is not None or case["op"] != "scatter_add" or not case["args"]["backward"]:
        return False
    x = [make_input(i) for i in case["inputs"]]
    dim = case["args"]["dim"]
    try:
        leaves = [x[0].clone().requires_grad_(), x[1], x[2].clone().requires_grad_()]
        y = torch.scatter_add(leaves[0], dim, x[1], leaves[2])
        g = 2 * y.detach()
        gsrc = torch.zeros_like(x[2])
        gsrc[tuple(slice(0, n) for n in x[1].shape)] = torch.gather(g, dim, x[1])
        compare(case, case["result"], (y.detach(), [g, None, gsrc]), None)
        return True
    except Exception:
        return False


def clamp_nan_bound(case, herr, expect):
    """docs/semantics.md row 26: clamp with a NaN scalar bound gives NaN in hetero, as a NaN
    tensor bound and clamp(x, nan, 2.0) do in torch; torch 1.13 ignores a lone NaN scalar
    bound. For a 16-bit x, which torch's clamp has no kernel for, the expected result is
    built from hetero's shape and dtype."""
    if herr or case["op"] != "clamp":
        return False
    a = case["args"]
    if "nan" not in (a["min"], a["max"]):
        return False
    if isinstance(expect, torch.Tensor):
        want = torch.full_like(expect, float("nan"))
    elif case["result"]["dtype"] in ("float16", "bfloat16"):
        want = torch.full(case["result"]["shape"], float("nan"), dtype=DTYPES[case["result"]["dtype"]])
    else:
        return False
    return want.is_floating_point() and agrees(case, want)


def integer_conv2d(case, herr, expect):
    """docs/semantics.md row 19: conv2d of integer tensors raises DTypeError in hetero (the
    backends' GEMM is floating only); torch computes it on the CPU."""
    return (bool(herr) and herr["type"] == "DTypeError" and case["op"] == "conv2d"
            and not is_float(case["inputs"][0]["dtype"]))


def integer_pools(case, herr, expect):
    """docs/semantics.md row 29: avg_pool2d (and the other pools) of integer tensors raise in
    hetero (floating dtypes only); torch 1.13's cpu averages int64 with integer division."""
    return (bool(herr) and herr["type"] in ("NotImplementedError", "DTypeError")
            and case["cat"] == "pool" and not is_float(case["inputs"][0]["dtype"])
            and expect is not None)


def conv_overflow_times_zero(case, herr, expect):
    """docs/semantics.md row 30: a float32 convolution (or its gradient) where an infinite or
    overflowed term meets a zero weight tap: hetero's GEMM gives NaN (inf * 0), as torch's own
    GEMM path (slow_conv2d) does; torch's default oneDNN kernel gives +-inf. Compared with
    torch with oneDNN off."""
    if herr or expect is None or case["op"] != "conv2d":
        return False
    try:
        with torch.backends.mkldnn.flags(enabled=False):
            want = compute(case)
        compare(case, case["result"], want, None)
        return True
    except Exception:
        return False


def conv_without_padded_taps(x, w, b, a, magnitudes=False):
    """conv2d in float64 as a sum over the taps inside the image only (oneDNN's: a padded tap
    adds nothing, even against an infinite weight, where slow_conv2d adds 0 * inf = NaN).
    magnitudes: the sum of the terms' magnitudes instead (the bias's included)."""
    F = torch.nn.functional
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    g = a["groups"]
    args = dict(kernel_size=(kh, kw), dilation=a["dilation"], padding=a["padding"],
                stride=a["stride"] or 1)
    cols = F.unfold(x, **args)                        # [n, c kh kw, L]
    inside = F.unfold(torch.ones_like(x), **args) > 0  # the taps inside the image
    cols = cols.reshape(n, g, cg * kh * kw, -1)
    inside = inside.reshape(n, g, cg * kh * kw, -1)
    wg = w.reshape(g, o // g, cg * kh * kw)
    terms = cols.unsqueeze(2) * wg[None, :, :, :, None]           # [n, g, o/g, K, L]
    terms = torch.where(inside.unsqueeze(2), terms, torch.zeros((), dtype=terms.dtype))
    if magnitudes:
        terms = terms.abs()
    y = terms.sum(3).reshape(n, o, -1)
    if b is not None:
        y = y + (b.abs() if magnitudes else b)[None, :, None]
    return y


def overflow_as_hetero(case, xs, want):
    """`want` (a conv2d's result) with hetero's value wherever hetero's is not finite and the
    element's terms overflow float32 (their magnitudes sum beyond its largest): float32
    accumulation gives +inf, -inf or NaN there as its order goes (docs/semantics.md row 27).
    xs: the inputs in float64, the image batched."""
    size = conv_without_padded_taps(xs[0], xs[1], xs[2] if len(xs) > 2 else None, case["args"],
                                    magnitudes=True)
    largest = torch.finfo(torch.float64 if case["result"]["dtype"] == "float64" else torch.float32).max
    overflows = (size.reshape(-1) > largest).tolist()
    flat_want = want.reshape(-1).clone()
    for k, (over, h) in enumerate(zip(overflows, (as_number(v) for v in case["result"]["values"]))):
        if over and (math.isnan(h) or math.isinf(h)):
            flat_want[k] = h
    return flat_want.reshape(want.shape)


def conv_inputs(case):
    """A conv2d case's inputs in float64, the image batched; None when not 4-d."""
    xs = [make_input(i, as_float64=True) for i in case["inputs"]]
    if xs[0].dim() == 3:  # unbatched [C, H, W]
        xs[0] = xs[0].unsqueeze(0)
    return xs if xs[0].dim() == 4 else None


def conv_overflow_order(case, herr, expect):
    """docs/semantics.md row 27: a float32 (or 16-bit, computed in float32) or float64 conv2d
    whose terms overflow its dtype in some elements: hetero's kernels (oneDNN's, or a GEMM's on
    another backend) and torch's accumulate in different orders, so either may give +inf,
    -inf or NaN there. Recognised when hetero equals torch everywhere else (forward cases;
    a bfloat16 convolution with values near 3e38 on a CPU without AVX-512, where torch runs
    slow_conv2d, and on opencl)."""
    if herr or case["op"] != "conv2d" or not isinstance(expect, torch.Tensor):
        return False
    if case["result"]["dtype"] not in ("float32", "float16", "bfloat16", "float64"):
        return False
    try:
        xs = conv_inputs(case)
        if xs is None:
            return False
        compare(case, case["result"], overflow_as_hetero(case, xs, expect), None)
        return True
    except Exception:
        return False


def conv_onednn_skips_padding(case, herr, expect):
    """docs/semantics.md row 41: a float32 (or 16-bit, computed in float32) conv2d on the
    cpu, where hetero runs oneDNN, and an infinite term meets a padded tap: oneDNN skips the
    padding, where torch's slow_conv2d (which torch picks for these small shapes) adds
    0 * inf = NaN. Recognised when hetero equals the float64 sum over the taps inside the
    image, rounded to its dtype (forward cases). Where an element's terms overflow float32
    (their magnitudes sum beyond its largest value: bfloat16 values near 3e38 times a weight
    above 1), float32 accumulation gives +inf, -inf or NaN as its order goes (row 27, as a
    GEMM's): there any non-finite value of hetero's is accepted. (Seen where torch runs
    slow_conv2d for bfloat16, on a CPU without AVX-512: hetero then convolves in float32.)"""
    if herr or case["op"] != "conv2d":
        return False
    dtype = case["result"]["dtype"]
    if dtype not in ("float32", "float16", "bfloat16"):
        return False
    try:
        xs = conv_inputs(case)
        if xs is None:
            return False
        y = conv_without_padded_taps(xs[0], xs[1], xs[2] if len(xs) > 2 else None, case["args"])
        want = overflow_as_hetero(case, xs, y.reshape(case["result"]["shape"]).to(DTYPES[dtype]))
        if not case["args"].get("backward"):
            compare(case, case["result"], want, None)
            return True
        # With gradients: the value as above; each gradient element as torch's wherever
        # torch's is a number (its NaNs are the same 0 * inf of the padded taps).
        _, grads = expect
        got = copy.deepcopy(case["result"])
        compare(case, {"dtype": got["dtype"], "shape": got["shape"], "values": got["values"]},
                want, None)
        for hvals, t in zip(got.get("grads") or [], grads):
            if hvals is None or t is None:
                continue
            for k, e in enumerate(flat(t)):
                if math.isnan(e):
                    hvals[k] = "nan"
        compare(case, got, (want, grads), None)
        return True
    except Exception:
        return False


def max_pool_first_nan(case, herr, expect):
    """docs/semantics.md row 22: max_pool2d's gradient where a window holds several NaNs goes
    to the first (as argmax) in hetero, to the last in torch's cpu kernel. Recognised when
    the values agree and an input plane holds two NaNs or more."""
    if herr or not isinstance(expect, tuple) or case["op"] != "max_pool2d":
        return False
    x = make_input(case["inputs"][0])
    planes = x.reshape(-1, x.shape[-2] * x.shape[-1]) if x.numel() else x.reshape(0, 1)
    if not bool((torch.isnan(planes).sum(1) >= 2).any()):
        return False
    try:
        compare(case, {k: v for k, v in case["result"].items() if k != "grads"}, expect[0], None)
        return True
    except Failure:
        return False


def adaptive_mean_without_overflow(case, herr, expect):
    """docs/semantics.md row 31: adaptive_avg_pool2d of values near the dtype's largest whose
    window sum overflows but whose mean does not: hetero averages the rows' windows, then the
    columns', and gives the finite mean; torch sums the whole window first and gives inf.
    Compared with torch's result for x / 4, times 4 (exact scalings by a power of two)."""
    if herr or not isinstance(expect, torch.Tensor) or case["op"] != "adaptive_avg_pool2d":
        return False
    x = make_input(case["inputs"][0])
    want = torch.nn.functional.adaptive_avg_pool2d(x / 4, case["args"]["output_size"]) * 4
    return agrees(case, want)


def logical_of_wrapped_scalar(case, herr, expect):
    """docs/semantics.md row 32: logical_and/or/xor with a 0-d operand whose value does not
    survive the computation dtype (int64 INT_MIN with an int8 tensor, float64 1e-40 with a
    float16 one): hetero tests the value itself (nonzero: true); torch converts it to the
    tensor's dtype first, where it may wrap or underflow to 0. Compared with torch on the
    operands tested for != 0 first."""
    if herr or not isinstance(expect, torch.Tensor) or \
            case["op"] not in ("logical_and", "logical_or", "logical_xor"):
        return False
    x = [make_input(i) for i in case["inputs"]]
    if not any(t.dim() == 0 for t in x):
        return False
    want = getattr(torch, case["op"])(x[0] != 0, x[1] != 0)
    return agrees(case, want)


def torch_negative_size(case, herr, expect):
    """docs/semantics.md row 33: expand() with -1 for a new leading dimension beside a 0-sized
    one (a 0-d tensor to [-1, 0]): hetero raises ShapeError, as torch does when no size is 0;
    torch 1.13 returns a tensor whose size is -1."""
    return (bool(herr) and herr["type"] == "ShapeError" and isinstance(expect, torch.Tensor)
            and any(d < 0 for d in expect.shape))


def baddbmm_beta_zero(case, herr, expect):
    """baddbmm with beta 0 and an input that requires grad: torch 1.13's cpu path scales its
    uninitialised output by beta (NaN, -0.0 now and then); hetero gives alpha * bmm, the
    documented result, compared here with torch's."""
    if herr or case["cat"] != "shape" or case["op"] != "baddbmm" or case["args"]["beta"] != 0:
        return False
    x = [make_input(i) for i in case["inputs"]]
    dt = x[1].dtype  # computed in float64 (torch has no 16-bit bmm on the cpu), then rounded
    leaves = [t.double().clone().requires_grad_() for t in x]
    y = case["args"]["alpha"] * torch.bmm(leaves[1], leaves[2])  # input's gradient: zeros
    if not case["args"]["backward"]:
        return agrees(case, y.detach().to(dt))
    (y * y).sum().backward()
    return agrees(case, (y.detach().to(dt), [torch.zeros_like(x[0])] + [l.grad.to(dt) for l in leaves[1:]]))


def log1p_of_huge(case, herr, expect):
    """log1p of values above half the dtype's largest: torch's SLEEF log1p overflows to inf,
    hetero gives log(x), the finite value (within 1 ulp of torch's float64 log)."""
    if herr or not isinstance(expect, torch.Tensor) or case["op"] != "log1p":
        return False
    x = make_input(case["inputs"][0])
    if not x.is_floating_point():
        return False
    huge = x.abs() > torch.finfo(x.dtype).max / 2
    if not bool(huge.any()):
        return False
    fixed = torch.where(huge & (x > 0), torch.log(x.double()).to(expect.dtype), expect)
    try:
        compare(case, case["result"], fixed, None)
        return True
    except Failure:
        return False


def sign_of_bool(case, herr, expect):
    """sign of a bool tensor: hetero raises DTypeError as for every `numeric` row (floor, neg,
    abs); torch returns the bool tensor."""
    return (bool(herr) and herr["type"] == "DTypeError" and case["op"] == "sign"
            and case["inputs"][0]["dtype"] == "bool" and isinstance(expect, torch.Tensor))


def repeat_backward_of_empty(case, herr, expect):
    """docs/semantics.md row 42: the gradient of repeat() with a negative count against a
    dimension of size 0 (an empty result, which torch allows): torch 1.13's backward raises
    while reshaping ("cannot reshape tensor of 0 elements into shape [.., -1, ..]"), hetero
    returns the (empty) gradient. Recognised when torch's forward alone gives hetero's
    shape."""
    if herr or case["op"] != "repeat" or not case["args"].get("backward"):
        return False
    reps = case["args"].get("repeats") or []
    if not any(r < 0 for r in reps):
        return False
    try:
        want = make_input(case["inputs"][0]).repeat(reps)
    except Exception:
        return False
    return want.numel() == 0 and list(want.shape) == list(case["result"]["shape"])


def pairwise_product(t, d):
    """core/src/ops_prod.cpp's order: neighbours multiplied (x0 x1, x2 x3, ...), the last
    element of an odd length carried, until one is left."""
    if t.shape[d] == 0:
        return torch.ones_like(t.narrow(d, 0, 0).sum(d, keepdim=True))
    while t.shape[d] > 1:
        n, h = t.shape[d], t.shape[d] // 2
        p = t.narrow(d, 0, 2 * h).reshape(list(t.shape[:d]) + [h, 2] + list(t.shape[d + 1:]))
        m = p.select(d + 1, 0) * p.select(d + 1, 1)
        t = torch.cat([m, t.narrow(d, n - 1, 1)], d) if n % 2 else m
    return t


def prod_pairwise_order(case, herr, expect):
    """docs/semantics.md row 43: a floating prod whose partial products overflow or underflow
    (an inf meeting a 0, as [-0.0, 18.3, 1.3e308, -4.6]): hetero multiplies neighbours
    pairwise, torch left to right, and an intermediate inf or 0 may come out in one order
    only. Compared with the pairwise product computed by torch (16-bit inputs in float64 or
    float32, as the core computes them)."""
    if herr or case["cat"] != "reduce" or case["op"] != "prod" or not isinstance(expect, torch.Tensor):
        return False
    x = make_input(case["inputs"][0])
    if not x.is_floating_point():
        return False
    a = case["args"]
    computes = [torch.float64, torch.float32] if x.dtype in (torch.float16, torch.bfloat16) else [x.dtype]
    for t in computes:
        y = x.to(t)
        if a["all"] or y.dim() == 0:
            want = pairwise_product(y.reshape(-1), 0).reshape([])
        else:
            d = a["dim"] % y.dim()
            want = pairwise_product(y, d)
            if not a["keepdim"]:
                want = want.squeeze(d)
        if agrees(case, want.to(x.dtype)):
            return True
    return False


def computed_with(rule, case):
    """torch's result for `case` with the module flag `rule` (ELU_SCALAR_RULE,
    ZERO_TIE_TO_SECOND, GELU_ZERO_KEEPS_SIGN, HARDSIGMOID_EXACT_SIXTH, HARDSWISH_SCALAR_RULE,
    HARDTANH_SCALAR_RULE) set while it is computed; None where torch
    raises."""
    globals()[rule] = True
    try:
        return compute(case)
    except Exception:
        return None
    finally:
        globals()[rule] = False


def elu_gradient_at_nan(case, herr, expect):
    """docs/semantics.md row 44: elu's (selu's, celu's) gradient at a NaN input is the incoming
    gradient (times poscoef), as torch's scalar and cuda kernels (x <= 0 ? g alpha e^x : g);
    torch's cpu vector kernel gives
    NaN there when a non-positive element shares the NaN's vector, and g otherwise. Compared
    with torch recomputed with the scalar rule."""
    args = json.dumps(case["args"])
    if herr or not any(case["op"] == op or f'"{op}"' in args for op in ELU_FAMILY):
        return False
    want = computed_with("ELU_SCALAR_RULE", case)
    return isinstance(want, tuple) and agrees(case, want)


def maximum_zero_tie(case, herr, expect):
    """docs/semantics.md row 46: maximum and minimum of +0.0 and -0.0 give the second operand,
    as torch's cpu vector kernel (vmaxpd); torch's scalar loop (std::max, which runs for fewer
    than two vectors of elements and for the tail) gives the first. The sign reaches a result
    through atan2 or a division (atan2(0, -0.0) is pi). Compared with torch recomputed with the
    second operand's zero at every tie."""
    args = json.dumps(case["args"])
    if herr or not any(case["op"] == op or f'"{op}"' in args for op in ("maximum", "minimum")):
        return False
    want = computed_with("ZERO_TIE_TO_SECOND", case)
    return want is not None and agrees(case, want)


def fmod_exact(case, herr, expect):
    """docs/semantics.md row 45: floating fmod and remainder are exact (C's fmod; remainder
    adds the divisor to a remainder of the other sign, rounded once), also where a / b is
    huge; torch's cpu vector kernel (SLEEF's fmod) gives NaN or another value there (fmod of
    1.35e308 by -0.166 is NaN in a vector of 4, 0.0631 alone). Compared with Python's
    math.fmod element by element."""
    if herr or case["cat"] != "binary" or case["op"] not in ("fmod", "remainder"):
        return False
    x = [make_input(i) for i in case["inputs"]]
    dt = torch.result_type(*x)
    if not dt.is_floating_point:
        return False
    # (each operand rounded to the result dtype first, as the kernel sees it: a float64 0-d
    # dividend beside float32 divisors is a float32 one; seed 1130611 case 337)
    a, b = torch.broadcast_tensors(*(t.to(dt).to(torch.float64) for t in x))
    out = []
    for u, v in zip(a.flatten().tolist(), b.flatten().tolist()):
        try:
            m = math.fmod(u, v)
        except ValueError:  # an infinite u or a zero v
            m = float("nan")
        if case["op"] == "remainder" and m != 0 and (m < 0) != (v < 0):
            m = float(torch.tensor(m, dtype=dt) + torch.tensor(v, dtype=dt))
        out.append(m)
    want = torch.tensor(out, dtype=torch.float64).reshape(a.shape).to(dt)
    return agrees(case, want)


def scaled_gradients(case):
    """torch's gradients of sum(y * y) for a shape-category case with "backward", from the
    incoming gradient 2y scaled by 2^-64 and the result scaled by 2^64 (exact: powers of two),
    so that no partial product overflows where the gradient itself is finite; None for
    another case, 16-bit inputs (2^-64 is below their range) or where torch raises."""
    if case["cat"] != "shape" or not case["args"].get("backward"):
        return None
    if any(i["dtype"] not in ("float32", "float64", "int64", "int32", "bool") for i in case["inputs"]):
        return None
    try:
        x = [make_input(i) for i in case["inputs"]]
        leaves = [t.clone().requires_grad_() if t.is_floating_point() else t for t in x]
        y = shaping(case["op"], leaves, case["args"])
        y.backward(y.detach() * 2.0 ** -63)
        return [l.grad * 2.0 ** 64 if l.is_floating_point() and l.grad is not None else None
                for l in leaves]
    except Exception:
        return None


def gemm_overflow_order(case, herr, expect):
    """docs/semantics.md row 27 for matmul, bmm, baddbmm and einsum (and their gradients,
    GEMMs too): where products overflow, the accumulation order (and whether the BLAS fuses
    the multiply and add: fma(99.3, 2.6e38, -inf) is -inf, the rounded product then added is
    +inf, so inf - inf is NaN) gives +inf, -inf or NaN. Accepted where both frameworks are
    non-finite; every other element must agree. A gradient that torch overflows on the way
    to a finite value is compared with torch's gradient computed from the incoming gradient
    scaled by 2^-64 (gradients are linear in it), then scaled back: baddbmm's gradient
    alpha x1^T (2y) with alpha = -0.5 and 2y = 1.35e308 is -6.7e307, which hetero gives
    and torch makes -inf by forming x1^T (2y) first (seed 1130382 case 5871)."""
    if herr or case["op"] not in ("matmul", "bmm", "baddbmm", "einsum") or expect is None:
        return False
    scaled = scaled_gradients(case) if isinstance(expect, tuple) else None

    def as_hetero(want, values, rescued=None):
        flat = want.reshape(-1).clone()
        for k, h in enumerate(as_number(v) for v in values):
            t = flat[k].item()
            if not math.isfinite(t) and isinstance(h, float) and not math.isfinite(h):
                flat[k] = h
            elif not math.isfinite(t) and rescued is not None:
                r = rescued.reshape(-1)[k].item()
                if math.isfinite(r):
                    flat[k] = r
        return flat.reshape(want.shape)

    got = case["result"]
    if isinstance(expect, tuple):
        value, grads = expect
        rescue = scaled if scaled is not None else [None] * len(grads)
        want = (as_hetero(value, got["values"]),
                [g if g is None or hg is None else as_hetero(g, hg, r)
                 for g, hg, r in zip(grads, got["grads"], rescue)])
    elif isinstance(expect, torch.Tensor) and expect.is_floating_point():
        want = as_hetero(expect, got["values"])
    else:
        return False
    return agrees(case, want)


def gelu_zero_sign(case, herr, expect):
    """docs/semantics.md row 48: gelu(-0.0) is -0.0 on every hetero backend (x Phi(x) with
    Phi(0) = 0.5, the IEEE product). torch 1.13's float32 vector kernel gives +0.0 there; its
    scalar loop (fewer than a vector of elements, the tails) and its float64 kernel give
    -0.0. The sign reaches a result through a division or atan2. Compared with torch
    recomputed with gelu(x) = x at every zero x, keeping torch's gradient."""
    if herr or not (case["op"] == "gelu" or '"gelu"' in json.dumps(case["args"])):
        return False
    want = computed_with("GELU_ZERO_KEEPS_SIGN", case)
    return want is not None and agrees(case, want)


def hardsigmoid_exact_sixth(case, herr, expect):
    """docs/semantics.md row 61: hardsigmoid's gradient is g / 6 in the compute dtype; torch
    1.13's kernels multiply by float32's 1 / 6 (0.16666667163...) in every dtype, 3e-8
    relative off in float64. Compared with torch recomputed with the dtype's 1 / 6."""
    if herr or not (case["op"] == "hardsigmoid" or '"hardsigmoid"' in json.dumps(case["args"])):
        return False
    want = computed_with("HARDSIGMOID_EXACT_SIXTH", case)
    return want is not None and agrees(case, want)


def hardswish_scalar_rule(case, herr, expect):
    """docs/semantics.md row 62: hardswish's gradient follows torch's scalar and cuda kernels
    at every element (x <= 3 takes g (x / 3 + 0.5): 1.5 g at exactly 3; g at NaN); torch's
    cpu vector kernel (8 float32 or 4 float64 lanes) gives g at 3 and NaN at NaN. Compared
    with torch recomputed with the scalar rule at every element."""
    if herr or not (case["op"] == "hardswish" or '"hardswish"' in json.dumps(case["args"])):
        return False
    want = computed_with("HARDSWISH_SCALAR_RULE", case)
    return want is not None and agrees(case, want)


def hardtanh_scalar_rule(case, herr, expect):
    """docs/semantics.md row 63: hardtanh's and relu6's gradient at a NaN input is the
    incoming gradient, as torch's scalar and cuda kernels (x <= min or x >= max ? 0 : g);
    torch's cpu vector kernel gives 0 there. Compared with torch recomputed with the scalar
    rule."""
    args = json.dumps(case["args"])
    if herr or not any(case["op"] == op or f'"{op}"' in args for op in ("hardtanh", "relu6")):
        return False
    want = computed_with("HARDTANH_SCALAR_RULE", case)
    return want is not None and agrees(case, want)


def float64_sum_overflow_order(case, herr, expect):
    """docs/semantics.md row 47: a float64 sum or mean whose partial sums overflow in one
    order and not in another ([1e308, 1e308, -1e308, -1e308] is inf in torch's order, 0
    exactly): hetero's cpu backend sums such an output again, scaled, and gives the exact sum
    rounded (inf only where that is beyond float64's largest), and a mean the exact mean
    rounded (torch's mean is its sum / n, inf where the sum overflows). Compared with the
    exact sums and means of the reduced elements (fractions), rounded; with infinities of
    one sign among them (and no NaN), that infinity."""
    if herr or case["cat"] != "reduce" or case["op"] not in ("sum", "mean") \
            or not isinstance(expect, torch.Tensor) or expect.dtype != torch.float64:
        return False
    from fractions import Fraction
    x = make_input(case["inputs"][0])
    if x.dtype != torch.float64:
        return False
    a = case["args"]
    dims = list(range(x.dim())) if a["all"] or x.dim() == 0 else [a["dim"] % x.dim()]
    if "dims" in a and x.dim() > 0:
        dims = sorted({d % x.dim() for d in a["dims"]}) if a["dims"] else list(range(x.dim()))
    kept = [d for d in range(x.dim()) if d not in dims]
    rows = x.permute(kept + dims).reshape(-1, max(1, math.prod(x.shape[d] for d in dims)))
    if math.prod(x.shape[d] for d in dims) == 0:
        return False
    out = []
    for r in rows.tolist():
        if any(math.isnan(v) for v in r) or (math.inf in r and -math.inf in r):
            out.append(math.nan)
            continue
        if math.inf in r or -math.inf in r:  # the infinity, whatever the finite terms
            out.append(math.inf if math.inf in r else -math.inf)
            continue
        exact = sum((Fraction(v) for v in r), Fraction(0))
        if case["op"] == "mean":
            exact /= len(r)
        try:
            out.append(float(exact))
        except OverflowError:
            out.append(math.inf if exact > 0 else -math.inf)
    want = torch.tensor(out, dtype=torch.float64).reshape(expect.shape)
    return agrees(case, want)


def singular_divisor(case, herr, expect):
    """docs/semantics.md row 50: a float32 grad case whose div, fmod or remainder divides by a
    computed subexpression whose zero depends on rounding: torch's float32 value of the
    divisor is 0 where a correctly rounded evaluation (float64, every op's value rounded to
    float32) is not, or the reverse. logsumexp(log_softmax(x)) is 0 in torch, 2^-24 in
    hetero (whose log_softmax is the more accurate, 0.16 ulp against 0.84) and 9.3e-9
    correctly rounded: the result is NaN or a remainder by the last bit, and the gradient
    is that bit amplified 10^7 times. A remainder whose dividend is such a zero jumps by the
    divisor: remainder(-2^-24, d) is d - 2^-24 (seed 1130390 case 6569: hetero 0.42187494,
    torch 0), and so does floor, ceil or sign of one (seed 1130570 case 361:
    floor(logsumexp(log_softmax(x))), hetero -1, torch 0). Zeros that do not depend on rounding (floor of a fraction, fmod(x, x),
    log_softmax of one element) stay compared strictly, as do leaf divisors and float64
    cases; leaves from the tie set do not make a computed zero exact (seed 1130358 case
    6025: logsumexp(log_softmax([-0.5, 1.0])) is 0 in torch, so 0 / 0)."""
    if herr or case["cat"] != "grad" or case["inputs"][0]["dtype"] != "float32":
        return False
    x = [make_input(i) for i in case["inputs"]]
    x64 = [make_input(i, as_float64=True) for i in case["inputs"]]

    def zero_depends_on_rounding(e):
        global ROUND_EACH_OP_TO
        if isinstance(e, int):
            return False
        in_torch = evaluate(e, *x).to(torch.float64)
        ROUND_EACH_OP_TO = torch.float32
        try:
            rounded = evaluate(e, *x64)
        finally:
            ROUND_EACH_OP_TO = None
        in_torch, rounded = torch.broadcast_tensors(in_torch, rounded)
        return bool(((in_torch == 0) != (rounded == 0)).any())

    def divides_by_it(e):
        if isinstance(e, int):
            return False
        if e[0] in ("div", "div_", "fmod", "remainder") and zero_depends_on_rounding(e[2]):
            return True
        if e[0] == "remainder" and zero_depends_on_rounding(e[1]):
            return True
        # A step at 0 (floor(-2^-24) = -1, floor(0) = 0; ceil, sign alike) of such a zero.
        if e[0] in ("floor", "ceil", "sign") and zero_depends_on_rounding(e[1]):
            return True
        return any(divides_by_it(c) for c in e[1:])

    with torch.no_grad():
        return divides_by_it(case["args"]["expr"])


def torch_rounding_noise(case, herr, expect):
    """docs/semantics.md row 51: a grad case whose result torch itself does not fix to the
    bound: with its leaves moved by one or two ulps, torch's own values and gradients spread
    wider than the bound, and hetero's lie within that spread. x0 / (gelu_tanh(x1) x0) has
    the gradient 0 for x0, computed as 1 / b - 1 / b with b = gelu_tanh(x1) x0 (157 at
    x1 = -2.6): one ulp of 157 is 1.5e-5, the bound near 0 is 1e-5, and whether the two terms
    cancel exactly depends on the last bit of gelu_tanh (seed 1130274 case 4777: torch 0,
    hetero 1.5e-5)."""
    if herr or case["cat"] != "grad" or not isinstance(expect, tuple):
        return False
    dt = case["inputs"][0]["dtype"]
    if dt not in ("float32", "float64"):
        return False
    torch_dt = {"float32": torch.float32, "float64": torch.float64}[dt]
    runs = [expect]
    for k in (-2, -1, 1, 2):
        moved = copy.deepcopy(case)
        for spec in moved["inputs"]:
            t = torch.tensor([as_number(v) for v in spec["values"]], dtype=torch.float64).to(torch_dt)
            toward = torch.full_like(t, math.inf if k > 0 else -math.inf)
            for _ in range(abs(k)):
                t = torch.nextafter(t, toward)
            spec["values"] = t.to(torch.float64).tolist()
        try:
            runs.append(compute(moved))
        except Exception:
            return False

    def within_spread(h_values, tensors):
        if any(t is None for t in tensors) or h_values is None:
            return tensors[0]
        stack = torch.stack([t.detach().to(torch.float64).reshape(-1) for t in tensors])
        lo = torch.amin(torch.where(torch.isnan(stack), math.inf, stack), 0)
        hi = torch.amax(torch.where(torch.isnan(stack), -math.inf, stack), 0)
        h = torch.tensor([as_number(v) for v in h_values], dtype=torch.float64)
        want = torch.where(torch.isnan(h), stack[0], torch.minimum(torch.maximum(h, lo), hi))
        return want.reshape(tensors[0].shape).to(tensors[0].dtype)

    got = case["result"]
    value = within_spread(got["values"], [r[0] for r in runs])
    grads = [within_spread(hg, [r[1][i] for r in runs]) for i, hg in enumerate(got["grads"])]
    return agrees(case, (value, grads))


DOCUMENTED = [torch_skips_dtype_check, scalar_rdiv_is_a_division,
              int16_is_int32, masked_fill_takes_bool_masks, negative_into_unsigned,
              isclose_broadcasts, pow_exponent_in_double, scatter_add_src_gradient,
              clamp_nan_bound, integer_conv2d, integer_pools, conv_overflow_times_zero,
              conv_onednn_skips_padding, conv_overflow_order, max_pool_first_nan, adaptive_mean_without_overflow, logical_of_wrapped_scalar,
              torch_negative_size, sign_of_bool, log1p_of_huge,
              baddbmm_beta_zero, repeat_backward_of_empty, prod_pairwise_order,
              elu_gradient_at_nan, fmod_exact, gemm_overflow_order, maximum_zero_tie,
              float64_sum_overflow_order, gelu_zero_sign, singular_divisor, torch_rounding_noise,
              hardsigmoid_exact_sixth, hardswish_scalar_rule, hardtanh_scalar_rule]


def check(case):
    """'ok', 'errors', 'unsupported', 'documented', or raises Failure."""
    try:
        return check_strictly(case)
    except Failure:
        try:
            expect = compute(case)
        except Exception:
            expect = None
        if any(rule(case, case.get("error"), expect) for rule in DOCUMENTED):
            return "documented"
        raise


def check_strictly(case):
    try:
        expect = compute(case)
        torch_error = None
    except Exception as e:  # torch raises RuntimeError, IndexError, ValueError, TypeError
        expect, torch_error = None, f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    herr = case.get("error")
    if torch_error and any(s in torch_error for s in TORCH_LACKS):
        # No torch kernel for the 16-bit dtype: hetero against the float64 computation,
        # rounded to the input's dtype (the result dtype torch's own rules give these ops).
        half = DTYPES[next(i["dtype"] for i in case["inputs"] if i["dtype"] in ("float16", "bfloat16"))]
        if len(case["inputs"]) == 2:  # two operands: torch's promotion (a 0-dim one ranks lower)
            half = torch.result_type(*(make_input(i) for i in case["inputs"]))
        try:
            # A binary op's operands converted to their common dtype first, as torch's kernel
            # would (an int32 2147483647 beside float16 is inf), then computed in float64.
            reference = compute(case, as_float64=True,
                                through=half if case["cat"] == "binary" and len(case["inputs"]) == 2 else None)
        except Exception:
            return "unsupported"
        if herr:  # e.g. mixed dtypes: the float64 computation cannot tell
            return "unsupported"
        compare(case, case["result"], reference.to(half), None)
        return "vs_float64"
    if herr and herr["type"] == "untyped":
        raise Failure(f"hetero raised an untyped exception: {herr['message']}")
    if herr and torch_error:
        return "errors"
    if herr:
        raise Failure(f"hetero raised {herr['type']}: {herr['message']}; torch returned a result")
    if torch_error:
        raise Failure(f"torch raised {torch_error}; hetero returned {case['result']['dtype']} {case['result']['shape']}")
    try:
        reference = compute(case, as_float64=True) if case["cat"] not in ("factory", "view") else None
    except Exception:
        reference = None
    compare(case, case["result"], expect, reference)
    return "ok"


# --- reproducers ---------------------------------------------------------------------------
def fmt_values(spec, cpp):
    vals = spec["values"]
    if is_float(spec["dtype"]):
        def one(v):
            if isinstance(v, str):
                if cpp:
                    return {"nan": "NAN", "inf": "INFINITY", "-inf": "-INFINITY"}[v]
                return f"float('{v}')"
            return repr(float(v))
        return ", ".join(one(v) for v in vals)
    return ", ".join(str(v) for v in vals)


def reproducer(case):
    cpp, py = [], []
    for k, spec in enumerate(case["inputs"]):
        base = ", ".join(str(d) for d in spec["base"])
        fl = is_float(spec["dtype"])
        ctype = "double" if fl else "std::int64_t"
        views_c = "".join(f".transpose({v[1]}, {v[2]})" if v[0] == "transpose" else f".narrow({v[1]}, {v[2]}, {v[3]})"
                          for v in spec["views"])
        cpp.append(f"Tensor x{k} = from_vector(std::vector<{ctype}>{{{fmt_values(spec, True)}}}, {{{base}}})"
                   f".to(DType::{CPP_DTYPE[spec['dtype']]}){views_c};")
        py.append(f"x{k} = torch.tensor([{fmt_values(spec, False)}], dtype=torch.{'float64' if fl else 'int64'})"
                  f".reshape([{base}]).to(torch.{NAMES[DTYPES[spec['dtype']]]}){views_c}")
    cat, op, a = case["cat"], case["op"], case["args"]
    c_expr, p_expr = {
        "unary": (f"{op}(x0)", f"torch.{op}(x0)"),
        "binary": (f"{op}(x0, x1)", f"torch.{op}(x0, x1)"),
        "matmul": ("matmul(x0, x1)", "torch.matmul(x0, x1)"),
        "cast": (f"x0.to(DType::{CPP_DTYPE.get(a.get('dtype'), '')})", f"x0.to(torch.{a.get('dtype')})"),
    }.get(cat, (f"/* {cat} {op} with args {json.dumps(a)} */", f"# {cat} {op} with args {json.dumps(a)}"))
    cpp.append(f"Tensor r = {c_expr};")
    py.append(f"r = {p_expr}")
    return "    C++:   " + "\n           ".join(cpp) + "\n    torch: " + "\n           ".join(py)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases")
    ap.add_argument("--max-report", type=int, default=20)
    args = ap.parse_args()
    torch.set_num_threads(1)
    start = time.time()
    counts = defaultdict(Counter)
    failures = []
    device = "?"
    with open(args.cases) as f:
        for line in f:
            case = json.loads(line)
            try:
                outcome = check(case)
            except Failure as e:
                outcome = "FAILED"
                failures.append((case, str(e)))
            counts[case["cat"]][outcome] += 1
    seconds = time.time() - start
    total = Counter()
    print(f"{'category':10s} {'cases':>6s} {'compared':>9s} {'both raise':>11s} {'vs float64':>11s} "
          f"{'torch lacks':>12s} {'documented':>11s} {'failed':>7s}")
    for cat in sorted(counts) + ["all"]:
        c = counts[cat] if cat != "all" else total
        if cat != "all":
            total.update(c)
        print(f"{cat:10s} {sum(c.values()):6d} {c['ok']:9d} {c['errors']:11d} {c['vs_float64']:11d} "
              f"{c['unsupported']:12d} {c['documented']:11d} {c['FAILED']:7d}")
    print(f"torch side: {seconds:.1f} s. 'vs float64': torch has no kernel for the 16-bit dtype, so "
          "hetero is compared with torch's float64 result rounded; 'documented': a difference "
          "docs/semantics.md lists")
    for case, why in failures[: args.max_report]:
        print(f"\ncase {case['id']} ({case['cat']} {case['op']}): {why}")
        print(reproducer(case))
        print(f"    rerun: torch_diff --seed SEED --first {case['id']} --cases 1 --out one.jsonl && "
              f"torch_oracle.py one.jsonl")
    if len(failures) > args.max_report:
        print(f"\n... and {len(failures) - args.max_report} more")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
