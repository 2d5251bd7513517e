// random() for float (-DT=float) or double (-DT=double): the counter-based stream of
// hetero/sdk/counter_rng.hpp, transcribed to OpenCL C so that a seed gives the same
// numbers here as on the cpu and cuda backends. The normal variant needs fp64.

inline ulong rng_mix(ulong seed, ulong counter) {
  ulong z = seed * 0x9E3779B97F4A7C15UL + counter * 0xBF58476D1CE4E5B9UL + 0x94D049BB133111EBUL;
  for (int round = 0; round < 2; ++round) {
    z += 0x9E3779B97F4A7C15UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    z ^= z >> 31;
  }
  return z;
}

__kernel void uniform(__global T* out, VIEW(o), long n, ulong seed, ulong offset) {
  FOR_EACH(i, n) {
    const ulong bits = rng_mix(seed, offset + (ulong)i);
#if IS_DOUBLE
    out[AT(o, i)] = (double)(bits >> 11) * 0x1.0p-53;
#else
    out[AT(o, i)] = (float)(bits >> 40) * 0x1.0p-24f;
#endif
  }
}

#ifdef cl_khr_fp64
__kernel void normal(__global T* out, VIEW(o), long n, ulong seed, ulong offset) {
  FOR_EACH(i, n) {
    const ulong c = offset + 2 * (ulong)i;
    const double u1 = 1.0 - (double)(rng_mix(seed, c) >> 11) * 0x1.0p-53;  // (0, 1]
    const double u2 = (double)(rng_mix(seed, c + 1) >> 11) * 0x1.0p-53;
    out[AT(o, i)] = (T)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925286766559 * u2));
  }
}
#endif
