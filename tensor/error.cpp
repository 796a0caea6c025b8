#include "tensor/error.hpp"

namespace mlvm {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return "usage error";
    case ErrorKind::io: return "i/o error";
    case ErrorKind::malformed: return "malformed";
    case ErrorKind::invalid: return "invalid";
    case ErrorKind::trap: return "trap";
    case ErrorKind::limit: return "limit";
  }
  return "error";
}

std::string Error::describe() const {
  std::string s;
  if (!location_.empty()) s += location_ + ": ";
  s += error_kind_name(kind_);
  s += ": ";
  s += what();
  return s;
}

void fail(ErrorKind kind, std::string message) { throw Error(kind, std::move(message)); }

}  // namespace mlvm
