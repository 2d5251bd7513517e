// Element conversion S -> D (Backend::cast), compiled with
//   -DS=<type> -DD=<type> -DS_FLOAT=0|1 -DD_FLOAT=0|1 -DD_BOOL=0|1 -DD_MIN=.. -DD_MAX=..
// The rule of hetero/sdk/element_conversion.hpp: to bool is x != 0; float to integer
// truncates towards zero, saturates at D's range and maps NaN to 0; otherwise a C cast.

inline D convert_element(S s) {
#if D_BOOL
  return s != (S)0 ? (D)1 : (D)0;
#elif S_FLOAT && !D_FLOAT
  if (isnan(s)) return (D)0;
  if (s <= (S)D_MIN) return D_MIN;
  if (s >= (S)D_MAX) return D_MAX;
  return (D)s;
#else
  return (D)s;
#endif
}

__kernel void convert(__global const S* in, VIEW(a), __global D* out, VIEW(o), long n) {
  FOR_EACH(i, n) out[AT(o, i)] = convert_element(in[AT(a, i)]);
}
