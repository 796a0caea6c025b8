// TypeTable: distinct TensorTypes, each numbered once in order of first use. The verifier
// keeps its register states as indices into one, the encoder writes one as the module's type
// section, and the execution plan checks results against one (with precision dropped).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/types.hpp"

namespace mlvm {

class TypeTable {
 public:
  // The index of `t` (by dtype, dims and precision; `present` is not part of a type), adding
  // it if it is new. Indices count up from 0 in order of first use.
  int32_t intern(const TensorType& t) {
    auto [it, fresh] = ids_.try_emplace(key_of(t), int32_t(types_.size()));
    if (fresh) {
      types_.push_back(t);
      types_.back().present = true;
    }
    return it->second;
  }

  const TensorType& operator[](int32_t id) const { return types_[std::size_t(id)]; }
  int32_t size() const { return int32_t(types_.size()); }
  const std::vector<TensorType>& types() const { return types_; }
  // The types, in index order, leaving the table empty.
  std::vector<TensorType> take() {
    ids_.clear();
    return std::move(types_);
  }

 private:
  // dtype, rank, precision, then the dims' bytes: equal keys are equal types.
  static std::string key_of(const TensorType& t) {
    std::string key;
    key.reserve(2 + sizeof t.precision + sizeof(int64_t) * std::size_t(t.dims.size()));
    key.push_back(char(t.dtype));
    key.push_back(char(t.dims.size()));
    key.append(reinterpret_cast<const char*>(&t.precision), sizeof t.precision);
    key.append(reinterpret_cast<const char*>(t.dims.data()),
               sizeof(int64_t) * std::size_t(t.dims.size()));
    return key;
  }

  std::vector<TensorType> types_;
  std::unordered_map<std::string, int32_t> ids_;
};

}  // namespace mlvm
