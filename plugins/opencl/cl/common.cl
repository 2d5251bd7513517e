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
