// The checks every kernel and tensor suite shares: a result type written in one call, an omitted
// optional input, and "this call fails with this kind of Error, saying this".
#pragma once

#include <boost/test/unit_test.hpp>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ir/types.hpp"
#include "tensor/error.hpp"

namespace mlvm::testing {

inline TensorType tt(DType dtype, Dims dims, int precision = kUnknownPrecision) {
  TensorType t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.precision = precision;
  return t;
}

// The type of an optional input left out.
inline TensorType absent() {
  TensorType t;
  t.present = false;
  return t;
}

// A callable taken by reference without a template: expect_error's body is then compiled once
// per test file instead of once per lambda (755 calls; they were 8% of the suites' code).
class CallRef {
 public:
  template <class Fn>
  CallRef(Fn& fn)
      : obj_(const_cast<void*>(static_cast<const void*>(&fn))),
        call_([](void* f) { (void)(*static_cast<Fn*>(f))(); }) {}
  void operator()() const { call_(obj_); }

 private:
  void* obj_;
  void (*call_)(void*);
};

// Runs fn and checks that it throws mlvm::Error of `kind` whose message contains every one of
// `parts` (a message is checked by its parts, so rewording the rest does not break a test).
inline void expect_error_ref(CallRef fn, ErrorKind kind, const std::vector<std::string>& parts) {
  try {
    fn();
  } catch (const Error& e) {
    BOOST_CHECK_MESSAGE(e.kind() == kind,
                        "kind " << e.kind() << " (expected " << kind << ") for: " << e.message());
    for (const std::string& p : parts)
      BOOST_CHECK_MESSAGE(e.message().find(p) != std::string::npos,
                          "message \"" << e.message() << "\" lacks \"" << p << "\"");
    return;
  }
  std::string want;
  for (const std::string& p : parts) want += " \"" + p + "\"";
  BOOST_ERROR("no error thrown; expected " << kind << " error containing" << want);
}

template <class Fn>
inline void expect_error(Fn&& fn, ErrorKind kind, const std::vector<std::string>& parts) {
  expect_error_ref(CallRef(fn), kind, parts);
}

// The same for a braced list of parts: expect_error(fn, kind, {"a", "b"}).
template <class Fn>
inline void expect_error(Fn&& fn, ErrorKind kind, std::initializer_list<std::string> parts) {
  expect_error_ref(CallRef(fn), kind, std::vector<std::string>(parts));
}

// The same with one part.
template <class Fn>
inline void expect_error(Fn&& fn, ErrorKind kind, const std::string& needle) {
  expect_error_ref(CallRef(fn), kind, std::vector<std::string>{needle});
}

}  // namespace mlvm::testing
