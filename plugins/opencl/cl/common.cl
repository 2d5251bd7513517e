// Included first in every program of the opencl backend. Views arrive as four kernel
// arguments (VIEW): element offset, number of dimensions, shape and strides (long8, so
// up to hetero::kMaxDims = 8 dimensions), all in elements.
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define VIEW(name) long name##_off, int name##_nd, long8 name##_shape, long8 name##_st
#define AT(name, i) (name##_off + view_offset((i), name##_nd, name##_shape, name##_st))

// Element offset (without the view's own offset) of the i-th element, in C order.
inline long view_offset(long i, int ndim, long8 shape, long8 strides) {
  if (ndim <= 1) return ndim == 1 ? i * strides.s0 : 0;  // merged by the host: no division
  long s[8];
  long st[8];
  vstore8(shape, 0, s);
  vstore8(strides, 0, st);
  long off = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    const long q = i % s[d];
    i /= s[d];
    off += q * st[d];
  }
  return off;
}

// Grid-stride loop over n items: any global size covers any n.
#define FOR_EACH(i, n) for (long i = get_global_id(0); i < (n); i += get_global_size(0))

// Element storage. Kernels compute in T and keep elements as ST; kind 0 stores T itself,
// kind 1 float16 (`half` storage through vload_half / vstore_half_rte, core OpenCL C
// that needs no cl_khr_fp16), kind 2 bfloat16 (ushort bits, the upper half of a float,
// rounded to nearest even). LOADK / STOREK take the kind as their first argument.
inline float bf16_to_float(ushort b) { return as_float((uint)b << 16); }
inline ushort bf16_from_float(float f) {
  uint u = as_uint(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (ushort)0x7FC0;  // NaN stays a quiet NaN
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
#define LOAD_0(p, i) ((p)[i])
#define STORE_0(p, i, v) ((p)[i] = (v))
#define LOAD_1(p, i) vload_half((i), (p))
#define STORE_1(p, i, v) vstore_half_rte((float)(v), (i), (p))
#define LOAD_2(p, i) bf16_to_float((p)[i])
#define STORE_2(p, i, v) ((p)[i] = bf16_from_float((float)(v)))
#define LOADK_(k, p, i) LOAD_##k(p, i)
#define STOREK_(k, p, i, v) STORE_##k(p, i, v)
#define LOADK(k, p, i) LOADK_(k, p, i)
#define STOREK(k, p, i, v) STOREK_(k, p, i, v)
// The element type of this program (-DKIND, -DST; default: stored as T).
#ifndef KIND
#define KIND 0
#endif
#ifndef ST
#define ST T
#endif
#define LOAD(p, i) LOADK(KIND, p, i)
#define STORE(p, i, v) STOREK(KIND, p, i, v)
