// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file op_table.hpp
/// Note [Op tables]: every op of a family is one row of an X-macro list, as c10's
/// C10_FORALL_SCALAR_TYPES (design and the recipe for a new op: docs/design/op-tables.md).
/// Everything that lists the ops is generated from these rows: the enums UnaryOp, BinaryOp
/// and ReduceOp, op_name(), the compile-time visitors, the element rules of every backend
/// (C++ and CUDA through elementwise_ops.hpp, OpenCL C through the rule's text), the default
/// Backend::supports(), the conformance case lists and the core's public functions with
/// their autograd nodes.
///
/// Rows are grouped by the interface minor that added them (Note [Interface versions],
/// interface_version.hpp); a group newer than HETERO_TARGET_INTERFACE_MINOR is left out,
/// so a plugin built for an older minor knows only the ops of that minor. Enum values
/// follow row order, so rows are only ever appended: never reordered or removed.
///
/// Columns of a unary row: _(name, since, dtypes, floating_rule, integer_rule, saves, backward)
/// - name: the op's name, as torch spells it (the enum value, op_name(), hetero::<name>());
/// - since: the interface minor of the row's group;
/// - dtypes: `floating` (float16, bfloat16, float32, float64; the core computes integer and
///   bool input in float32, as torch.exp) or `signed` (those and int32, int64);
/// - floating_rule: the result for one element `x` of a floating type (computed in float for
///   the 16-bit types, double for float64), in the common subset of C++ and OpenCL C: the
///   <cmath> / OpenCL built-in functions, arithmetic, comparisons and ?:;
/// - integer_rule: the same for int8, uint8, int32 and int64 (`signed` rows only;
///   HETERO_NO_INTEGER_RULE otherwise), with the helpers wrap_neg / wrap_add / wrap_sub /
///   wrap_mul / wrap_div (wrap-around) and is_negative (false for uint8) of
///   elementwise_ops.hpp and OpenCL's elementwise.cl;
/// - saves: what the backward formula reads besides g: `input` (x), `output` (y) or
///   `nothing`;
/// - backward: the gradient of the input as a tensor expression of g (the output's
///   gradient), x and y; read only by the core (core/src/ops_elementwise.cpp), never by a
///   backend.
/// Binary rows: _(name, since, dtypes, floating_rule, integer_rule, saves, grad_a, grad_b)
/// with dtypes `arithmetic` (every dtype but bool), rules of `x` and `y`, saves `inputs`
/// (a and b) or `shapes`, and each gradient an expression of g, a and b before it is summed
/// back to its input's shape. dtypes `comparison` (minor 4): arithmetic dtypes, the rule
/// gives 1 or 0 in the operands' dtype, and the core's public function returns it as bool,
/// without a gradient (as torch.eq); saves `nothing`, gradients `no_gradient`.
/// Ternary rows (minor 4): _(name, since, dtypes, rule) with dtypes `every` and a rule of
/// `c`, `x` and `y` computed in the element type (float for the 16-bit types); the three
/// operands and out share one dtype (the core converts a bool condition first).
/// Reduction rows: _(name, since, dtypes, kind, finish) with dtypes `arithmetic` or
/// `floating`, kind `sum` (accumulates x), `squares` (accumulates x * x), `extremum` (max or
/// min) or `index` (the position of the maximum), and finish the result of an accumulating
/// row from `acc` (the accumulated value, double or int64) and `count` (the number of
/// elements reduced, >= 1).
#include <hetero/sdk/interface_version.hpp>

/// The integer_rule column of a `floating` row. Never evaluated: the kernels take only
/// floating dtypes for such a row (the core computes an integer input in float32), and code
/// that instantiates it for an integer type fails to compile (ops_detail::no_integer_rule in
/// elementwise_ops.hpp), instead of silently computing `x`.
#define HETERO_NO_INTEGER_RULE ::hetero::ops_detail::no_integer_rule(x)

// clang-format off
#define HETERO_UNARY_OPS_MINOR_0(_)                                                                 \
  _(neg,     0, signed,   -x,                     wrap_neg(x),               nothing, -g)                   \
  _(exp,     0, floating, exp(x),                 HETERO_NO_INTEGER_RULE,    output,  g * y)                \
  _(log,     0, floating, log(x),                 HETERO_NO_INTEGER_RULE,    input,   g / x)                \
  _(sqrt,    0, floating, sqrt(x),                HETERO_NO_INTEGER_RULE,    output,  g / (2.0 * y))        \
  _(abs,     0, signed,   fabs(x),                (is_negative(x) ? wrap_neg(x) : x), input, g * sign(x))      \
  _(relu,    0, signed,   (x > 0 || x != x ? x : 0), (x > 0 ? x : 0),        output,  g * nonzero_mask(y))  \
  _(sigmoid, 0, floating, 1 / (1 + exp(-x)),      HETERO_NO_INTEGER_RULE,    output,  g * y * (1.0 - y))    \
  _(tanh,    0, floating, tanh(x),                HETERO_NO_INTEGER_RULE,    output,  g * (1.0 - y * y))
#if HETERO_TARGET_INTERFACE_MINOR >= 1
#define HETERO_UNARY_OPS_MINOR_1(_)                                                                 \
  _(sin,     1, floating, sin(x),                 HETERO_NO_INTEGER_RULE,    input,   g * cos(x))           \
  _(cos,     1, floating, cos(x),                 HETERO_NO_INTEGER_RULE,    input,   -g * sin(x))
#else
#define HETERO_UNARY_OPS_MINOR_1(_)
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 5
#define HETERO_UNARY_OPS_MINOR_5(_)                                                                 \
  _(log1p,   5, floating, log1p(x),               HETERO_NO_INTEGER_RULE,    input,   g / (1.0 + x))        \
  _(expm1,   5, floating, expm1(x),               HETERO_NO_INTEGER_RULE,    output,  g * (y + 1.0))        \
  _(rsqrt,   5, floating, 1 / sqrt(x),            HETERO_NO_INTEGER_RULE,    output,  -0.5 * g * y * y * y)
#else
#define HETERO_UNARY_OPS_MINOR_5(_)
#endif

#define HETERO_BINARY_OPS_MINOR_0(_)                                                                \
  _(add,     0, arithmetic, x + y,                           wrap_add(x, y), shapes, g,     g)      \
  _(sub,     0, arithmetic, x - y,                           wrap_sub(x, y), shapes, g,     -g)     \
  _(mul,     0, arithmetic, x * y,                           wrap_mul(x, y), inputs, g * b, g * a)  \
  _(div,     0, arithmetic, x / y,                           wrap_div(x, y), inputs, g / b, -g * a / (b * b)) \
  _(maximum, 0, arithmetic, (x != x || x > y) ? x : y,       (x > y ? x : y), inputs,            \
    g * extremum_share(a, b, true),  g * extremum_share(b, a, true))                               \
  _(minimum, 0, arithmetic, (x != x || x < y) ? x : y,       (x < y ? x : y), inputs,            \
    g * extremum_share(a, b, false), g * extremum_share(b, a, false))

#if HETERO_TARGET_INTERFACE_MINOR >= 4
#define HETERO_BINARY_OPS_MINOR_4(_)                                                                \
  _(eq,      4, comparison, (x == y ? 1 : 0),                (x == y ? 1 : 0), nothing, no_gradient, no_gradient) \
  _(ne,      4, comparison, (x != y ? 1 : 0),                (x != y ? 1 : 0), nothing, no_gradient, no_gradient) \
  _(lt,      4, comparison, (x < y ? 1 : 0),                 (x < y ? 1 : 0),  nothing, no_gradient, no_gradient) \
  _(le,      4, comparison, (x <= y ? 1 : 0),                (x <= y ? 1 : 0), nothing, no_gradient, no_gradient) \
  _(gt,      4, comparison, (x > y ? 1 : 0),                 (x > y ? 1 : 0),  nothing, no_gradient, no_gradient) \
  _(ge,      4, comparison, (x >= y ? 1 : 0),                (x >= y ? 1 : 0), nothing, no_gradient, no_gradient) \
  _(pow,     4, arithmetic, pow(x, y),                       wrap_pow(x, y),   inputs,            \
    pow_grad_base(g, a, b),          pow_grad_exponent(g, a, b))

#define HETERO_TERNARY_OPS_MINOR_4(_)                       \
  _(where,  4, every,      (c != 0 ? x : y))
#else
#define HETERO_BINARY_OPS_MINOR_4(_)
#define HETERO_TERNARY_OPS_MINOR_4(_)
#endif

#define HETERO_REDUCE_OPS_MINOR_0(_)                        \
  _(sum,    0, arithmetic, sum,      acc)                   \
  _(mean,   0, floating,   sum,      acc / count)           \
  _(max,    0, arithmetic, extremum, acc)                   \
  _(min,    0, arithmetic, extremum, acc)                   \
  _(norm,   0, floating,   squares,  sqrt(acc))             \
  _(argmax, 0, arithmetic, index,    acc)
// clang-format on

/// Every unary op (the rows of every minor up to HETERO_TARGET_INTERFACE_MINOR).
#define HETERO_FORALL_UNARY_OPS(_) \
  HETERO_UNARY_OPS_MINOR_0(_) HETERO_UNARY_OPS_MINOR_1(_) HETERO_UNARY_OPS_MINOR_5(_)
/// Every binary op.
#define HETERO_FORALL_BINARY_OPS(_) HETERO_BINARY_OPS_MINOR_0(_) HETERO_BINARY_OPS_MINOR_4(_)
/// Every ternary op (none before minor 4).
#define HETERO_FORALL_TERNARY_OPS(_) HETERO_TERNARY_OPS_MINOR_4(_)
/// Every reduction.
#define HETERO_FORALL_REDUCE_OPS(_) HETERO_REDUCE_OPS_MINOR_0(_)
