// fill, copy, unary, binary and GEMM's k = 0 scaling for one element type, compiled with
//   -DT=<type> -DAS_T=as_<type> -DUT=<unsigned type> -DIS_FLOAT=0|1 -DIS_BOOL=0|1
//   -DST=<storage type> -DKIND=0|1|2 (common.cl: float16/bfloat16 compute in float)
// The element rules are the op tables' (sdk/include/hetero/sdk/op_table.hpp), put before
// this file as HETERO_*_CASES by op_rules.cpp; op numbers are hetero::UnaryOp / BinaryOp.

__kernel void fill(__global ST* out, VIEW(o), long n, T value) {
  FOR_EACH(i, n) STORE(out, AT(o, i), value);
}

__kernel void copy(__global const ST* in, VIEW(a), __global ST* out, VIEW(o), long n) {
  FOR_EACH(i, n) STORE(out, AT(o, i), LOAD(in, AT(a, i)));
}

#if !IS_BOOL
// The integer rules' helpers (as elementwise_ops.hpp's): two's complement without signed
// overflow, division without a trap. The (UT) after the arithmetic brings char and uchar,
// which C promotes to int, back to their width; MIN / -1 wraps for signed T only (for
// uchar, (T)-1 is 255).
#if !IS_FLOAT
inline int is_negative(T x) { return x < (T)0; }
inline T wrap_neg(T x) { return AS_T((UT)((UT)0 - (UT)x)); }
inline T wrap_add(T x, T y) { return AS_T((UT)((UT)x + (UT)y)); }
inline T wrap_sub(T x, T y) { return AS_T((UT)((UT)x - (UT)y)); }
inline T wrap_mul(T x, T y) { return AS_T((UT)((UT)x * (UT)y)); }
inline T wrap_div(T x, T y) {
  return y == (T)0 ? (T)0 : ((T)-1 < (T)0 && y == (T)-1 ? wrap_neg(x) : (T)(x / y));
}
// C's % without a trap (0 for y == 0 and MIN % -1), and Python's % (torch.remainder), as
// elementwise_ops.hpp's wrap_fmod / wrap_remainder.
inline T wrap_fmod(T x, T y) {
  return y == (T)0 || ((T)-1 < (T)0 && y == (T)-1) ? (T)0 : (T)(x % y);
}
inline T wrap_remainder(T x, T y) {
  T r = wrap_fmod(x, y);
  return r != (T)0 && ((T)-1 < (T)0) && ((r < (T)0) != (y < (T)0)) ? (T)(r + y) : r;
}
// Integer power by squaring, wrapping; a negative exponent gives 1 / x^|y| truncated (1 for
// x == 1, +-1 for x == -1, else 0), as torch.pow.
inline T wrap_pow(T x, T y) {
  if (is_negative(y)) {
    if (x == (T)1) return (T)1;
    if ((T)-1 < (T)0 && x == (T)-1) return (y & (T)1) ? x : (T)1;
    return (T)0;
  }
  ulong r = 1, b = (ulong)(long)x;
  for (ulong e = (ulong)y; e != 0; e >>= 1) {
    if (e & 1) r *= b;
    b *= b;
  }
  return AS_T((UT)r);
}
#endif

#if IS_FLOAT
// tanh, exactly +-1 where the correctly rounded result is: OpenCL allows tanh 5 ulps, and
// PoCL's stays 1 ulp short of +-1 beyond the saturation point (|x| >= 13 ln 2 = 9.0109 in
// float, 27.5 ln 2 = 19.0618 in double). That ulp made 1 + tanh(u) (gelu's tanh form) and
// 1 - tanh(x)^2 (tanh's gradient) nonzero where torch's are 0 (the differential test on
// opencl:0, seed 24). The rows' rule `tanh(x)` comes here through the macro.
#if IS_DOUBLE
#define HETERO_TANH_IS_ONE 19.0619
#else
#define HETERO_TANH_IS_ONE 9.0110f
#endif
inline T hetero_tanh(T x) { return fabs(x) >= HETERO_TANH_IS_ONE ? copysign((T)1, x) : tanh(x); }
// (tanh may be a macro of the OpenCL headers: PoCL warns "macro redefined" without the undef)
#undef tanh
#define tanh(x) hetero_tanh(x)
#endif

// One case per row of the op tables (op_rules.cpp); the host asks supports() first, so an
// op without a case for T is never launched.
inline T unary_op(int op, T x) {
  switch (op) {
#if IS_FLOAT
    HETERO_UNARY_FLOAT_CASES
#else
    HETERO_UNARY_INT_CASES
#endif
  }
  return x;  // not reached
}

inline T binary_op(int op, T x, T y) {
  switch (op) {
#if IS_FLOAT
    HETERO_BINARY_FLOAT_CASES
#else
    HETERO_BINARY_INT_CASES
#endif
  }
  return x;  // not reached
}

__kernel void unary(int op, __global const ST* in, VIEW(a), __global ST* out, VIEW(o), long n) {
  FOR_EACH(i, n) STORE(out, AT(o, i), unary_op(op, LOAD(in, AT(a, i))));
}

__kernel void binary(int op, __global const ST* a, VIEW(x), __global const ST* b, VIEW(y),
                     __global ST* out, VIEW(o), long n) {
  FOR_EACH(i, n) STORE(out, AT(o, i), binary_op(op, LOAD(a, AT(x, i)), LOAD(b, AT(y, i))));
}
#endif

// The ternary rows (every dtype, bool included): out = f(c, x, y).
inline T ternary_op(int op, T c, T x, T y) {
  switch (op) { HETERO_TERNARY_CASES }
  return x;  // not reached
}

__kernel void ternary(int op, __global const ST* c, VIEW(w), __global const ST* a, VIEW(x),
                      __global const ST* b, VIEW(y), __global ST* out, VIEW(o), long n) {
  FOR_EACH(i, n) {
    STORE(out, AT(o, i),
          ternary_op(op, LOAD(c, AT(w, i)), LOAD(a, AT(x, i)), LOAD(b, AT(y, i))));
  }
}
