// A whole requantization chain in one pass (simd::RequantRun): part of ew_impl.inl's body,
// after ew_int_runs.inl, inside its namespace, so it includes nothing itself.
//
// A conv2d's chain (shift, per-channel multiplier, shift, clip, cast to i8) ran as one run
// per step over the block in cache, then a scalar loop truncating it: five passes over the
// block and a quarter of a quantized MobileNet-V2's time. Here the steps run over a chunk in
// L1 (or, for the chains a layer has, all in registers) and the result is stored narrowed.
// The registers' steps are requant_vec.inl's (ew_impl.inl includes it).

#if MLVM_SIMD_BYTES == 64 || MLVM_SIMD_BYTES == 32  // SSE2 has no 32-bit min, max or multiply

// A chunk of values at a time, each step one tight loop over it in L1 (a dispatch per step per
// register made the steps' indirect jumps the run's cost).
// A tail shorter than a register is done as the last whole register, n - kLanes .. n, from
// the values read before anything was stored (so in place too), stored over the values the
// main loop wrote there with the same results: masked loads of the few values past a block's
// last stores stalled, and scalar tails cost a quarter of a 1x1 conv's requantization over
// 14 x 14 planes.
void requant_run(const RequantOp* ops, int nops, const int32_t* src, void* dst, int64_t n, int out_bytes) {
  namespace r = requant_detail;
  if (n < r::kLanes) return r::tail(ops, nops, src, dst, 0, n, out_bytes);
  const r::IV last = r::load(src + n - r::kLanes);
  int64_t k = 0;
  if (const auto l = r::layer_chain_of(ops, nops); l && r::in_i16(ops[1].value))
    k = r::layer_run(*l, ops[1].value, src, dst, n, out_bytes);
  constexpr int64_t kChunk = 256;
  alignas(64) int32_t buf[kChunk];
  for (; k + r::kLanes <= n;) {
    const int64_t m = std::min(kChunk, (n - k) / r::kLanes * r::kLanes);
    const int32_t* in = src + k;
    for (int s = 0; s < nops; ++s) {
      r::apply_step(ops[s], in, buf, m);
      in = buf;
    }
    for (int64_t j = 0; j < m; j += r::kLanes) r::store(dst, k + j, r::load(in + j), out_bytes);
    k += m;
  }
  if (k < n) {
    r::IV v = last;
    for (int s = 0; s < nops; ++s) v = r::any_step(ops[s], v);
    r::store(dst, n - r::kLanes, v, out_bytes);
  }
}

// Rows of one chain (RequantRowsRun): a layer's chain (LayerChain) with the multiplier per row
// in registers, row after row; any other chain, or rows shorter than a register, as
// requant_run per row with its ops patched. In place too (dst_stride n): row r's stores land at
// or below its own values and below every later row's.
void requant_rows(const RequantOp* ops, int nops, int mul_op, const int32_t* mul_values, const int32_t* src,
                  void* dst, int64_t n, int64_t rows, int out_bytes, int64_t dst_stride) {
  namespace r = requant_detail;
  if (n <= 0 || rows <= 0) return;
  if (mul_op == 1 && n >= r::kLanes) {
    const auto l = r::layer_chain_of(ops, nops);
    if (l && std::all_of(mul_values, mul_values + rows, [](int32_t m) { return r::in_i16(m); }))
      return r::layer_rows(*l, mul_values, src, dst, n, rows, out_bytes, dst_stride);
  }
  std::array<RequantOp, kMaxRequantOps> local{};
  std::copy_n(ops, std::min(nops, kMaxRequantOps), local.begin());
  for (int64_t row = 0; row < rows; ++row) {
    if (mul_op >= 0) local[std::size_t(mul_op)].value = mul_values[row];
    requant_run(local.data(), nops, src + row * n, static_cast<std::byte*>(dst) + row * dst_stride * out_bytes, n,
                out_bytes);
  }
}

#endif
