// A host program that embeds mlvm: assembles a small program, lends it host memory as the
// input (no copy), binds one output to its own buffer, reads a transposed (view) output
// through its strides, and checks every value. Exits 0 when every value is right, else 1.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <mlvm/mlvm.hpp>
#include <vector>

namespace {

const char* kSource = R"(
.program scale_shift
.input  x : f32[?, 4]
.const  w : f32[4] = [1, -2, 0.5, 3]
.const  b : f32[4] = fill(1)
.output y : f32[?, 4]
.output yt : f32[4, ?]
    t = mul x, w        # broadcasts w over the rows
    t = add t, b
    y = relu t
    yt = transpose y    # a view: no copy, strides (1, 4)
)";

}  // namespace

int main() {
  try {
    mlvm::Program program = mlvm::Program::assemble(kSource, "scale_shift.mlasm");
    for (const auto& in : program.inputs())
      std::cout << "input  " << in.to_string() << "\n";
    for (const auto& out : program.outputs())
      std::cout << "output " << out.to_string() << "\n";

    // The host's own buffer, used in place.
    std::vector<float> x = {1, 2, 3, 4, -1, -2, -3, -4, 0.5f, 0.25f, 2, -0.5f};
    const float w[4] = {1, -2, 0.5f, 3};
    mlvm::Tensor xt = mlvm::borrow_tensor<const float>({3, 4}, x.data());

    mlvm::SessionOptions options;
    options.threads = 2;
    options.max_steps = 1000;
    options.max_memory = 1 << 20;
    mlvm::Session session(program, options);
    // y goes straight into the host's buffer (no allocation for it).
    std::vector<float> ybuf(x.size());
    session.bind_output("y", mlvm::borrow_tensor<float>({3, 4}, ybuf.data(), /*writable=*/true));
    mlvm::TensorMap outputs = session.run({{"x", xt}});

    mlvm::Tensor y = outputs.at("y");  // ours to keep: it holds its storage
    mlvm::print_tensor(std::cout, "y", y);
    std::vector<float> got = mlvm::to_vector<float>(y);
    const mlvm::Tensor& yt = outputs.at("yt");
    int bad = y.data<float>() == ybuf.data() ? 0 : 1;
    for (std::size_t i = 0; i < x.size(); ++i) {
      float want = std::max(x[i] * w[i % 4] + 1.0f, 0.0f);
      // The same value three ways: the bound buffer, y read back, and yt[c, r] through
      // the transpose's strides (not yt.data<float>()[i], which would ignore them).
      const float via_view = yt.at<float>({int64_t(i % 4), int64_t(i / 4)});
      if (std::fabs(got[i] - want) > 1e-6f || ybuf[i] != got[i] || via_view != got[i]) {
        std::printf("y[%zu] = %g / %g / %g, expected %g\n", i, double(got[i]), double(ybuf[i]),
                    double(via_view), double(want));
        ++bad;
      }
    }
    std::printf("mlvm %s: %lld steps, %lld bytes allocated\n", mlvm::version(),
                (long long)session.stats().steps, (long long)session.stats().allocated_bytes);

    // A wrong input is an error value for the host, never a crash or an exit.
    try {
      std::vector<float> wrong(5);
      session.run({{"x", mlvm::borrow_tensor<const float>({5}, wrong.data())}});
      std::printf("a rank-1 input was accepted\n");
      ++bad;
    } catch (const mlvm::Error& e) {
      std::cout << "rejected as expected: " << e.describe() << "\n";
      if (e.kind() != mlvm::ErrorKind::invalid) ++bad;
    }

    std::cout << (bad ? "FAILED" : "ok") << "\n";
    return bad ? 1 : 0;
  } catch (const mlvm::Error& e) {
    std::cerr << "embed: " << e.describe() << "\n";
    return 1;
  }
}
