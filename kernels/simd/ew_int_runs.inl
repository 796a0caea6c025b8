// The integer runs of the requantization chains mlvm-quantize writes (cvm_right_shift,
// cvm_left_shift, cvm_lut): part of ew_impl.inl's body, included there inside its namespace,
// so it includes nothing itself. Through int64, as the scalar functors compute, the shifts do
// not vectorize below AVX-512 (no 64-bit arithmetic shift); for elements of at most 4 bytes
// the same values fit 32-bit lanes: x >> s is the same number in either width for s <= 31,
// (t >> 1) + (t & 1) cannot overflow, and lo, hi lie within the element type.

template <class T>
void cvm_right_shift_run(void* yv, const void* xv, int64_t n, const CvmShift& a) {
  T* y = static_cast<T*>(yv);
  const T* x = static_cast<const T*>(xv);
  if constexpr (sizeof(T) <= 4) {
    const int s = a.shift;
    const int32_t lo = int32_t(a.lo), hi = int32_t(a.hi);
    MLVM_SIMD_INDEPENDENT
    for (int64_t k = 0; k < n; ++k) y[k] = T(cvm_round_shift32(int32_t(x[k]), s, lo, hi));
  } else {
    MLVM_SIMD_INDEPENDENT
    for (int64_t k = 0; k < n; ++k) {
      const int64_t q = int64_t(x[k]) >> a.shift;
      const int64_t t = (q >> 1) + (q & 1);
      y[k] = T(t < a.lo ? a.lo : t > a.hi ? a.hi : t);
    }
  }
}

// Within [lo_limit, hi_limit] the product lies within [lo, hi], so within T: in 32-bit lanes
// it is the unsigned shift's bits. Shift 32 leaves only x = 0 in range (both limits are 0),
// whose product is 0 whatever the lanes' shift count does with 32 (masked to 0 here).
template <class T>
void cvm_left_shift_run(void* yv, const void* xv, int64_t n, const CvmShift& a) {
  T* y = static_cast<T*>(yv);
  const T* x = static_cast<const T*>(xv);
  if constexpr (sizeof(T) <= 4) {
    const int s = a.shift & 31;
    const int32_t lo = int32_t(a.lo), hi = int32_t(a.hi);
    const int32_t lo_limit = int32_t(a.lo_limit), hi_limit = int32_t(a.hi_limit);
    MLVM_SIMD_INDEPENDENT
    for (int64_t k = 0; k < n; ++k) {
      const int32_t v = int32_t(x[k]);
      const int32_t p = int32_t(uint32_t(v) << s);
      y[k] = T(v > hi_limit ? hi : v < lo_limit ? lo : p);
    }
  } else {
    MLVM_SIMD_INDEPENDENT
    for (int64_t k = 0; k < n; ++k) {
      const int64_t v = int64_t(x[k]);
      y[k] = T(v > a.hi_limit ? a.hi : v < a.lo_limit ? a.lo : int64_t(uint64_t(v) << a.shift));
    }
  }
}

// A clamped index then one gather per register (AVX2 and AVX-512 have gather instructions;
// SSE2 reads one element at a time). The tables are small (mlvm-quantize's have 256 to 4096
// entries) and stay in L1/L2, so there is nothing to prefetch.
void lut32_run(uint32_t* y, const int32_t* idx, int64_t n, const uint32_t* table, int64_t table_n) {
  const int32_t top = int32_t(std::min<int64_t>(table_n - 1, INT32_MAX));
  int64_t k = 0;
#if MLVM_SIMD_BYTES == 64
  const __m512i vtop = _mm512_set1_epi32(top), zero = _mm512_setzero_si512();
  for (; k + 16 <= n; k += 16) {
    __m512i i = _mm512_loadu_si512(idx + k);
    i = _mm512_min_epi32(_mm512_max_epi32(i, zero), vtop);
    _mm512_storeu_si512(y + k, _mm512_i32gather_epi32(i, table, 4));
  }
#elif MLVM_SIMD_BYTES == 32
  const __m256i vtop = _mm256_set1_epi32(top), zero = _mm256_setzero_si256();
  for (; k + 8 <= n; k += 8) {
    __m256i i = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + k));
    i = _mm256_min_epi32(_mm256_max_epi32(i, zero), vtop);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + k),
                        _mm256_i32gather_epi32(reinterpret_cast<const int*>(table), i, 4));
  }
#endif
  for (; k < n; ++k) {
    const int32_t i = idx[k];
    y[k] = table[i < 0 ? 0 : i > top ? top : i];
  }
}
