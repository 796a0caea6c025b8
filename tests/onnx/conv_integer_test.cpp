// ONNX ConvInteger and MatMulInteger against naive int64 references of the ONNX definition
// (y = sum (x - zx)(w - zw), x padded with its zero point), at every SIMD level this CPU runs
// and at 1 and 2 threads, all bit for bit: u8 and i8 operands, zero points at 0, 128 and 255
// (and per output channel), x holding 0 and 255, odd sizes, padding, strides, dilations, groups.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include "common/onnx_nn_models.hpp"
#include "kernels/simd/cpu_features.hpp"

using namespace mlvm;
using namespace mlvm::testing::onnx_nn;

namespace {

constexpr int kU8 = onnx::TensorProto::UINT8, kI8 = onnx::TensorProto::INT8;

// A deterministic 8-bit value for element i of a stream: both ends of the range often.
int32_t value8(int64_t i, uint64_t seed, bool is_u8) {
  uint64_t h = (uint64_t(i) + 1) * 0x9E3779B97F4A7C15ull ^ seed;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  const int lo = is_u8 ? 0 : -128, hi = is_u8 ? 255 : 127;
  switch (h % 8) {
    case 0: return lo;
    case 1: return hi;
    default: return lo + int32_t((h >> 8) % uint64_t(hi - lo + 1));
  }
}

Tensor tensor8(const std::vector<int64_t>& dims, const std::vector<int32_t>& v, bool is_u8) {
  Tensor t = Tensor::empty(is_u8 ? DType::u8 : DType::i8, Dims(std::span<const int64_t>(dims)));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (is_u8) t.data<uint8_t>()[i] = uint8_t(v[i]);
    else t.data<int8_t>()[i] = int8_t(v[i]);
  }
  return t;
}

void init8(Model& m, const std::string& name, const std::vector<int64_t>& dims, const std::vector<int32_t>& v,
           bool is_u8) {
  auto* t = m.g->add_initializer();
  t->set_name(name);
  t->set_data_type(is_u8 ? kU8 : kI8);
  for (int64_t d : dims) t->add_dims(d);
  std::string raw;
  for (int32_t x : v) raw.push_back(char(uint8_t(x & 0xff)));
  t->set_raw_data(raw);
}

// Runs p at every level (avx2 also with AVX-VNNI where the CPU has it) and thread count; each
// result must equal `want`.
void expect_everywhere(const Program& p, const std::vector<Tensor>& in, const std::vector<int64_t>& want_dims,
                       const std::vector<int64_t>& want, const std::string& what) {
  const simd::Level saved = simd::level();
  const bool saved_vnni = simd::avx2_uses_vnni();
  std::vector<std::pair<simd::Level, bool>> levels;
  for (int l = 0; l <= int(simd::cpu_best_level()); ++l) {
    levels.push_back({simd::Level(l), false});
    if (simd::Level(l) == simd::Level::avx2 && simd::cpu_has_avx_vnni()) levels.push_back({simd::Level::avx2, true});
  }
  for (const auto& [level, vnni] : levels) {
    simd::set_level_for_testing(level, vnni);
    for (int threads : {1, 2}) {
      SessionOptions options;
      options.threads = threads;
      Session s(p, options);
      std::vector<Tensor> out = s.run_positional(std::span<const Tensor>(in));
      BOOST_TEST_REQUIRE(out[0].dtype() == DType::i32);
      BOOST_TEST_REQUIRE(out[0].shape() == Dims(std::span<const int64_t>(want_dims)), what);
      Tensor y = contiguous(out[0]);
      int64_t bad = 0;
      for (std::size_t i = 0; i < want.size(); ++i) bad += y.data<int32_t>()[i] != want[i];
      BOOST_TEST(bad == 0, what << " at level " << simd::current_level_name() << ", " << threads
                                << " threads: " << bad << " of " << want.size() << " differ");
    }
  }
  simd::set_level_for_testing(saved, saved_vnni);
}

struct ConvCase {
  std::string what;
  bool x_u8 = true, w_u8 = true;
  int64_t n = 1, c = 5, h = 7, w = 9, oc = 3, kh = 3, kw = 3, group = 1;
  std::vector<int64_t> pads{1, 1, 1, 1}, strides{1, 1}, dilations{1, 1};
  int32_t zx = 128;
  std::vector<int32_t> zw{128};  // one, or one per output channel
  bool zx_input = true;          // x's zero point a graph input (else an initializer)
  bool zw_given = true, zx_given = true;
  // x's dims as the graph declares them: -1 entries are symbolic (two of them keep the centred
  // lowering, which needs no reshape).
  std::vector<int64_t> declared = {};
};

void check_conv(const ConvCase& k) {
  const int64_t cg = k.c / k.group, ocg = k.oc / k.group;
  const int64_t oh = (k.h + k.pads[0] + k.pads[2] - k.dilations[0] * (k.kh - 1) - 1) / k.strides[0] + 1;
  const int64_t ow = (k.w + k.pads[1] + k.pads[3] - k.dilations[1] * (k.kw - 1) - 1) / k.strides[1] + 1;
  std::vector<int32_t> xv, wv;
  for (int64_t i = 0; i < k.n * k.c * k.h * k.w; ++i) xv.push_back(value8(i, 1, k.x_u8));
  for (int64_t i = 0; i < k.oc * cg * k.kh * k.kw; ++i) wv.push_back(value8(i, 2, k.w_u8));
  const int32_t zx = k.zx_given ? k.zx : 0;
  auto zw_of = [&](int64_t o) { return !k.zw_given ? 0 : k.zw.size() == 1 ? k.zw[0] : k.zw[std::size_t(o)]; };
  // The reference: padded taps hold zx and so add nothing.
  std::vector<int64_t> want;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t o = 0; o < k.oc; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int64_t s = 0;
          const int64_t g = o / ocg;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t a = 0; a < k.kh; ++a)
              for (int64_t b = 0; b < k.kw; ++b) {
                const int64_t y = i * k.strides[0] - k.pads[0] + a * k.dilations[0];
                const int64_t x = j * k.strides[1] - k.pads[1] + b * k.dilations[1];
                if (y < 0 || y >= k.h || x < 0 || x >= k.w) continue;
                const int64_t xi = ((n * k.c + g * cg + ci) * k.h + y) * k.w + x;
                const int64_t wi = ((o * cg + ci) * k.kh + a) * k.kw + b;
                s += int64_t(xv[std::size_t(xi)] - zx) * (wv[std::size_t(wi)] - zw_of(o));
              }
          want.push_back(s);
        }
  Model m(10);
  const std::vector<int64_t> declared = k.declared.empty() ? std::vector<int64_t>{k.n, k.c, k.h, k.w} : k.declared;
  m.input("x", declared, k.x_u8 ? kU8 : kI8);
  std::vector<Tensor> in{tensor8({k.n, k.c, k.h, k.w}, xv, k.x_u8)};
  init8(m, "w", {k.oc, cg, k.kh, k.kw}, wv, k.w_u8);
  std::vector<std::string> names{"x", "w", "", ""};
  if (k.zx_given) {
    names[2] = "xz";
    if (k.zx_input) {
      m.input("xz", {1}, k.x_u8 ? kU8 : kI8);
      in.push_back(tensor8({1}, {k.zx}, k.x_u8));
    } else {
      init8(m, "xz", {}, {k.zx}, k.x_u8);
    }
  }
  if (k.zw_given) {
    names[3] = "wz";
    init8(m, "wz", k.zw.size() == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{k.oc}, k.zw, k.w_u8);
  }
  while (!names.empty() && names.back().empty()) names.pop_back();
  m.output("y", 4, onnx::TensorProto::INT32);
  auto* node = m.node("ConvInteger", names, {"y"});
  attr(node, "kernel_shape", std::vector<int64_t>{k.kh, k.kw});
  attr(node, "pads", k.pads);
  attr(node, "strides", k.strides);
  attr(node, "dilations", k.dilations);
  if (k.group != 1) attr(node, "group", k.group);
  // One convolution; with one group (lower_quant_conv.cpp) it has a channel of x's window sums,
  // sliced off, when some w zero point is off its type's middle (128 for u8, 0 for i8).
  bool zw_off = false;
  for (int64_t o = 0; o < k.oc; ++o) zw_off |= zw_of(o) != (k.w_u8 ? 128 : 0);
  const Program p = m.program();
  BOOST_TEST(count_ops(p, "conv2d") == 1, k.what);
  const bool eight_bit = k.group == 1 && std::count(declared.begin(), declared.end(), -1) <= 1;
  BOOST_TEST(count_ops(p, "strided_slice") == (eight_bit && zw_off ? 2 : 0), k.what);
  expect_everywhere(p, in, {k.n, k.oc, oh, ow}, want, k.what);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(onnx_conv_integer)

BOOST_AUTO_TEST_CASE(conv_integer_matches_the_naive_definition_everywhere) {
  std::vector<ConvCase> cases;
  cases.push_back({.what = "u8 x u8, zero points 128"});
  cases.push_back({.what = "u8, zx 0, zw 255", .zx = 0, .zw = {255}});
  cases.push_back({.what = "u8, zx 255, zw 0", .zx = 255, .zw = {0}});
  cases.push_back({.what = "u8, zx 37 (a constant), zw 201", .zx = 37, .zw = {201}, .zx_input = false});
  cases.push_back({.what = "u8, per-channel zw", .oc = 4, .zx = 200, .zw = {0, 128, 255, 77}});
  cases.push_back({.what = "u8, no zero points", .zw_given = false, .zx_given = false});
  cases.push_back({.what = "i8 x i8, zx -128, zw 5", .x_u8 = false, .w_u8 = false, .zx = -128, .zw = {5}});
  cases.push_back({.what = "i8 x i8, zw 0", .x_u8 = false, .w_u8 = false, .zx = 127, .zw = {0}});
  cases.push_back({.what = "u8 x, i8 w", .w_u8 = false, .zx = 9, .zw = {-3}});
  cases.push_back({.what = "i8 x, u8 w", .x_u8 = false, .zx = -1, .zw = {250}});
  cases.push_back({.what = "asymmetric pads, stride 2, 3x2 window",
                   .h = 11, .w = 8, .oc = 6, .kh = 3, .kw = 2, .pads = {2, 0, 1, 3}, .strides = {2, 2}, .zx = 3, .zw = {140}});
  cases.push_back({.what = "dilation 2, pad 2, batch 2",
                   .n = 2, .c = 17, .h = 13, .w = 10, .oc = 19, .pads = {2, 2, 2, 2}, .dilations = {2, 2}, .zx = 250, .zw = {117}});
  cases.push_back({.what = "no padding, stride (1, 3)", .h = 6, .w = 12, .pads = {0, 0, 0, 0}, .strides = {1, 3}, .zx = 60});
  cases.push_back({.what = "groups 2", .c = 6, .oc = 4, .group = 2, .zx = 100, .zw = {30}});
  cases.push_back({.what = "many channels", .c = 70, .h = 9, .w = 11, .oc = 33, .zx = 1, .zw = {254}});
  cases.push_back({.what = "a dynamic batch", .n = 2, .zx = 77, .zw = {3}, .declared = {-1, 5, 7, 9}});
  // (Both symbolic dims are "N", so they are given equal.)
  cases.push_back({.what = "dynamic batch and height", .n = 2, .h = 2, .zx = 77, .zw = {3}, .declared = {-1, 5, -1, 9}});
  for (const ConvCase& k : cases) check_conv(k);
}

BOOST_AUTO_TEST_CASE(matmul_integer_matches_the_naive_definition_everywhere) {
  // a (2, 5, 37) u8 with a per-tensor zero point, b (37, 23) u8 with one per column.
  const int64_t batch = 2, m = 5, k = 37, n = 23;
  std::vector<int32_t> av, bv, bz;
  for (int64_t i = 0; i < batch * m * k; ++i) av.push_back(value8(i, 3, true));
  for (int64_t i = 0; i < k * n; ++i) bv.push_back(value8(i, 4, true));
  for (int64_t j = 0; j < n; ++j) bz.push_back(value8(j, 5, true));
  const int32_t az = 255;
  std::vector<int64_t> want;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t s = 0;
        for (int64_t q = 0; q < k; ++q)
          s += int64_t(av[std::size_t((b * m + i) * k + q)] - az) * (bv[std::size_t(q * n + j)] - bz[std::size_t(j)]);
        want.push_back(s);
      }
  Model md(10);
  md.input("a", {batch, m, k}, kU8);
  md.input("az", {1}, kU8);
  init8(md, "b", {k, n}, bv, true);
  init8(md, "bz", {n}, bz, true);
  md.output("y", 3, onnx::TensorProto::INT32);
  md.node("MatMulInteger", {"a", "b", "az", "bz"}, {"y"});
  expect_everywhere(md.program(), {tensor8({batch, m, k}, av, true), tensor8({1}, {az}, true)}, {batch, m, n}, want,
                    "MatMulInteger u8");
}

BOOST_AUTO_TEST_SUITE_END()
