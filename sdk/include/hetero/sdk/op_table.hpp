// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file op_table.hpp
/// Note [Op tables]: every op of a family is one row of an X-macro list, as c10's
/// C10_FORALL_SCALAR_TYPES (design and the recipe for a new op: docs/design/op-tables.md).
/// Everything that lists the ops is generated from these rows: the enums UnaryOp, BinaryOp
/// and ReductionOp, op_name(), the compile-time visitors, the element rules of every backend
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
/// - since: the interface minor of the row's group: written `since` in every row, the
///   parameter through which the group list (HETERO_UNARY_OP_GROUPS, ...) passes it;
/// - dtypes: `floating` (float16, bfloat16, float32, float64; the core computes integer and
///   bool input in float32, as torch.exp) or `numeric` (those and int8, uint8, int32,
///   int64 by the integer rule; bool refused);
/// - floating_rule: the result for one element `x` of a floating type (computed in float for
///   the 16-bit types, double for float64), in the common subset of C++ and OpenCL C: the
///   <cmath> / OpenCL built-in functions, arithmetic, comparisons and ?:;
/// - integer_rule: the same for int8, uint8, int32 and int64 (`numeric` rows only;
///   HETERO_NO_INTEGER_RULE for `floating` rows, unary or binary), with the helpers wrap_neg /
///   wrap_add / wrap_sub / wrap_mul / wrap_div (wrap-around) and is_negative (false for uint8) of
///   elementwise_ops.hpp and OpenCL's elementwise.cl;
/// - saves: what the backward formula reads besides g: `input` (x), `output` (y) or
///   `nothing`;
/// - backward: the gradient of the input as a tensor expression of g (the output's
///   gradient), x and y; read only by the core (core/src/ops_elementwise.cpp), never by a
///   backend.
/// Binary rows: _(name, since, dtypes, floating_rule, integer_rule, saves, grad_a, grad_b)
/// with rules of `x` and `y`, saves `inputs` (a and b) or `shapes`, and each gradient an
/// expression of g, a and b before it is summed back to its input's shape, in the order of
/// operations of torch 1.13's derivatives.yaml (div's b: `-g * ((a / b) / b)`, which is
/// exactly `-g / b` where a == b, so the two gradients of x / x cancel to 0, and which does
/// not overflow where b * b would). dtypes:
/// - `arithmetic`: every dtype but bool, computed in the operands' promoted dtype
///   (torch.result_type) with the integer rule for the integers;
/// - `floating`: the floating dtypes only; the core computes integer and bool operands in
///   float32 (as torch.div, torch.atan2, torch.hypot: the result of two int tensors is
///   float32), so the integer rule is HETERO_NO_INTEGER_RULE. The core's promotion reads
///   this column (never an op's name);
/// - `comparison` (minor 4): arithmetic dtypes, the rule gives 1 or 0 in the operands'
///   dtype, and the core's public function returns it as bool, without a gradient (as
///   torch.eq); saves `nothing`, gradients `no_gradient`.
/// Ternary rows (minor 4): _(name, since, dtypes, rule) with dtypes `every` and a rule of
/// `c`, `x` and `y` computed in the element type (float for the 16-bit types); the three
/// operands and out share one dtype (the core converts a bool condition first).
/// Reduction rows: _(name, since, dtypes, kind, finish) with dtypes `arithmetic` or
/// `floating`, kind `sum` (accumulates x), `squares` (accumulates x * x), `extremum` (max or
/// min) or `index` (the position of the maximum), and finish the result of an accumulating
/// row from `acc` (the accumulated value, double or int64) and `count` (the number of
/// elements reduced, >= 1).
#include <hetero/sdk/interface_version.hpp>

/// The integer_rule column of a `floating` row (unary or binary). Never evaluated: the kernels take
/// only floating dtypes for such a row (the core computes an integer input in float32), and code
/// that instantiates it for an integer type fails to compile (ops_detail::no_integer_rule in
/// elementwise_ops.hpp), instead of silently computing `x`.
#define HETERO_NO_INTEGER_RULE ::hetero::ops_detail::no_integer_rule(x)

// clang-format off
#define HETERO_UNARY_OPS_MINOR_0(_, since)                                                                 \
  _(neg,     since, numeric,  -x,                     wrap_neg(x),               nothing, -g)                   \
  _(exp,     since, floating, exp(x),                 HETERO_NO_INTEGER_RULE,    output,  g * y)                \
  _(log,     since, floating, log(x),                 HETERO_NO_INTEGER_RULE,    input,   g / x)                \
  _(sqrt,    since, floating, sqrt(x),                HETERO_NO_INTEGER_RULE,    output,  g / (2.0 * y))        \
  _(abs,     since, numeric,  fabs(x),                (is_negative(x) ? wrap_neg(x) : x), input, g * sign(x))      \
  _(relu,    since, numeric,  (x < 0 ? 0 : x),        (x > 0 ? x : 0),           output,  relu_gradient(g, y))   \
  _(sigmoid, since, floating, 1 / (1 + exp(-x)),      HETERO_NO_INTEGER_RULE,    output,  g * y * (1.0 - y))    \
  _(tanh,    since, floating, tanh(x),                HETERO_NO_INTEGER_RULE,    output,  g * (1.0 - y * y))
#if HETERO_TARGET_INTERFACE_MINOR >= 1
#define HETERO_UNARY_OPS_MINOR_1(_, since)                                                                 \
  _(sin,     since, floating, sin(x),                 HETERO_NO_INTEGER_RULE,    input,   g * cos(x))           \
  _(cos,     since, floating, cos(x),                 HETERO_NO_INTEGER_RULE,    input,   -g * sin(x))
#else
#define HETERO_UNARY_OPS_MINOR_1(_, since)
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 5
#define HETERO_UNARY_OPS_MINOR_5(_, since)                                                                 \
  _(log1p,   since, floating, log1p(x),               HETERO_NO_INTEGER_RULE,    input,   g / (1.0 + x))        \
  _(expm1,   since, floating, expm1(x),               HETERO_NO_INTEGER_RULE,    output,  g * (y + 1.0))        \
  _(rsqrt,   since, floating, 1 / sqrt(x),            HETERO_NO_INTEGER_RULE,    output,  -0.5 * g * y * y * y)
#else
#define HETERO_UNARY_OPS_MINOR_5(_, since)
#endif
#if HETERO_TARGET_INTERFACE_MINOR >= 11
// Rounding keeps integers as they are (torch.floor of an int64 tensor is the tensor); round
// is to nearest, ties to even (rint under the default rounding mode, as torch.round); sign
// is 0 at 0 and at NaN (torch 1.13's (0 < x) - (x < 0)). Their gradients are 0.
#define HETERO_UNARY_OPS_MINOR_11(_, since)                                                          \
  _(erf,        since, floating, erf(x),                 HETERO_NO_INTEGER_RULE, input,   g * 1.1283791670955126 * exp(-(x * x))) \
  _(reciprocal, since, floating, 1 / x,                  HETERO_NO_INTEGER_RULE, output,  -g * y * y)    \
  _(floor,      since, numeric,  floor(x),               x,                      nothing, zeros_like(g)) \
  _(ceil,       since, numeric,  ceil(x),                x,                      nothing, zeros_like(g)) \
  _(round,      since, numeric,  rint(x),                x,                      nothing, zeros_like(g)) \
  _(trunc,      since, numeric,  trunc(x),               x,                      nothing, zeros_like(g)) \
  _(sign,       since, numeric,  (x > 0 ? 1 : (x < 0 ? -1 : 0)), (x > 0 ? 1 : (is_negative(x) ? -1 : 0)), nothing, zeros_like(g))
#else
#define HETERO_UNARY_OPS_MINOR_11(_, since)
#endif

#define HETERO_BINARY_OPS_MINOR_0(_, since)                                                                \
  _(add,     since, arithmetic, x + y,                           wrap_add(x, y), shapes, g,     g)      \
  _(sub,     since, arithmetic, x - y,                           wrap_sub(x, y), shapes, g,     -g)     \
  _(mul,     since, arithmetic, x * y,                           wrap_mul(x, y), inputs, g * b, g * a)  \
  _(div,     since, floating,   x / y,                           HETERO_NO_INTEGER_RULE, inputs, g / b, -g * ((a / b) / b)) \
  _(maximum, since, arithmetic, (x != x || x > y) ? x : y,       (x > y ? x : y), inputs,            \
    extremum_gradient(g, a, b, true),  extremum_gradient(g, b, a, true))                               \
  _(minimum, since, arithmetic, (x != x || x < y) ? x : y,       (x < y ? x : y), inputs,            \
    extremum_gradient(g, a, b, false), extremum_gradient(g, b, a, false))

#if HETERO_TARGET_INTERFACE_MINOR >= 4
#define HETERO_BINARY_OPS_MINOR_4(_, since)                                                                \
  _(eq,      since, comparison, (x == y ? 1 : 0),                (x == y ? 1 : 0), nothing, no_gradient, no_gradient) \
  _(ne,      since, comparison, (x != y ? 1 : 0),                (x != y ? 1 : 0), nothing, no_gradient, no_gradient) \
  _(lt,      since, comparison, (x < y ? 1 : 0),                 (x < y ? 1 : 0),  nothing, no_gradient, no_gradient) \
  _(le,      since, comparison, (x <= y ? 1 : 0),                (x <= y ? 1 : 0), nothing, no_gradient, no_gradient) \
  _(gt,      since, comparison, (x > y ? 1 : 0),                 (x > y ? 1 : 0),  nothing, no_gradient, no_gradient) \
  _(ge,      since, comparison, (x >= y ? 1 : 0),                (x >= y ? 1 : 0), nothing, no_gradient, no_gradient) \
  _(pow,     since, arithmetic, pow(x, y),                       wrap_pow(x, y),   inputs,            \
    pow_grad_base(g, a, b),          pow_grad_exponent(g, a, b))

#define HETERO_TERNARY_OPS_MINOR_4(_, since)                       \
  _(where,  since, every,      (c != 0 ? x : y))
#else
#define HETERO_BINARY_OPS_MINOR_4(_, since)
#define HETERO_TERNARY_OPS_MINOR_4(_, since)
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 11
// atan2(y, x) of the two operands, as torch.atan2 (a `floating` row: integers in float32).
#define HETERO_BINARY_OPS_MINOR_11(_, since)                                                         \
  _(atan2,   since, floating,   atan2(x, y),                     HETERO_NO_INTEGER_RULE, inputs,   \
    g * b / (a * a + b * b),         -g * a / (a * a + b * b))
#else
#define HETERO_BINARY_OPS_MINOR_11(_, since)
#endif

#if HETERO_TARGET_INTERFACE_MINOR >= 12
// fmod and remainder, as torch.fmod (C's fmod: the sign of the dividend) and torch.remainder
// (Python's %: the sign of the divisor; torch 1.13's kernel adds y to a nonzero fmod of the
// other sign). Floating x / 0 is NaN; the core refuses an integer divisor of 0 before the
// kernel (ZeroDivisionError, as torch's cpu kernels), and the integer rules never trap
// (wrap_fmod / wrap_remainder). Gradients as torch's derivatives.yaml: g for the dividend,
// -g * div(a, b, rounding_mode="trunc" / "floor") for the divisor (the core's
// floor_division: torch's floor division, not floor(a / b), which differs at 1 // 0.1).
#define HETERO_BINARY_OPS_MINOR_12(_, since)                                                         \
  _(fmod,      since, arithmetic, fmod(x, y),                 wrap_fmod(x, y),      inputs,        \
    g,                               -g * trunc(a / b))                                              \
  _(remainder, since, arithmetic,                                                                    \
    ((fmod(x, y) != 0 && ((fmod(x, y) < 0) != (y < 0))) ? fmod(x, y) + y : fmod(x, y)),             \
    wrap_remainder(x, y), inputs,    g,                               -g * floor_division(a, b))
#else
#define HETERO_BINARY_OPS_MINOR_12(_, since)
#endif

#define HETERO_REDUCE_OPS_MINOR_0(_, since)                        \
  _(sum,    since, arithmetic, sum,      acc)                   \
  _(mean,   since, floating,   sum,      acc / count)           \
  _(max,    since, arithmetic, extremum, acc)                   \
  _(min,    since, arithmetic, extremum, acc)                   \
  _(norm,   since, floating,   squares,  sqrt(acc))             \
  _(argmax, since, arithmetic, index,    acc)
// clang-format on

/// The minor groups of each family, oldest first: one G(FAMILY, n, X) per group
/// `HETERO_<FAMILY>_OPS_MINOR_<n>`. This list is the only place a group's number is written:
/// the group's macro is named from it and its rows get their `since` from it (the rows say
/// `since`, the group macro's parameter), so a row's minor cannot disagree with its group.
/// A group left out of this list is in no table (the op does not exist anywhere: its
/// declaration in ops.hpp has no definition and `OpTables.*` fail); groups out of order fail
/// the static_assert in op_codes.hpp ("groups must be listed oldest first").
/// @{
#define HETERO_UNARY_OP_GROUPS(G, X) G(UNARY, 0, X) G(UNARY, 1, X) G(UNARY, 5, X) G(UNARY, 11, X)
#define HETERO_BINARY_OP_GROUPS(G, X) \
  G(BINARY, 0, X) G(BINARY, 4, X) G(BINARY, 11, X) G(BINARY, 12, X)
#define HETERO_TERNARY_OP_GROUPS(G, X) G(TERNARY, 4, X)
#define HETERO_REDUCE_OP_GROUPS(G, X) G(REDUCE, 0, X)
/// @}

/// The rows of one group, each given `_` and the group's minor as its `since`.
#define HETERO_OP_GROUP_ROWS(family, n, _) HETERO_##family##_OPS_MINOR_##n(_, n)

/// Every unary op (the rows of every minor up to HETERO_TARGET_INTERFACE_MINOR).
#define HETERO_FORALL_UNARY_OPS(_) HETERO_UNARY_OP_GROUPS(HETERO_OP_GROUP_ROWS, _)
/// Every binary op.
#define HETERO_FORALL_BINARY_OPS(_) HETERO_BINARY_OP_GROUPS(HETERO_OP_GROUP_ROWS, _)
/// Every ternary op (none before minor 4).
#define HETERO_FORALL_TERNARY_OPS(_) HETERO_TERNARY_OP_GROUPS(HETERO_OP_GROUP_ROWS, _)
/// Every reduction.
#define HETERO_FORALL_REDUCE_OPS(_) HETERO_REDUCE_OP_GROUPS(HETERO_OP_GROUP_ROWS, _)
