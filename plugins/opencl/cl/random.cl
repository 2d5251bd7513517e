// random() for float (-DT=float) or double (-DT=double): the counter-based stream of
// hetero/sdk/counter_rng.hpp (Philox4x32-10), transcribed to OpenCL C so that a seed gives
// the same numbers here as on the cpu and cuda backends. The normal variant needs fp64.

// Philox4x32-10 (Salmon et al., SC'11) as Random123's philox4x32_R(10, ctr, key), which
// counter_rng.hpp calls on the host and on CUDA: counter {lo, hi, 0, 0}, key the seed,
// words 0 and 1 of the result. Transcribed (a program built at run time cannot count on the
// Random123 headers); conformance RandomIsTheSdkStream compares it with the header's.
inline ulong rng_mix(ulong seed, ulong counter) {
  uint c0 = (uint)counter, c1 = (uint)(counter >> 32), c2 = 0u, c3 = 0u;
  uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {  // the key schedule (Weyl sequence)
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint hi0 = mul_hi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const uint hi1 = mul_hi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  return ((ulong)c1 << 32) | (ulong)c0;
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
