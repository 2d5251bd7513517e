// gather and scatter_add (Backend::gather / scatter_add, interface minor 6) for one element
// type, compiled with elementwise.cl's options (-DT -DUT -DAS_T -DIS_FLOAT -DIS_BOOL -DST
// -DKIND). Views as common.cl's VIEW; indices are int64 (long).

// out[p] = src[start(p) + index[p] * dim_stride]: out, index and the line starts share one
// shape (kernel_args.hpp's gather_views).
__kernel void gather(__global const ST* src, VIEW(s), __global const long* index, VIEW(x),
                     __global ST* out, VIEW(o), long dim_stride, long n) {
  FOR_EACH(i, n) STORE(out, AT(o, i), LOAD(src, AT(s, i) + index[AT(x, i)] * dim_stride));
}

// acc + v as Backend::scatter_add adds: logical or for bool, wrapping for integers, in T
// (float for the 16-bit types, rounded by STORE) for floating types.
inline T scatter_add_element(T acc, T v) {
#if IS_BOOL
  return (acc != 0 || v != 0) ? (T)1 : (T)0;
#elif IS_FLOAT
  return acc + v;
#else
  return AS_T((UT)((UT)acc + (UT)v));
#endif
}

// One work item per fiber (kernel_args.hpp's scatter_fibers), walking it in order along
// dim: no two work items write one element, and the sums are deterministic.
__kernel void scatter_add(__global ST* out, VIEW(o), __global const long* index, VIEW(x),
                          __global const ST* src, VIEW(s), long length, long out_stride,
                          long index_stride, long src_stride, long fibers) {
  FOR_EACH(f, fibers) {
    const long oo = AT(o, f), xo = AT(x, f), so = AT(s, f);
    for (long i = 0; i < length; ++i) {
      const long at = oo + index[xo + i * index_stride] * out_stride;
      STORE(out, at, scatter_add_element(LOAD(out, at), LOAD(src, so + i * src_stride)));
    }
  }
}
