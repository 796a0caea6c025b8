// The cast op's runs of one SIMD level: between integer dtypes, and between f32 and i8, u8,
// i16, i32 (simd::EwTable::cast_int, cast_from_f32, cast_to_f32). A part of ew_impl.inl's
// body, inside its namespace, so it includes nothing itself: plain loops the level's flags
// vectorize.

template <class TO, class TI>
void cast_int_run(void* yv, const void* xv, int64_t n) {
  TO* y = static_cast<TO*>(yv);
  const TI* x = static_cast<const TI*>(xv);
  MLVM_SIMD_INDEPENDENT
  for (int64_t k = 0; k < n; ++k) y[k] = TO(x[k]);
}

template <class TO>
void set_casts_to(EwTable& t) {
  UnaryRun(&to)[kNumElems] = t.cast_int[int(elem_of<TO>())];
  to[int(Elem::i8)] = cast_int_run<TO, int8_t>;
  to[int(Elem::u8)] = cast_int_run<TO, uint8_t>;
  to[int(Elem::i16)] = cast_int_run<TO, int16_t>;
  to[int(Elem::i32)] = cast_int_run<TO, int32_t>;
  to[int(Elem::i64)] = cast_int_run<TO, int64_t>;
}

// The cast op's float -> integer rule without branches, so that it vectorizes: every value
// the conversion sees is in [lo, past_hi) (lo exact, past_hi the first value past the range,
// 2^8, 2^15 or 2^31: exact), the others replaced after it.
template <class TO>
void f32_to_int_run(void* yv, const void* xv, int64_t n) {
  TO* y = static_cast<TO*>(yv);
  const float* x = static_cast<const float*>(xv);
  constexpr float lo = float(std::numeric_limits<TO>::lowest());
  constexpr float past_hi = float(double(std::numeric_limits<TO>::max()) + 1.0);
  constexpr int32_t hi = int32_t(std::numeric_limits<TO>::max());
  MLVM_SIMD_INDEPENDENT
  for (int64_t k = 0; k < n; ++k) {
    const float v = x[k];
    const float c = v > lo && v < past_hi ? v : lo;  // NaN compares false: lo, replaced below
    const int32_t t = int32_t(c);
    y[k] = TO(v >= past_hi ? hi : v != v ? 0 : t);
  }
}
template <class TI>
void int_to_f32_run(void* yv, const void* xv, int64_t n) {
  float* y = static_cast<float*>(yv);
  const TI* x = static_cast<const TI*>(xv);
  MLVM_SIMD_INDEPENDENT
  for (int64_t k = 0; k < n; ++k) y[k] = float(x[k]);
}
template <class T>
void set_f32_casts(EwTable& t) {
  t.cast_from_f32[int(elem_of<T>())] = f32_to_int_run<T>;
  t.cast_to_f32[int(elem_of<T>())] = int_to_f32_run<T>;
}
