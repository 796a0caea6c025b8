// ONNX Gemm, the Softmax family, BatchNormalization (folded into Conv/Gemm, or native), the
// other normalizations, DepthToSpace and Resize/Upsample on hand-built models.
#include <boost/test/unit_test.hpp>

#include "common/onnx_nn_models.hpp"

using namespace mlvm;
using namespace mlvm::testing::onnx_nn;

BOOST_AUTO_TEST_SUITE(onnx_lower_gemm_norm)

BOOST_AUTO_TEST_CASE(gemm_trans_a_with_alpha_beta_and_a_matrix_c) {
  // Y = 0.5 * A^T * B + 2 * C, A (K=3, M=2), B (3, 4), C (2, 4); B both as an input (matmul)
  // and as an initializer (folded into dense).
  for (bool b_const : {false, true}) {
    Model m(13);
    m.input("a", {3, 2});
    Tensor b = f32({3, 4}, [](int64_t i) { return noise(i + 5); });
    if (b_const) m.init("b", {3, 4}, values(b));
    else m.input("b", {3, 4});
    m.input("c", {2, 4});
    m.output("y", 2);
    auto* n = m.node("Gemm", {"a", "b", "c"}, {"y"});
    attr(n, "transA", int64_t(1));
    attr(n, "alpha", 0.5f);
    attr(n, "beta", 2.0f);
    Tensor a = f32({3, 2}, noise), c = f32({2, 4}, [](int64_t i) { return float(i); });
    Program p = m.program();
    auto out = b_const ? run(p, {a, c}) : run(p, {a, b, c});
    std::vector<float> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        float acc = 0;
        for (int k = 0; k < 3; ++k) acc += a.data<float>()[k * 2 + i] * b.data<float>()[k * 4 + j];
        want.push_back(0.5f * acc + 2.0f * c.data<float>()[i * 4 + j]);
      }
    check_close(values(out[0]), want);
    if (b_const) BOOST_TEST(count_ops(p, "dense") == 1);
  }
}

BOOST_AUTO_TEST_CASE(gemm_with_constant_weights_and_row_bias_is_one_dense) {
  Model m(11);
  m.input("a", {-1, 3});
  m.init("b", {3, 2}, {1, 2, 3, 4, 5, 6});
  m.init("c", {1, 2}, {10, 20});
  m.output("y", 2);
  attr(m.node("Gemm", {"a", "b", "c"}, {"y"}), "alpha", 2.0f);
  Program p = m.program();
  BOOST_TEST(program_module(p).code.size() <= 2u);  // dense (+ the output copy)
  BOOST_TEST(count_ops(p, "dense") == 1);
  auto out = run(p, {f32({1, 3}, [](int64_t i) { return float(i + 1); })});
  check_close(values(out[0]), {2 * 22 + 10, 2 * 28 + 20});
}

// Opset 11: the input is seen as 2-D (2, 3 * 4) at axis 1.
BOOST_AUTO_TEST_CASE(softmax_family_opset_11_rank_3_axis_1_flattens) {
  Tensor x = f32({2, 3, 4}, noise);
  x.data<float>()[5] = x.data<float>()[9] = 5.0f;  // a tie in batch 0: the first one wins
  std::vector<float> sm, lsm, hm;
  for (int b = 0; b < 2; ++b) {
    const float* p = x.data<float>() + b * 12;
    float mx = *std::max_element(p, p + 12), s = 0;
    int arg = int(std::max_element(p, p + 12) - p);
    for (int i = 0; i < 12; ++i) s += std::exp(p[i] - mx);
    for (int i = 0; i < 12; ++i) {
      sm.push_back(std::exp(p[i] - mx) / s);
      lsm.push_back(p[i] - mx - std::log(s));
      hm.push_back(i == arg ? 1.0f : 0.0f);
    }
  }
  for (const std::string op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    Model m(11);
    m.input("x", {2, 3, 4});
    m.output("y", 3);
    attr(m.node(op, {"x"}, {"y"}), "axis", int64_t(1));
    auto out = run(m.program(), {x});
    BOOST_TEST(out[0].shape() == Dims({2, 3, 4}));
    check_close(values(out[0]), op == "Softmax" ? sm : op == "LogSoftmax" ? lsm : hm);
  }
}

BOOST_AUTO_TEST_CASE(softmax_opset_13_runs_along_one_axis) {
  Model m(13);
  m.input("x", {2, 3});
  m.output("y", 2);
  attr(m.node("Softmax", {"x"}, {"y"}), "axis", int64_t(0));
  auto out = run(m.program(), {f32({2, 3}, [](int64_t i) { return float(i); })});
  float e3 = std::exp(3.0f);
  float p0 = 1 / (1 + e3);
  check_close(values(out[0]), {p0, p0, p0, 1 - p0, 1 - p0, 1 - p0});
}

BOOST_AUTO_TEST_CASE(batchnorm_with_constant_statistics_folds_into_one_mul_add) {
  Model m(15);
  m.input("x", {2, 3, 2, 2});
  m.init("s", {3}, {1, 2, 0.5f});
  m.init("b", {3}, {0, 1, -1});
  m.init("mean", {3}, {0.5f, -1, 2});
  m.init("var", {3}, {4, 0.25f, 1});
  m.output("y", 4);
  attr(m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"}), "epsilon", 0.01f);
  Program p = m.program();
  BOOST_TEST(count_ops(p, "sqrt") == 0);
  BOOST_TEST(count_ops(p, "div") == 0);
  BOOST_TEST(count_ops(p, "mul") == 1);
  BOOST_TEST(count_ops(p, "add") == 1);
  Tensor x = f32({2, 3, 2, 2}, noise);
  auto out = run(p, {x});
  const float s[] = {1, 2, 0.5f}, b[] = {0, 1, -1}, mean[] = {0.5f, -1, 2}, var[] = {4, 0.25f, 1};
  std::vector<float> want;
  for (int64_t i = 0; i < 24; ++i) {
    int c = int(i / 4 % 3);
    want.push_back((x.data<float>()[i] - mean[c]) / std::sqrt(var[c] + 0.01f) * s[c] + b[c]);
  }
  check_close(values(out[0]), want);
}

// Conv -> BatchNormalization -> Relu: W scaled per output channel, the shift in the bias;
// nothing is left of the BatchNormalization (when the importer gives the lowerings the graph).
BOOST_AUTO_TEST_CASE(batchnorm_folds_into_the_conv_before_it) {
  const float s[] = {1, 2, 0.5f, -1}, b[] = {0, 1, -1, 0.25f}, mean[] = {0.5f, -1, 2, 0},
              var[] = {4, 0.25f, 1, 2}, bias[] = {0.1f, -0.2f, 0.3f, 0};
  auto model = [&](bool with_bias, bool conv_output_too) {
    Model m(15);
    m.input("x", {2, 3, 5, 5});
    std::vector<float> w;
    for (int64_t i = 0; i < 4 * 3 * 9; ++i) w.push_back(noise(i * 5 + 2));
    m.init("w", {4, 3, 3, 3}, w);
    m.init("cb", {4}, {bias[0], bias[1], bias[2], bias[3]});
    m.init("s", {4}, {s[0], s[1], s[2], s[3]});
    m.init("b", {4}, {b[0], b[1], b[2], b[3]});
    m.init("mean", {4}, {mean[0], mean[1], mean[2], mean[3]});
    m.init("var", {4}, {var[0], var[1], var[2], var[3]});
    m.output("y", 4);
    if (conv_output_too) m.output("t", 4);
    std::vector<std::string> in = {"x", "w"};
    if (with_bias) in.push_back("cb");
    attr(m.node("Conv", in, {"t"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
    attr(m.node("BatchNormalization", {"t", "s", "b", "mean", "var"}, {"u"}), "epsilon", 0.01f);
    m.node("Relu", {"u"}, {"y"});
    return m;
  };
  Tensor x = f32({2, 3, 5, 5}, noise);
  for (bool with_bias : {false, true}) {
    Model m = model(with_bias, false);
    Tensor wt = f32({4, 3, 3, 3}, [](int64_t i) { return noise(i * 5 + 2); });
    std::vector<float> conv = naive_conv(x, wt, 1, 1, 1, 1, 5, 5);
    std::vector<float> want;
    for (std::size_t i = 0; i < conv.size(); ++i) {
      int c = int(i / 25 % 4);
      float t = conv[i] + (with_bias ? bias[c] : 0.0f);
      want.push_back(std::max(0.0f, (t - mean[c]) / std::sqrt(var[c] + 0.01f) * s[c] + b[c]));
    }
    Program folded = m.program();
    BOOST_TEST(program_module(folded).code.size() == 2u);  // conv2d, relu
    BOOST_TEST(count_ops(folded, "conv2d") == 1);
    BOOST_TEST(count_ops(folded, "relu") == 1);
    check_close(values(run(folded, {x})[0]), want);
    // The importer's result is the same (folded or not).
    check_close(values(run(m.program(), {x})[0]), want);
  }
  // The conv's output is also a graph output: it must stay, so nothing is folded.
  Program both = model(true, true).program();
  BOOST_TEST(count_ops(both, "conv2d") == 1);
  BOOST_TEST(count_ops(both, "mul") == 1);
  BOOST_TEST(count_ops(both, "add") == 1);
}

BOOST_AUTO_TEST_CASE(batchnorm_folds_into_a_gemm_with_constant_weights) {
  for (bool tb : {false, true}) {
    Model m(15);
    m.input("a", {2, 3});
    // B' (3, 2) = [[1, 2], [3, 4], [5, 6]] (stored transposed with transB).
    if (tb) m.init("w", {2, 3}, {1, 3, 5, 2, 4, 6});
    else m.init("w", {3, 2}, {1, 2, 3, 4, 5, 6});
    m.init("c", {2}, {10, 20});
    m.init("s", {2}, {2, -1});
    m.init("b", {2}, {1, 0.5f});
    m.init("mean", {2}, {3, -2});
    m.init("var", {2}, {0.25f, 4});
    m.output("y", 2);
    auto* g = m.node("Gemm", {"a", "w", "c"}, {"t"});
    attr(g, "alpha", 0.5f);
    attr(g, "beta", 2.0f);
    attr(g, "transB", int64_t(tb));
    attr(m.node("BatchNormalization", {"t", "s", "b", "mean", "var"}, {"u"}), "epsilon", 0.0f);
    m.node("Relu", {"u"}, {"y"});
    Program p = m.program();
    BOOST_TEST(program_module(p).code.size() == 2u);  // dense, relu
    BOOST_TEST(count_ops(p, "dense") == 1);
    Tensor a = f32({2, 3}, [](int64_t i) { return float(i) - 2; });
    const float bw[3][2] = {{1, 2}, {3, 4}, {5, 6}}, cv[] = {10, 20}, sv[] = {2, -1}, bv[] = {1, 0.5f},
                mv[] = {3, -2}, vv[] = {0.25f, 4};
    std::vector<float> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        float t = 2 * cv[j];
        for (int k = 0; k < 3; ++k) t += 0.5f * a.data<float>()[i * 3 + k] * bw[k][j];
        want.push_back(std::max(0.0f, (t - mv[j]) / std::sqrt(vv[j]) * sv[j] + bv[j]));
      }
    check_close(values(run(p, {a})[0]), want);
    check_close(values(run(m.program(), {a})[0]), want);
  }
}

BOOST_AUTO_TEST_CASE(batchnorm_with_run_time_statistics_is_the_native_op) {
  Model m(15);
  m.input("x", {2, 3, 4});
  m.input("mean", {3});
  m.init("s", {3}, {1, 2, 3});
  m.init("b", {3}, {0, 1, 2});
  m.init("var", {3}, {1, 4, 9});
  m.output("y", 3);
  m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"});
  Program p = m.program();
  BOOST_TEST(program_module(p).code.size() == 1u);
  BOOST_TEST(count_ops(p, "batch_norm") == 1);
  Tensor x = f32({2, 3, 4}, noise), mean = f32({3}, [](int64_t i) { return float(i) * 0.5f; });
  std::vector<float> want;
  for (int64_t i = 0; i < 24; ++i) {
    int c = int(i / 4 % 3);
    want.push_back((x.data<float>()[i] - mean.data<float>()[c]) / std::sqrt(float((c + 1) * (c + 1)) + 1e-5f) *
                       float(c + 1) + float(c));
  }
  check_close(values(run(p, {x, mean})[0]), want);
}

BOOST_AUTO_TEST_CASE(normalizations_are_one_native_instruction_each) {
  Model m(17);
  m.input("x", {2, 3, 4});
  m.init("s", {3}, {1, 2, 3});
  m.init("b", {3}, {0, 1, 2});
  m.init("ls", {4}, {1, -1, 2, 0.5f});
  m.output("inorm", 3);
  m.output("lnorm", 3);
  m.output("mvn", 3);
  m.output("lrn", 3);
  attr(m.node("InstanceNormalization", {"x", "s", "b"}, {"inorm"}), "epsilon", 0.5f);
  m.node("LayerNormalization", {"x", "ls"}, {"lnorm"});
  attr(m.node("MeanVarianceNormalization", {"x"}, {"mvn"}), "axes", std::vector<int64_t>{1, 2});
  attr(m.node("LRN", {"x"}, {"lrn"}), "size", int64_t(2));
  Program p = m.program();
  BOOST_TEST(program_module(p).code.size() == 4u);
  for (const char* op : {"instance_norm", "layer_norm", "mean_variance_normalization", "lrn"})
    BOOST_TEST(count_ops(p, op) == 1, op);
  Tensor x = f32({2, 3, 4}, noise);
  auto out = run(p, {x});
  const float* xv = x.data<float>();
  auto stats = [&](const std::vector<int64_t>& idx) {
    double m1 = 0, m2 = 0;
    for (int64_t i : idx) m1 += xv[i];
    m1 /= double(idx.size());
    for (int64_t i : idx) m2 += (xv[i] - m1) * (xv[i] - m1);
    return std::pair<double, double>{m1, m2 / double(idx.size())};
  };
  std::vector<float> in_want(24), ln_want(24), mvn_want(24), lrn_want(24);
  const float ls[] = {1, -1, 2, 0.5f};
  for (int64_t n = 0; n < 2; ++n) {
    std::vector<int64_t> all;
    for (int64_t c = 0; c < 3; ++c) {
      std::vector<int64_t> plane;
      for (int64_t w = 0; w < 4; ++w) plane.push_back((n * 3 + c) * 4 + w), all.push_back((n * 3 + c) * 4 + w);
      auto [mu, var] = stats(plane);
      for (int64_t i : plane) {
        in_want[std::size_t(i)] = float((xv[i] - mu) / std::sqrt(var + 0.5) * double(c + 1) + double(c));
        ln_want[std::size_t(i)] = float((xv[i] - mu) / std::sqrt(var + 1e-5) * ls[i % 4]);
      }
    }
    auto [mu, var] = stats(all);
    for (int64_t i : all) mvn_want[std::size_t(i)] = float((xv[i] - mu) / (std::sqrt(var) + 1e-9));
    // size 2: channels [c, c + 1].
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t w = 0; w < 4; ++w) {
        int64_t i = (n * 3 + c) * 4 + w;
        double sq = double(xv[i]) * xv[i];
        if (c + 1 < 3) sq += double(xv[i + 4]) * xv[i + 4];
        lrn_want[std::size_t(i)] = float(xv[i] / std::pow(1.0 + 1e-4 / 2 * sq, 0.75));
      }
  }
  check_close(values(out[0]), in_want);
  check_close(values(out[1]), ln_want);
  check_close(values(out[2]), mvn_want);
  check_close(values(out[3]), lrn_want);
}

// stash_type double with the statistics read: decomposed in f64 (the native op returns them
// as f32).
BOOST_AUTO_TEST_CASE(layer_norm_stash_type_double_statistics_are_f64) {
  Model m(17);
  m.input("x", {2, 3});
  m.init("s", {3}, {1, 1, 1});
  m.output("y", 2);
  m.output("mean", 2, onnx::TensorProto::DOUBLE);
  m.output("inv", 2, onnx::TensorProto::DOUBLE);
  attr(m.node("LayerNormalization", {"x", "s"}, {"y", "mean", "inv"}), "stash_type", int64_t(11));
  Program p = m.program();
  BOOST_TEST(count_ops(p, "layer_norm") == 0);
  auto out = run(p, {f32({2, 3}, [](int64_t i) { return float(i * i); })});
  BOOST_TEST(out[1].dtype() == DType::f64);
  BOOST_TEST(out[1].shape() == Dims({2, 1}));
  Tensor mean = contiguous(out[1]);
  BOOST_TEST(mean.data<double>()[0] == 5.0 / 3);
  BOOST_TEST(mean.data<double>()[1] == 50.0 / 3);
}

BOOST_AUTO_TEST_CASE(batchnorm_training_outputs_are_refused) {
  Model m(9);
  m.input("x", {1, 2, 2});
  for (const char* n : {"s", "b", "mean", "var"}) m.init(n, {2}, {1, 1});
  m.output("y", 3);
  m.output("rm", 1);
  m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y", "rm", "", "", ""});
  BOOST_TEST(import_error(m).find("inference only") != std::string::npos, import_error(m));
}

BOOST_AUTO_TEST_CASE(depth_to_space_and_back_with_a_dynamic_batch) {
  Model m(13);
  m.input("x", {-1, 8, 2, 3});
  m.output("y", 4);
  m.output("z", 4);
  auto* d = m.node("DepthToSpace", {"x"}, {"t"});
  attr(d, "blocksize", int64_t(2));
  attr(d, "mode", std::string("DCR"));
  attr(m.node("SpaceToDepth", {"t"}, {"z"}), "blocksize", int64_t(2));
  m.node("Identity", {"t"}, {"y"});
  Tensor x = f32({3, 8, 2, 3}, [](int64_t i) { return float(i); });
  auto out = run(m.program(), {x});
  BOOST_TEST(out[0].shape() == Dims({3, 2, 4, 6}));
  // DCR: y[n, c, h*2+i, w*2+j] = x[n, (i*2+j)*2 + c, h, w].
  std::vector<float> y = values(out[0]);
  BOOST_TEST(y[0 * 24 + 1 * 6 + 1] == x.data<float>()[(3 * 2 + 0) * 6]);  // c=0, h=0, i=1, w=0, j=1
  check_close(values(out[1]), values(x));  // SpaceToDepth inverts DCR
}

BOOST_AUTO_TEST_CASE(resize_nearest_with_integer_scales_is_upsampling) {
  Model m(13);
  m.input("x", {1, 1, 2, 2});
  m.init("scales", {4}, {1, 1, 2, 3});
  m.output("y", 4);
  m.node("Resize", {"x", "", "scales"}, {"y"});  // half_pixel + round_prefer_floor: replication
  Program p = m.program();
  BOOST_TEST(count_ops(p, "upsampling") == 1);
  auto out = run(p, {f32({1, 1, 2, 2}, [](int64_t i) { return float(i + 1); })});
  check_close(values(out[0]), {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

BOOST_AUTO_TEST_CASE(resize_modes_that_are_not_replication_are_the_resize_op) {
  auto ops = [](const std::string& coord, const std::string& mode, const std::string& nearest) {
    Model m(13);
    m.input("x", {1, 1, 4, 4});
    m.init("scales", {4}, {1, 1, 2, 2});
    m.output("y", 4);
    auto* n = m.node("Resize", {"x", "", "scales"}, {"y"});
    attr(n, "coordinate_transformation_mode", coord);
    attr(n, "mode", mode);
    attr(n, "nearest_mode", nearest);
    Program p = m.program();
    return std::pair<int, int>{count_ops(p, "upsampling"), count_ops(p, "resize")};
  };
  BOOST_TEST((ops("asymmetric", "nearest", "floor") == std::pair<int, int>{1, 0}));
  BOOST_TEST((ops("tf_half_pixel_for_nn", "nearest", "floor") == std::pair<int, int>{1, 0}));
  BOOST_TEST((ops("align_corners", "nearest", "floor") == std::pair<int, int>{0, 1}));
  BOOST_TEST((ops("half_pixel", "nearest", "ceil") == std::pair<int, int>{0, 1}));
  BOOST_TEST((ops("half_pixel", "linear", "floor") == std::pair<int, int>{0, 1}));
}

// Resize with scales: the output dims are floor(dims * scales) and the coordinates use the
// scales themselves (not sizes / dims); with sizes, the scale is sizes / dims.
BOOST_AUTO_TEST_CASE(resize_by_scales_floors_the_sizes_and_keeps_the_scales) {
  Model m(13);
  m.input("x", {1, 1, 1, 5});
  m.init("scales", {4}, {1, 1, 1, 0.5f});
  m.output("y", 4);
  attr(m.node("Resize", {"x", "", "scales"}, {"y"}), "coordinate_transformation_mode", std::string("asymmetric"));
  auto out = run(m.program(), {f32({1, 1, 1, 5}, [](int64_t i) { return float(i * 10); })});
  BOOST_TEST(out[0].shape() == Dims({1, 1, 1, 2}));  // floor(5 * 0.5)
  check_close(values(out[0]), {0, 20});  // x = 2 * i (scale 0.5), not 2.5 * i (5 / 2)
  Model d(13);
  d.input("x", {3, 2, 2});
  d.init_i64("sizes", {3, 2, 4});
  d.output("y", 3);
  attr(d.node("Resize", {"x", "", "", "sizes"}, {"y"}), "mode", std::string("linear"));
  out = run(d.program(), {f32({3, 2, 2}, [](int64_t i) { return float(i % 4); })});
  BOOST_TEST(out[0].shape() == Dims({3, 2, 4}));
  std::vector<float> y = values(out[0]);
  check_close(std::vector<float>(y.begin(), y.begin() + 4), {0, 0.25f, 0.75f, 1});
}

// Debian's backend tests of Resize and Upsample pass scales, sizes and roi as graph inputs,
// which mlvm needs at import time: here they become initializers (from test_data_set_0), and
// every one of those tests must then pass.
BOOST_AUTO_TEST_CASE(backend_resize_tests_with_constant_scales_and_sizes) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(testing::kBackendDataRoot) / "node";
  if (!fs::is_directory(root)) return;
  int checked = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("test_resize", 0) != 0 && name.rfind("test_upsample", 0) != 0) continue;
    // align_corners with scales that do not give whole lengths: mlvm divides by the output
    // length R as ONNX Runtime does; the test data (ONNX's Python reference) by scale * L
    // (docs/ops.md, resize).
    if (name == "test_resize_downsample_scales_linear_align_corners" ||
        name == "test_resize_downsample_scales_cubic_align_corners")
      continue;
    onnx::ModelProto m;
    std::vector<uint8_t> bytes = read_file_bounded((e.path() / "model.onnx").string(), 1 << 20, "model");
    BOOST_TEST_REQUIRE(m.ParseFromArray(bytes.data(), int(bytes.size())));
    const fs::path set = e.path() / "test_data_set_0";
    auto* g = m.mutable_graph();
    for (int k = g->input_size() - 1; k >= 1; --k) {
      std::vector<uint8_t> pb = read_file_bounded((set / ("input_" + std::to_string(k) + ".pb")).string(), 1 << 20, "pb");
      auto* init = g->add_initializer();
      BOOST_TEST_REQUIRE(init->ParseFromArray(pb.data(), int(pb.size())));
      init->set_name(g->input(k).name());
      g->mutable_input()->DeleteSubrange(k, 1);
    }
    std::string s = m.SerializeAsString();
    try {
      Program p = Program::from_onnx_bytes(std::vector<uint8_t>(s.begin(), s.end()));
      Tensor x = testing::backend_detail::read_pb(set / "input_0.pb").value;
      auto out = run(p, {x});
      std::string diff = testing::backend_detail::compare(out[0], testing::backend_detail::read_pb(set / "output_0.pb"), 1e-3, 1e-7);
      BOOST_TEST(diff.empty(), name << ": " << diff);
    } catch (const Error& err) {
      BOOST_TEST(false, name << ": " << err.message());
    }
    ++checked;
  }
  BOOST_TEST(checked >= 20);
}

BOOST_AUTO_TEST_CASE(upsample_opset_7_reads_its_scales_attribute) {
  Model m(7);
  m.input("x", {1, 2, 1, 2});
  m.output("y", 4);
  auto* n = m.node("Upsample", {"x"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("scales");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float s : {1.0f, 1.0f, 2.0f, 2.0f}) a->add_floats(s);
  auto out = run(m.program(), {f32({1, 2, 1, 2}, [](int64_t i) { return float(i); })});
  check_close(values(out[0]), {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3});
  BOOST_TEST(count_ops(m.program(), "upsampling") == 1);
  // 1.5: floor(1 * 1.5) = 1 row, asymmetric coordinates, "simple" rounding (truncation).
  a->set_floats(2, 1.5f);
  a->set_floats(3, 1.5f);
  Program p = m.program();
  BOOST_TEST(count_ops(p, "resize") == 1);
  out = run(p, {f32({1, 2, 1, 2}, [](int64_t i) { return float(i); })});
  BOOST_TEST(out[0].shape() == Dims({1, 2, 1, 3}));
  check_close(values(out[0]), {0, 0, 1, 2, 2, 3});
}

// f64 scores, int32 labels, ignore_index -1 without weights: the mean over the labels kept.

BOOST_AUTO_TEST_SUITE_END()
