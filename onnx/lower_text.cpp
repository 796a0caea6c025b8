// TfIdfVectorizer over integer tokens (strings are not an mlvm dtype), lowered to existing ops
// at import: for each n-gram length n and skip s (s = 0 only for n = 1), the n-grams of each
// row are the n strided slices x[:, k·(s+1) : k·(s+1) + L] stacked on a last axis (L positions
// where one fits), compared with the pool's n-grams of that length ([P, n], a constant):
// a position matches a pool n-gram when all n elements are equal. The matches summed over the
// positions and the skips are the counts (TF); IDF is count > 0, TFIDF the count, each times
// the pool n-gram's weight; a constant [P, output_size] one-hot by ngram_indexes sums them
// into the output columns. Needs a static row length.
#include <onnx/onnx_pb.h>

#include <algorithm>

#include "onnx/lowering.hpp"

namespace mlvm {

namespace {

// The pool's n-grams of length n (rows of a [P, n] i64 constant) and their pool positions
// (the index into ngram_indexes and weights), from ngram_counts' start offsets.
struct PoolGrams {
  std::vector<int64_t> values;  // P·n
  int64_t first = 0, count = 0;  // pool n-gram numbers [first, first + count)
};

PoolGrams pool_grams(NodeContext& c, const std::vector<int64_t>& pool, const std::vector<int64_t>& starts, int64_t n) {
  PoolGrams g;
  const std::size_t k = std::size_t(n - 1);
  if (k >= starts.size()) return g;
  const int64_t begin = starts[k], end = k + 1 < starts.size() ? starts[k + 1] : int64_t(pool.size());
  if (begin < 0 || end < begin || end > int64_t(pool.size()) || (end - begin) % n)
    c.fail("ngram_counts " + std::to_string(begin) + ".." + std::to_string(end) + " for " + std::to_string(n) +
           "-grams does not fit a pool of " + std::to_string(pool.size()));
  for (std::size_t j = 0; j < k; ++j) {  // the n-grams before: one pool number each
    const int64_t b = starts[j], e = j + 1 < starts.size() ? starts[j + 1] : int64_t(pool.size());
    if (e < b || (e - b) % int64_t(j + 1)) c.fail("ngram_counts must be non-decreasing offsets of whole n-grams");
    g.first += (e - b) / int64_t(j + 1);
  }
  g.values.assign(pool.begin() + begin, pool.begin() + end);
  g.count = (end - begin) / n;
  return g;
}

std::vector<Val> lower_tfidf_vectorizer(NodeContext& c) {
  Val x = c.input(0);
  const DType dt = c.e.dtype(x);
  if (dt != DType::i32 && dt != DType::i64) c.fail("TfIdfVectorizer takes int32 or int64 tokens (strings are not supported)");
  const int r = c.e.rank(x);
  if (r != 1 && r != 2) c.fail("X must be [C] or [N, C]");
  const int64_t len = c.e.dims(x)[std::size_t(r - 1)];
  if (len == kDynamic) c.fail("TfIdfVectorizer needs the row length known at import");
  const int64_t min_n = c.attr_int("min_gram_length", 1), max_n = c.attr_int("max_gram_length", 1);
  const int64_t max_skip = c.attr_int("max_skip_count", 0);
  const std::string mode = c.attr_string("mode", "TF");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") c.fail("mode " + mode + " (TF, IDF or TFIDF expected)");
  if (min_n < 1 || max_n < min_n || max_n > 16 || max_skip < 0 || max_skip > 256)
    c.fail("gram lengths " + std::to_string(min_n) + ".." + std::to_string(max_n) + " and max_skip_count " +
           std::to_string(max_skip) + " (1 <= min <= max <= 16, 0 <= skip <= 256 expected)");
  for (const auto& a : c.node.attribute())
    if (a.name() == "pool_strings" && a.strings_size() > 0) c.fail("pool_strings: string tokens are not supported");
  const std::vector<int64_t> pool = c.attr_ints("pool_int64s"), starts = c.attr_ints("ngram_counts");
  const std::vector<int64_t> columns = c.attr_ints("ngram_indexes");
  const std::vector<double> weights = c.attr_floats("weights");
  if (columns.empty()) c.fail("ngram_indexes is empty");
  if (!weights.empty() && weights.size() != columns.size()) c.fail("weights must have one entry per pool n-gram");
  int64_t out_size = 0;
  for (int64_t col : columns) {
    if (col < 0 || col > (int64_t(1) << 24)) c.fail("ngram_indexes holds " + std::to_string(col));
    out_size = std::max(out_size, col + 1);
  }
  Val rows = r == 1 ? c.e.emit(op::expand_dims, {x}, {.axis = 0}) : x;
  rows = c.e.emit(op::cast, {rows}, {.dtype = DType::i64});
  Val y;
  for (int64_t n = min_n; n <= max_n; ++n) {
    const PoolGrams g = pool_grams(c, pool, starts, n);
    if (g.count == 0) continue;
    if (g.first + g.count > int64_t(columns.size())) c.fail("ngram_indexes has fewer entries than the pool has n-grams");
    Tensor grams_t = Tensor::empty(DType::i64, Dims{1, 1, g.count, n});
    std::copy(g.values.begin(), g.values.end(), grams_t.data<int64_t>());
    Val grams = c.e.constant(std::move(grams_t));
    Val counts;
    for (int64_t s = 0; s <= (n == 1 ? 0 : max_skip); ++s) {
      const int64_t span = (n - 1) * (s + 1) + 1;
      if (span > len) break;
      const int64_t positions = len - span + 1;
      std::vector<Val> parts;
      for (int64_t k = 0; k < n; ++k) {
        Val part = c.e.emit(op::strided_slice, {rows}, {.begin = {k * (s + 1)}, .end = {k * (s + 1) + positions}, .axes = {1}});
        parts.push_back(c.e.emit(op::expand_dims, {part}, {.axis = 2}));
      }
      Val at = parts.size() == 1 ? parts[0] : c.e.emit(op::concatenate, parts, {.axis = 2});   // [N, L, n]
      Val same = c.e.emit(op::equal, {c.e.emit(op::expand_dims, {at}, {.axis = 2}), grams});    // [N, L, P, n]
      Val whole = c.e.emit(op::min, {c.e.emit(op::cast, {same}, {.dtype = DType::f32})}, {.axes = {3}});
      Val found = c.e.emit(op::sum, {whole}, {.axes = {1}});                                    // [N, P]
      counts = counts.present() ? c.e.emit(op::add, {counts, found}) : found;
    }
    if (!counts.present()) continue;
    // weight per pool n-gram, and the one-hot map to output columns
    Tensor w = Tensor::empty(DType::f32, Dims{g.count});
    Tensor map = Tensor::empty(DType::f32, Dims{g.count, out_size});
    std::fill_n(map.data<float>(), g.count * out_size, 0.0f);
    for (int64_t p = 0; p < g.count; ++p) {
      w.data<float>()[p] = weights.empty() ? 1.0f : float(weights[std::size_t(g.first + p)]);
      map.data<float>()[p * out_size + columns[std::size_t(g.first + p)]] = 1.0f;
    }
    Val v = counts;
    if (mode == "IDF")
      v = c.e.emit(op::cast, {c.e.emit(op::greater, {counts, c.e.scalar_const(DType::f32, 0.0)})}, {.dtype = DType::f32});
    if (mode != "TF") v = c.e.emit(op::mul, {v, c.e.constant(std::move(w))});
    Val part = c.e.emit(op::matmul, {v, c.e.constant(std::move(map))});
    y = y.present() ? c.e.emit(op::add, {y, part}) : part;
  }
  if (!y.present()) {  // no n-gram fits: zeros
    const int64_t batch = r == 1 ? 1 : c.e.dims(x)[0];
    if (batch == kDynamic) c.fail("no n-gram fits the rows, and the batch is not known at import");
    y = c.e.emit(op::zeros, {}, {.shape = {batch, out_size}, .dtype = DType::f32});
  }
  return one(r == 1 ? c.e.emit(op::squeeze, {y}, {.axes = {0}}) : y);
}

constexpr LoweringEntry kTable[] = {
    {"TfIdfVectorizer", 9, lower_tfidf_vectorizer},
};

}  // namespace

std::span<const LoweringEntry> text_lowerings() { return kTable; }

}  // namespace mlvm
