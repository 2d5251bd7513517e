// Element conversion S -> D (Backend::cast), compiled with
//   -DS=<type> -DD=<type> -DS_FLOAT=0|1 -DD_FLOAT=0|1 -DD_BOOL=0|1 -DD_MIN=.. -DD_MAX=..
//   -DS_ST/-DD_ST=<storage type> -DS_KIND/-DD_KIND=0|1|2 (common.cl; float16 and
//   bfloat16 are read and written as float) -DD_HALF=0|1 -DS_WIDE=0|1 (S is double or long)
// The rule of hetero/sdk/element_conversion.hpp: to bool is x != 0; float to integer
// truncates towards zero, saturates at D's range and maps NaN to 0; to float16/bfloat16
// rounds to nearest even from the exact value; otherwise a C cast.

#if D_HALF && S_WIDE
// Round to float by round-to-odd (towards zero, then the last bit set if inexact): the
// 16-bit rounding that follows is then correct, with no double rounding.
inline float to_float_odd(S s) {
  float f = convert_float_rtz(s);
  if ((S)f != s && !isnan(f)) f = as_float(as_uint(f) | 1u);
  return f;
}
#endif

inline D convert_element(S s) {
#if D_BOOL
  return s != (S)0 ? (D)1 : (D)0;
#elif S_FLOAT && !D_FLOAT
  if (isnan(s)) return (D)0;
  if (s <= (S)D_MIN) return D_MIN;
  if (s >= (S)D_MAX) return D_MAX;
  return (D)s;
#elif D_HALF && S_WIDE
  return to_float_odd(s);
#else
  return (D)s;
#endif
}

__kernel void convert(__global const S_ST* in, VIEW(a), __global D_ST* out, VIEW(o), long n) {
  FOR_EACH(i, n) STOREK(D_KIND, out, AT(o, i), convert_element(LOADK(S_KIND, in, AT(a, i))));
}
