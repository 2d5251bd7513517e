// Reductions for one element type (same options as elementwise.cl plus -DACC=<type>:
// double for floating types where the device has fp64, long for integers). One work
// item per output element walks its reduced sub-space serially, in C order, so sums are
// accumulated in the same order as on the cpu backend. Op numbers are hetero::ReduceOp.
// `s` is the input seen with the output's shape (start of each range), `r` the reduced
// sub-space from offset 0 (hetero::reduction_views).

inline ACC reduce_add(ACC acc, T x) {
#if IS_FLOAT
  return acc + (ACC)x;
#else
  return as_long((ulong)acc + (ulong)(long)x);
#endif
}

// max/min/argmax scan: NaN propagates (is the extreme), the first extreme wins ties.
inline int better(int op, T x, T best) {
#if IS_FLOAT
  if (isnan(x) && !isnan(best)) return 1;
#endif
  return op == 3 ? x < best : x > best;
}

__kernel void reduce(int op, __global const ST* in, VIEW(s), VIEW(r), long count,
                     __global ST* out, VIEW(o), long n_out) {
  FOR_EACH(j, n_out) {
    const long start = AT(s, j);
    ACC acc = (ACC)0;
    T best = (T)0;
    for (long i = 0; i < count; ++i) {
      const T x = LOAD(in, start + view_offset(i, r_nd, r_shape, r_st));
      if (op == 0 || op == 1) acc = reduce_add(acc, x);
#if IS_FLOAT
      else if (op == 4) acc += (ACC)x * (ACC)x;
#endif
      else if (i == 0 || better(op, x, best)) best = x;
    }
    T result;
    switch (op) {
      case 0: result = (T)acc; break;
#if IS_FLOAT
      case 1: result = count ? (T)((ACC)acc / (ACC)count) : (T)NAN; break;
      case 4: result = (T)sqrt(acc); break;
#endif
      default: result = best;
    }
    STORE(out, AT(o, j), result);
  }
}

__kernel void argmax(__global const ST* in, VIEW(s), VIEW(r), long count, __global long* out,
                     VIEW(o), long n_out) {
  FOR_EACH(j, n_out) {
    const long start = AT(s, j);
    T best = (T)0;
    long best_i = 0;
    for (long i = 0; i < count; ++i) {
      const T x = LOAD(in, start + view_offset(i, r_nd, r_shape, r_st));
      if (i == 0 || better(2, x, best)) {
        best = x;
        best_i = i;
      }
    }
    out[AT(o, j)] = best_i;
  }
}
