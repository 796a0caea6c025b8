// mlvm-run's helpers that are not option handling: scalar `--input NAME=3` values, the
// `--list-ops` listing (straight from the op table, so it cannot drift from what the
// assembler accepts) and the `--profile=json` document. Header-only: tools/ builds one
// executable per mlvm-*.cpp.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ir/op_table.hpp"
#include "mlvm/mlvm.hpp"
#include "tensor/copy.hpp"
#include "tensor/scalar.hpp"

namespace mlvm::tools {

// A numeric literal as the language writes it (42, -7, 0x1F, 1.5, -2e-3, inf, -inf, nan,
// true, false); nullopt when `text` is not one, so that the caller treats it as a file name.
inline std::optional<Scalar> parse_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text == "true") return Scalar::from_int(1);
  if (text == "false") return Scalar::from_int(0);
  if (text == "inf" || text == "+inf") return Scalar::from_float(INFINITY);
  if (text == "-inf") return Scalar::from_float(-INFINITY);
  if (text == "nan") return Scalar::from_float(NAN);
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const std::size_t digits_at = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (!std::isdigit(static_cast<unsigned char>(s[digits_at])) && s[digits_at] != '.')
    return std::nullopt;
  long long i = std::strtoll(s, &end, 0);
  if (*end == '\0' && errno == 0 && !(text.size() > digits_at + 1 && s[digits_at] == '0' &&
                                      std::isdigit(static_cast<unsigned char>(s[digits_at + 1]))))
    return Scalar::from_int(int64_t(i));
  errno = 0;
  double f = std::strtod(s, &end);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  return Scalar::from_float(f);
}

// `--input NAME=VALUE[:DTYPE]` as a one-element tensor (the language's scalar is DTYPE[1]),
// or nullopt when VALUE is not a number (then it names a file; "./3" is the file "3").
// Without :DTYPE the dtype is the input's declared one. Error(usage) for an unknown dtype
// or a value the dtype cannot hold exactly.
inline std::optional<Tensor> scalar_input(const std::string& name, const std::string& spec,
                                          DType declared) {
  std::string value = spec;
  std::optional<DType> dtype;
  const auto colon = spec.rfind(':');
  if (colon != std::string::npos) {
    if (!parse_number(spec.substr(0, colon))) return std::nullopt;
    value = spec.substr(0, colon);
    dtype = dtype_from_name(spec.substr(colon + 1));
    if (!dtype)
      fail(ErrorKind::usage, "--input " + name + "=" + spec + ": unknown dtype '" +
                                 spec.substr(colon + 1) +
                                 "' (expected f32, f64, i8, u8, i16, i32, i64 or bool)");
  }
  const std::optional<Scalar> v = parse_number(value);
  if (!v) return std::nullopt;
  const DType t = dtype.value_or(declared);
  if (!scalar_fits(*v, t))
    fail(ErrorKind::usage, "--input " + name + "=" + spec + ": " + v->to_string() +
                               " is not a value of " + std::string(dtype_name(t)));
  return contiguous(constant_tensor(t, Dims{1}, *v));
}

// One line per op: "name(input, input?, inputs...) -> N results  attr:kind=default ...".
inline void list_ops(std::ostream& os) {
  for (const OpInfo& op : all_ops()) {
    os << op.name << "(";
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
      const InputSpec& in = op.inputs[k];
      os << (k ? ", " : "") << in.name << (in.optional ? "?" : "") << (in.variadic ? "..." : "");
    }
    os << ") -> " << op.num_results << (op.num_results == 1 ? " result" : " results");
    for (const AttrSpec& a : op.attrs) os << "  " << a.to_string();
    if (!op.aliases.empty()) {
      os << "  (also:";
      for (const auto& alias : op.aliases) os << " " << alias;
      os << ")";
    }
    os << "\n";
  }
}

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Each executed kernel instruction's calls and time summed over the runs, in program order.
inline std::vector<InstructionTiming> instructions_summed(const std::vector<RunStats>& runs) {
  std::map<int64_t, InstructionTiming> by_pc;
  for (const auto& r : runs)
    for (const auto& i : r.instructions) {
      auto [it, fresh] = by_pc.try_emplace(i.pc, i);
      if (!fresh) {
        it->second.count += i.count;
        it->second.seconds += i.seconds;
      }
    }
  std::vector<InstructionTiming> out;
  for (auto& [pc, t] : by_pc) out.push_back(std::move(t));
  return out;
}

// The per-op profile summed over the runs, for tools: run times in milliseconds, the runs' peak
// live bytes, and one entry per op kind executed with the bytes its kernels allocated.
inline void profile_json(std::ostream& os, const std::vector<RunStats>& runs) {
  struct Row {
    int64_t calls = 0;
    double seconds = 0;
    int64_t bytes = 0;
  };
  std::map<std::string, Row> rows;
  int64_t peak = 0;
  os << "{\n  \"runs\": [";
  for (std::size_t k = 0; k < runs.size(); ++k) {
    os << (k ? ", " : "") << runs[k].seconds * 1e3;
    peak = std::max(peak, runs[k].peak_bytes);
    for (const auto& o : runs[k].ops) {
      rows[o.op].calls += o.count;
      rows[o.op].seconds += o.seconds;
      rows[o.op].bytes += o.bytes;
    }
  }
  os << "],\n  \"peak_bytes\": " << peak << ",\n  \"ops\": [";
  bool first = true;
  for (const auto& [op, row] : rows) {
    os << (first ? "\n" : ",\n") << "    {\"name\": " << json_string(op)
       << ", \"calls\": " << row.calls << ", \"total_ms\": " << row.seconds * 1e3
       << ", \"mean_ms\": " << (row.calls ? row.seconds * 1e3 / double(row.calls) : 0.0)
       << ", \"bytes\": " << row.bytes << "}";
    first = false;
  }
  // Every executed kernel instruction, summed over the runs, in program order.
  os << (first ? "],\n  \"instructions\": [" : "\n  ],\n  \"instructions\": [");
  first = true;
  // Its median time per run too: a layer's first runs (page faults, cold caches) weigh on the
  // mean; the median is the steady state to set beside another engine's per-node profile.
  std::map<int64_t, std::vector<double>> per_run;
  for (const auto& r : runs) {
    std::map<int64_t, double> in_run;
    for (const auto& i : r.instructions) in_run[i.pc] += i.seconds;
    for (const auto& [pc, seconds] : in_run) per_run[pc].push_back(seconds);
  }
  for (const InstructionTiming& t : instructions_summed(runs)) {
    std::vector<double>& v = per_run[t.pc];
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    const double median = v.empty() ? 0.0 : v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
    os << (first ? "\n" : ",\n") << "    {\"pc\": " << t.pc << ", \"op\": " << json_string(t.op)
       << ", \"origin\": " << json_string(t.origin) << ", \"calls\": " << t.count
       << ", \"total_ms\": " << t.seconds * 1e3 << ", \"median_ms\": " << median * 1e3 << "}";
    first = false;
  }
  os << (first ? "]\n}\n" : "\n  ]\n}\n");
}

}  // namespace mlvm::tools
