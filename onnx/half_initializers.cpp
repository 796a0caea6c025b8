#include "onnx/half_initializers.hpp"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "onnx/graph_walk.hpp"

namespace mlvm {

namespace {

using TP = onnx::TensorProto;

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

// Whether reading input k of node n (null: a graph output) widens the value: input 0 of a Cast
// to f32 or f64.
bool widens(const onnx::NodeProto* n, int k) {
  if (!n || k != 0 || n->op_type() != "Cast" || !(n->domain().empty() || n->domain() == "ai.onnx")) return false;
  for (const auto& a : n->attribute())
    if (a.name() == "to") return a.i() == TP::FLOAT || a.i() == TP::DOUBLE;
  return false;
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
  if (depth > kMaxSubgraphDepth) return;
  for (auto& n : *g.mutable_node())
    for_each_subgraph_mutable(n, [&](onnx::GraphProto& sub) { widen_graph(sub, depth + 1); });
  // Per half-precision initializer, whether every read of it (in g and the graphs nested in
  // it, which see g's values) widens it: one walk for all of them.
  std::map<std::string, bool> only_widened;
  for (const auto& t : g.initializer())
    if ((t.data_type() == TP::FLOAT16 || t.data_type() == TP::BFLOAT16) && t.data_location() != TP::EXTERNAL)
      only_widened.emplace(t.name(), true);
  if (only_widened.empty()) return;
  for_each_read(
      g,
      [&](const std::string& name, const onnx::NodeProto* n, int k) {
        if (auto it = only_widened.find(name); it != only_widened.end() && !widens(n, k)) it->second = false;
      },
      depth);
  for (auto& t : *g.mutable_initializer()) {
    const auto it = only_widened.find(t.name());
    if (it == only_widened.end() || !it->second) continue;
    int64_t count = 1;
    bool sane = true;
    for (int64_t d : t.dims()) {
      if (d < 0 || (d > 0 && count > (int64_t(1) << 40) / d)) sane = false;
      else count *= d;
    }
    std::vector<uint16_t> bits;
    if (!sane || !sixteen_bit_values(t, count, bits)) continue;
    const bool half = t.data_type() == TP::FLOAT16;
    std::string raw(std::size_t(count) * 4, '\0');
    for (int64_t k = 0; k < count; ++k) {
      const float f = half ? half_to_float(bits[std::size_t(k)]) : bfloat_to_float(bits[std::size_t(k)]);
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
