// fill, copy, unary, binary and GEMM's k = 0 scaling for one element type, compiled with
//   -DT=<type> -DAS_T=as_<type> -DUT=<unsigned type> -DIS_FLOAT=0|1 -DIS_BOOL=0|1
//   -DST=<storage type> -DKIND=0|1|2 (common.cl: float16/bfloat16 compute in float)
// Semantics are hetero's (sdk/include/hetero/sdk/kernel_args.hpp): integer + - * wrap
// (computed in the unsigned type), integer division by 0 gives 0, NaN propagates through
// maximum/minimum. Op numbers are hetero::UnaryOp / hetero::BinaryOp.

__kernel void fill(__global ST* out, VIEW(o), long n, T value) {
  FOR_EACH(i, n) STORE(out, AT(o, i), value);
}

__kernel void copy(__global const ST* in, VIEW(a), __global ST* out, VIEW(o), long n) {
  FOR_EACH(i, n) STORE(out, AT(o, i), LOAD(in, AT(a, i)));
}

#if !IS_BOOL
inline T wrap_sub(T x, T y) {
#if IS_FLOAT
  return x - y;
#else
  return AS_T((UT)x - (UT)y);
#endif
}

inline T unary_op(int op, T x) {
  switch (op) {
    case 0: return wrap_sub((T)0, x);                 // neg
    case 4: return x < (T)0 ? wrap_sub((T)0, x) : x;  // abs
    case 5: return x > (T)0 ? x : (T)0;               // relu (NaN -> 0)
#if IS_FLOAT
    case 1: return exp(x);
    case 2: return log(x);
    case 3: return sqrt(x);
    case 6: return (T)1 / ((T)1 + exp(-x));           // sigmoid
    case 7: return tanh(x);
#endif
  }
  return x;  // not reached: the host rejects other ops for this dtype
}

inline T binary_op(int op, T x, T y) {
#if IS_FLOAT
  switch (op) {
    case 0: return x + y;
    case 1: return x - y;
    case 2: return x * y;
    case 3: return x / y;
    case 4: return (isnan(x) || x > y) ? x : y;
    case 5: return (isnan(x) || x < y) ? x : y;
  }
#else
  switch (op) {
    case 0: return AS_T((UT)x + (UT)y);
    case 1: return AS_T((UT)x - (UT)y);
    case 2: return AS_T((UT)x * (UT)y);
    case 3: return y == (T)0 ? (T)0 : (y == (T)-1 ? wrap_sub((T)0, x) : x / y);
    case 4: return x > y ? x : y;
    case 5: return x < y ? x : y;
  }
#endif
  return x;
}

__kernel void unary(int op, __global const ST* in, VIEW(a), __global ST* out, VIEW(o), long n) {
  FOR_EACH(i, n) STORE(out, AT(o, i), unary_op(op, LOAD(in, AT(a, i))));
}

__kernel void binary(int op, __global const ST* a, VIEW(x), __global const ST* b, VIEW(y),
                     __global ST* out, VIEW(o), long n) {
  FOR_EACH(i, n) STORE(out, AT(o, i), binary_op(op, LOAD(a, AT(x, i)), LOAD(b, AT(y, i))));
}
#endif
