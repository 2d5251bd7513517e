// Reductions for one element type (same options as elementwise.cl plus -DACC=<type>:
// double for floating types where the device has fp64, long for integers). Op numbers are
// hetero::ReductionOp. `s` is the input seen with the output's shape (start of each range),
// `r` the reduced sub-space from offset 0 (hetero::reduction_views).
//
// One pass (reduce, reduce_long): one work item per output walks its sub-space serially, in C
// order, so sums accumulate in the same order as on the cpu backend. Two passes, when
// there are too few outputs to fill the device (a full reduction): the sub-space is cut
// into blocks of `block` consecutive elements, and reduce_partial gives each output
// `chunks` work items, partial c scanning blocks c, c + chunks, c + 2 chunks... (block 1 on
// a GPU: neighbouring work items read neighbouring elements; one block per work item on a
// CPU: each reads one contiguous range). reduce_combine / reduce_long_combine then merge each
// output's partials in chunk order. The result is deterministic for a given chunking; NaN
// and tie rules are those of one pass (the first NaN, else the first extreme, by index).
//
// float64 sums (IS_DOUBLE) also keep `scaled`, the sum of the elements times 2^-64, which
// cannot overflow: an output whose sum came out +-inf or NaN is then the scaled sum scaled
// back, or, where that is not finite (a NaN or infinite element), the scaled sum itself
// (NaN, or the infinity of the one sign among the elements): the cpu backend's rule, Note
// [Float64 sums past the largest value] (plugins/cpu/kernels_reduce.cpp). Between the two
// passes a partial's scaled sum travels in its index slot, which sums leave unused.

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
  return REDUCE_IS_MIN(op) ? x < best : x > best;
}

// What a scan keeps: the sum (of squares for norm), or the extreme and its index.
typedef struct {
  ACC acc;
  T best;
  long best_i;
#if IS_DOUBLE
  double scaled;  // sums: the elements times 2^-64
#endif
} Scan;

// A scan with nothing seen yet.
inline Scan empty_scan(void) {
  Scan s;
  s.acc = (ACC)0;
  s.best = (T)0;
  s.best_i = 0;
#if IS_DOUBLE
  s.scaled = 0.0;
#endif
  return s;
}

// Blocks first, first + step, ... of `block` consecutive elements (in C order, the last
// block possibly short; first * block < count) of the sub-space that starts at `start`.
// A one-dimensional sub-space (the host merges what it can) is walked by its stride;
// otherwise an odometer over r's dimensions, set once per block, advances per element.
inline Scan scan(int op, __global const ST* in, long start, int r_nd, long8 r_shape, long8 r_st,
                 long first, long step, long block, long count) {
  long shape[8], st[8], idx[8];
  vstore8(r_shape, 0, shape);
  vstore8(r_st, 0, st);
  const int cmp = REDUCE_IS_INDEX(op) ? REDUCE_max : op;  // argmax scans as max
  Scan s = empty_scan();
  s.best_i = first * block;
  const long first_off =
      r_nd <= 1 ? s.best_i * st[0] : view_offset(s.best_i, r_nd, r_shape, r_st);
  s.best = LOAD(in, start + first_off);
  for (long b = first; b * block < count; b += step) {
    const long lo = b * block, hi = min(count, lo + block);
    long off = 0;
    if (r_nd <= 1) {
      off = lo * st[0];
    } else {
      long rest = lo;
      for (int d = r_nd - 1; d >= 0; --d) {
        idx[d] = rest % shape[d];
        rest /= shape[d];
        off += idx[d] * st[d];
      }
    }
    for (long i = lo; i < hi; ++i) {
      const T x = LOAD(in, start + off);
      if (REDUCE_IS_SUM(op)) {
        s.acc = reduce_add(s.acc, x);
#if IS_DOUBLE
        s.scaled += x * 0x1p-64;
#endif
      }
#if IS_FLOAT
      else if (REDUCE_IS_SQUARES(op)) s.acc += (ACC)x * (ACC)x;
#endif
      else if (better(cmp, x, s.best)) {
        s.best = x;
        s.best_i = i;
      }
      if (r_nd <= 1) {
        off += st[0];
      } else {
        for (int d = r_nd - 1; d >= 0; --d) {  // the next element in C order
          off += st[d];
          if (++idx[d] < shape[d]) break;
          off -= idx[d] * st[d];
          idx[d] = 0;
        }
      }
    }
  }
  return s;
}

inline T finish(int op, ACC acc, T best, long count) {
  switch (op) {  // the finish column of the accumulating rows (op_rules.cpp)
#if IS_FLOAT
    HETERO_REDUCE_FINISH_FLOAT_CASES
#else
    HETERO_REDUCE_FINISH_INT_CASES
#endif
  }
  return best;
}

// An output's value from its scan: finish(), or for a float64 sum that came out +-inf or NaN,
// the scaled sum's (see the top of this file).
inline T result(int op, Scan sc, long count) {
  T r = finish(op, sc.acc, sc.best, count);
#if IS_DOUBLE
  if (REDUCE_IS_SUM(op) && !isfinite(r))
    r = isfinite(sc.scaled) ? ldexp(finish(op, sc.scaled, sc.best, count), 64) : sc.scaled;
#endif
  return r;
}

__kernel void reduce(int op, __global const ST* in, VIEW(s), VIEW(r), long count,
                     __global ST* out, VIEW(o), long n_out) {
  FOR_EACH(j, n_out) {
    Scan sc = empty_scan();
    if (count > 0) sc = scan(op, in, AT(s, j), r_nd, r_shape, r_st, 0, 1, count, count);
    STORE(out, AT(o, j), result(op, sc, count));
  }
}

// The results of type long: argmax's index, or (integer T only) a widening sum's long
// accumulator (Backend::reduces_into: torch.sum's int64 of int8, uint8 and int32).
inline long long_result(int op, Scan sc) {
#if IS_FLOAT
  return sc.best_i;  // argmax: the only long result of a floating T
#else
  return REDUCE_IS_INDEX(op) ? sc.best_i : sc.acc;
#endif
}

// argmax, or a widening sum (op REDUCE_sum), written as long.
__kernel void reduce_long(int op, __global const ST* in, VIEW(s), VIEW(r), long count,
                          __global long* out, VIEW(o), long n_out) {
  FOR_EACH(j, n_out) {
    long result = 0;
    if (count > 0)
      result = long_result(op, scan(op, in, AT(s, j), r_nd, r_shape, r_st, 0, 1, count, count));
    out[AT(o, j)] = result;
  }
}

// Pass 1: partial w = j * chunks + c of output j scans blocks c, c + chunks, ... (the host
// makes chunks * block < count + block, so none is empty). Extremes are kept as ACC (exact
// for T).
__kernel void reduce_partial(int op, __global const ST* in, VIEW(s), VIEW(r), long count,
                             long chunks, long block, __global ACC* value, __global long* index,
                             long n_out) {
  FOR_EACH(w, n_out * chunks) {
    const long j = w / chunks;
    const Scan sc = scan(op, in, AT(s, j), r_nd, r_shape, r_st, w % chunks, chunks, block, count);
    value[w] = REDUCE_IS_SUM(op) || REDUCE_IS_SQUARES(op) ? sc.acc : (ACC)sc.best;
    index[w] = sc.best_i;
#if IS_DOUBLE
    if (REDUCE_IS_SUM(op)) index[w] = as_long(sc.scaled);
#endif
  }
}

// Pass 2: output j from its partials in chunk order. Extremes compare by value, then by
// index (partials interleave, so a later chunk may hold an earlier equal extreme or NaN).
inline Scan combine(int op, __global const ACC* value, __global const long* index, long j,
                    long chunks) {
  const int cmp = REDUCE_IS_INDEX(op) ? REDUCE_max : op;
  Scan sc = empty_scan();
  sc.best = (T)value[j * chunks];
  sc.best_i = index[j * chunks];
  for (long c = 0; c < chunks; ++c) {
    const long w = j * chunks + c;
    if (REDUCE_IS_SUM(op) || REDUCE_IS_SQUARES(op)) {
#if IS_DOUBLE
      if (REDUCE_IS_SUM(op)) sc.scaled += as_double(index[w]);
#endif
#if IS_FLOAT
      sc.acc += value[w];
#else
      sc.acc = as_long((ulong)sc.acc + (ulong)value[w]);
#endif
      continue;
    }
    const T x = (T)value[w];
#if IS_FLOAT
    const int same = x == sc.best || (isnan(x) && isnan(sc.best));
#else
    const int same = x == sc.best;
#endif
    if (better(cmp, x, sc.best) || (same && index[w] < sc.best_i)) {
      sc.best = x;
      sc.best_i = index[w];
    }
  }
  return sc;
}

__kernel void reduce_combine(int op, __global const ACC* value, __global const long* index,
                             long chunks, long count, __global ST* out, VIEW(o), long n_out) {
  FOR_EACH(j, n_out) {
    const Scan sc = combine(op, value, index, j, chunks);
    STORE(out, AT(o, j), result(op, sc, count));
  }
}

__kernel void reduce_long_combine(int op, __global const ACC* value, __global const long* index,
                                  long chunks, __global long* out, VIEW(o), long n_out) {
  FOR_EACH(j, n_out) out[AT(o, j)] = long_result(op, combine(op, value, index, j, chunks));
}
