#include "onnx/half_initializers.hpp"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace mlvm {

namespace {

using TP = onnx::TensorProto;
constexpr int kMaxDepth = 16;  // as onnx/graph_check.cpp: deeper is refused there

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// IEEE binary16 to binary32: every value (subnormals, infinities, NaN payloads) exactly.
float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) return std::copysign(std::ldexp(float(mant), -24), from_bits(sign | 0x3f800000u));
  if (exp == 31) return from_bits(sign | 0x7f800000u | (mant << 13));
  return from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

float bfloat_to_float(uint16_t b) { return from_bits(uint32_t(b) << 16); }

// Whether the value named `name` is read, in g and the graphs nested in it, only as input 0 of
// a Cast to f32 or f64.
void readers_only_widen(const onnx::GraphProto& g, const std::string& name, bool& only, int depth) {
  if (depth > kMaxDepth) {
    only = false;
    return;
  }
  for (const auto& n : g.node()) {
    for (int k = 0; k < n.input_size(); ++k) {
      if (n.input(k) != name) continue;
      bool widening = n.op_type() == "Cast" && (n.domain().empty() || n.domain() == "ai.onnx") && k == 0;
      if (widening) {
        widening = false;
        for (const auto& a : n.attribute())
          if (a.name() == "to") widening = a.i() == TP::FLOAT || a.i() == TP::DOUBLE;
      }
      if (!widening) only = false;
    }
    for (const auto& a : n.attribute()) {
      if (a.has_g()) readers_only_widen(a.g(), name, only, depth + 1);
      for (const auto& sub : a.graphs()) readers_only_widen(sub, name, only, depth + 1);
    }
  }
  for (const auto& o : g.output())
    if (o.name() == name) only = false;
}

// The 16-bit values of a half or bfloat16 initializer, or false when they are not all there.
bool sixteen_bit_values(const TP& t, int64_t count, std::vector<uint16_t>& out) {
  if (t.has_raw_data()) {
    if (int64_t(t.raw_data().size()) != 2 * count) return false;
    out.resize(std::size_t(count));
    const auto* p = reinterpret_cast<const unsigned char*>(t.raw_data().data());
    for (int64_t k = 0; k < count; ++k) out[std::size_t(k)] = uint16_t(p[2 * k] | (p[2 * k + 1] << 8));
    return true;
  }
  if (t.int32_data_size() != count) return false;
  out.resize(std::size_t(count));
  for (int64_t k = 0; k < count; ++k) out[std::size_t(k)] = uint16_t(t.int32_data(int(k)));
  return true;
}

void widen_graph(onnx::GraphProto& g, int depth) {
  if (depth > kMaxDepth) return;
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) widen_graph(*a.mutable_g(), depth + 1);
      for (auto& sub : *a.mutable_graphs()) widen_graph(sub, depth + 1);
    }
  for (auto& t : *g.mutable_initializer()) {
    const int32_t type = t.data_type();
    if ((type != TP::FLOAT16 && type != TP::BFLOAT16) || t.data_location() == TP::EXTERNAL) continue;
    int64_t count = 1;
    bool sane = true;
    for (int64_t d : t.dims()) {
      if (d < 0 || (d > 0 && count > (int64_t(1) << 40) / d)) sane = false;
      else count *= d;
    }
    bool only = true;
    readers_only_widen(g, t.name(), only, depth);
    std::vector<uint16_t> bits;
    if (!sane || !only || !sixteen_bit_values(t, count, bits)) continue;
    std::string raw(std::size_t(count) * 4, '\0');
    for (int64_t k = 0; k < count; ++k) {
      const float f = type == TP::FLOAT16 ? half_to_float(bits[std::size_t(k)]) : bfloat_to_float(bits[std::size_t(k)]);
      std::memcpy(&raw[std::size_t(k) * 4], &f, 4);
    }
    t.clear_int32_data();
    t.set_raw_data(std::move(raw));
    t.set_data_type(TP::FLOAT);
    for (auto& in : *g.mutable_input())
      if (in.name() == t.name() && in.type().has_tensor_type())
        in.mutable_type()->mutable_tensor_type()->set_elem_type(TP::FLOAT);
  }
}

}  // namespace

void widen_half_initializers(onnx::GraphProto& g) { widen_graph(g, 0); }

}  // namespace mlvm
