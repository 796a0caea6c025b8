#include "vm/render.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

namespace mlvm {

namespace {

template <class T>
void append_float(std::string& out, T v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[64];
  // Shortest text that reads back as the same value: 0.1f prints as 0.1, not 0.100000001.
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

class Renderer {
 public:
  Renderer(const Tensor& t, const RenderOptions& o, std::size_t indent)
      : t_(t), elide_(t.numel() > o.threshold), edge_(o.edge_items), indent_(indent) {}

  void render(std::string& out) { render_dim(out, 0, t_.offset()); }

 private:
  void element(std::string& out, int64_t elem) {
    const std::byte* p = t_.storage()->data() + elem * t_.itemsize();
    visit_dtype(t_.dtype(), [&](auto tag) {
      using V = typename decltype(tag)::type;
      storage_t<V> v;
      std::memcpy(&v, p, sizeof v);
      if constexpr (std::is_same_v<V, bool_tag>)
        out += v ? "true" : "false";
      else if constexpr (std::is_floating_point_v<V>)
        append_float(out, v);
      else
        out += std::to_string(int64_t(v));
    });
  }

  void render_dim(std::string& out, int d, int64_t base) {
    const int64_t n = t_.dim(d), stride = t_.strides()[d];
    const bool cut = elide_ && n > 2 * edge_;
    const bool last = d + 1 == t_.rank();
    out += '[';
    for (int64_t i = 0; i < n; ++i) {
      if (cut && i == edge_) {
        out += last ? "..., " : "...,";
        if (!last) newline(out, d);
        i = n - edge_;
      }
      if (last)
        element(out, base + i * stride);
      else
        render_dim(out, d + 1, base + i * stride);
      if (i + 1 < n) {
        out += ',';
        if (last)
          out += ' ';
        else
          newline(out, d);
      }
    }
    out += ']';
  }

  // Rows of a matrix go on their own lines, aligned under the opening bracket; a blank line
  // separates blocks of rank 3 and up, as NumPy does.
  void newline(std::string& out, int d) {
    for (int k = d + 2; k < t_.rank(); ++k) out += '\n';
    out += '\n';
    out.append(indent_ + std::size_t(d) + 1, ' ');
  }

  const Tensor& t_;
  bool elide_;
  int64_t edge_;
  std::size_t indent_;
};

}  // namespace

void render_tensor(std::ostream& os, std::string_view name, const Tensor& t,
                   const RenderOptions& options) {
  std::string out;
  out.append(name);
  out += " : ";
  if (!t.defined()) {
    out += "none\n";
    os << out;
    return;
  }
  const bool scalar = options.scalar && t.numel() == 1;
  out += scalar ? std::string(dtype_name(t.dtype())) + "[]" : t.type_string();
  out += " = ";
  Renderer r(t, options, out.size());
  const std::size_t start = out.size();
  r.render(out);
  if (scalar && out.size() >= start + 2 && out[start] == '[' && out.back() == ']')
    out = out.substr(0, start) + out.substr(start + 1, out.size() - start - 2);
  out += '\n';
  os << out;
}

std::string print_label(std::string_view source, int64_t line, std::size_t pc,
                        std::string_view name) {
  std::string where;
  if (line > 0)
    where = source.empty() ? "line " + std::to_string(line)
                           : std::string(source) + ":" + std::to_string(line);
  else
    where = "instruction " + std::to_string(pc);
  return "print @ " + where + ": " + std::string(name);
}

}  // namespace mlvm
