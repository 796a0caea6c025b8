// Einsum, lowered at import time (no string attribute in the op table): every operand is
// transposed to one common letter order with size-1 dims for the letters it lacks, the
// operands are multiplied (broadcasting), the letters absent from the output are summed, and
// the rest transposed to the output order. Explicit ("ij,jk->ik") and implicit ("ij,jk")
// forms and "..." are supported; a letter repeated within one operand is its diagonal, taken
// first (take_diagonals).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>

#include "onnx/lowering.hpp"
#include "tensor/error.hpp"

namespace mlvm {

namespace {

// Splits "ab,bc->ac" into operand terms and the output term (implicit: sorted letters used once).
struct Equation {
  std::vector<std::string> inputs;
  std::string output;
};

Equation parse(NodeContext& c, std::string eq, const std::vector<int>& ranks) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  Equation e;
  std::string lhs = eq;
  auto arrow = eq.find("->");
  bool explicit_out = arrow != std::string::npos;
  if (explicit_out) {
    lhs = eq.substr(0, arrow);
    e.output = eq.substr(arrow + 2);
  }
  std::size_t at = 0;
  while (true) {
    auto comma = lhs.find(',', at);
    e.inputs.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (e.inputs.size() != ranks.size())
    c.fail("equation has " + std::to_string(e.inputs.size()) + " terms for " +
           std::to_string(ranks.size()) + " inputs");
  // "..." stands for the leading dims an operand has beyond its letters: upper-case letters.
  int ell = 0;
  for (std::size_t k = 0; k < e.inputs.size(); ++k) {
    std::string& t = e.inputs[k];
    auto dots = t.find("...");
    if (dots == std::string::npos) continue;
    int extra = ranks[k] - int(t.size() - 3);
    if (extra < 0) c.fail("term '" + t + "' has more letters than its input's rank");
    ell = std::max(ell, extra);
    std::string fill;
    for (int i = 0; i < extra; ++i) fill += char('A' + (ell - extra) + i);
    t.replace(dots, 3, fill);
  }
  std::string ell_letters;
  for (int i = 0; i < ell; ++i) ell_letters += char('A' + i);
  if (explicit_out) {
    auto dots = e.output.find("...");
    if (dots != std::string::npos) e.output.replace(dots, 3, ell_letters);
  } else {
    std::map<char, int> count;
    for (const auto& t : e.inputs)
      for (char ch : t) ++count[ch];
    e.output = ell_letters;
    for (auto& [ch, n] : count)
      if (n == 1 && !(ch >= 'A' && ch <= 'Z')) e.output += ch;
  }
  for (std::size_t k = 0; k < e.inputs.size(); ++k) {
    const std::string& t = e.inputs[k];
    for (char ch : t)
      if (!std::isalpha(static_cast<unsigned char>(ch))) c.fail("equation term '" + t + "' has '" + ch + "'");
    if (int(t.size()) != ranks[k]) c.fail("term '" + t + "' does not match its input's rank " + std::to_string(ranks[k]));
  }
  return e;
}

// A letter repeated within a term is a diagonal: v's two dims of that letter (equal sizes n)
// moved last, joined into one of n·n, and every (n+1)-th element taken; the term keeps the
// letter once, last. Repeated until every letter appears once.
Val take_diagonals(NodeContext& c, Val v, std::string& term) {
  for (;;) {
    std::size_t p = std::string::npos, q = std::string::npos;
    for (std::size_t i = 0; i < term.size() && p == std::string::npos; ++i)
      if (auto j = term.find(term[i], i + 1); j != std::string::npos) p = i, q = j;
    if (p == std::string::npos) return v;
    const Dims d = c.e.dims(v);
    const int64_t n = d[int(p)];
    if (n == kDynamic || d[int(q)] != n)
      c.fail("the diagonal of '" + std::string(1, term[p]) + "' in term '" + term + "' needs two equal static dims");
    std::vector<int64_t> perm, shape;
    std::string rest;
    for (std::size_t i = 0; i < term.size(); ++i)
      if (i != p && i != q) {
        perm.push_back(int64_t(i));
        shape.push_back(d[int(i)] == kDynamic ? -1 : d[int(i)]);
        rest += term[i];
      }
    if (std::count(shape.begin(), shape.end(), int64_t(-1)) > 1) c.fail("a diagonal beside several dynamic dims");
    perm.push_back(int64_t(p));
    perm.push_back(int64_t(q));
    shape.push_back(n * n);
    Val flat = c.e.emit(op::reshape, {c.e.emit(op::transpose, {v}, {.axes = perm})}, {.shape = shape});
    const int64_t last = int64_t(shape.size()) - 1;
    v = c.e.emit(op::strided_slice, {flat}, {.begin = {0}, .end = {n * n}, .strides = {n + 1}, .axes = {last}});
    term = rest + term[p];
  }
}

std::vector<Val> lower_einsum(NodeContext& c) {
  std::vector<int> ranks;
  for (Val v : c.in) ranks.push_back(c.e.rank(v));
  Equation eq = parse(c, c.attr_string("equation", ""), ranks);
  // The common order: output letters first, then the summed ones.
  std::string all = eq.output;
  for (const auto& t : eq.inputs)
    for (char ch : t)
      if (all.find(ch) == std::string::npos) all += ch;
  Val product;
  for (std::size_t k = 0; k < eq.inputs.size(); ++k) {
    Val v = take_diagonals(c, c.in[k], eq.inputs[k]);
    const std::string& t = eq.inputs[k];
    // Transpose to the letters' order in `all`, then insert 1s for the missing letters.
    std::vector<int64_t> perm;
    for (char ch : all)
      if (auto p = t.find(ch); p != std::string::npos) perm.push_back(int64_t(p));
    if (!perm.empty()) {
      bool identity = true;
      for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == int64_t(i);
      if (!identity) v = c.e.emit(op::transpose, {v}, {.axes = perm});
    }
    std::vector<int64_t> shape;
    std::size_t next = 0;
    Dims vd = c.e.dims(v);
    for (char ch : all) shape.push_back(t.find(ch) != std::string::npos ? vd[int(next++)] : 1);
    if (std::count(shape.begin(), shape.end(), kDynamic) > 1) c.fail("several dynamic dims");
    for (int64_t& s : shape)
      if (s == kDynamic) s = -1;
    if (shape.empty()) shape.push_back(1);
    v = c.e.emit(op::reshape, {v}, {.shape = shape});
    product = product.present() ? c.e.emit(op::mul, {product, v}) : v;
  }
  const int out_rank = int(eq.output.size());
  std::vector<int64_t> summed;
  for (int k = out_rank; k < int(all.size()); ++k) summed.push_back(k);
  Val y = product;
  if (!summed.empty()) y = c.e.emit(op::sum, {y}, {.axes = summed, .keepdims = true});
  std::vector<int64_t> out_shape;
  Dims yd = c.e.dims(y);
  for (int k = 0; k < out_rank; ++k) out_shape.push_back(yd[k] == kDynamic ? -1 : yd[k]);
  if (out_rank == 0) return one(c.e.with_scalar(c.e.emit(op::reshape, {y}, {.shape = {1}}), true));
  return one(c.e.emit(op::reshape, {y}, {.shape = out_shape}));
}

constexpr LoweringEntry kTable[] = {
    {"Einsum", 12, lower_einsum},
};

}  // namespace

std::span<const LoweringEntry> einsum_lowerings() { return kTable; }

}  // namespace mlvm
