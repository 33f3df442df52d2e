// errors.cpp: the std::invalid_argument messages of the public API's argument checks
// (include/forkjoin/detail/errors.hpp).
#include "forkjoin/detail/errors.hpp"

#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace forkjoin::detail {

namespace {
[[noreturn]] void throw_message(const char* where, const char* name, const std::string& value, const char* rule) {
  throw std::invalid_argument(std::string("forkjoin: ") + where + ": " + name + " = " + value + ": " + rule);
}
}  // namespace

void throw_bad_argument(const char* where, const char* name, long long value, const char* rule) {
  throw_message(where, name, std::to_string(value), rule);
}

void throw_bad_argument(const char* where, const char* name, unsigned long long value, const char* rule) {
  std::string text = std::to_string(value);
  // A value this large came from a negative number converted to an unsigned type (a
  // size_t parameter given -1): say which, as the caller wrote it. The conversion back is
  // modular in C++20.
  if (value > static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
    text += " (" + std::to_string(static_cast<long long>(value)) + " converted to an unsigned type)";
  throw_message(where, name, text, rule);
}

void throw_bad_argument(const char* where, const char* name, long double value, const char* rule) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17Lg", value);
  throw_message(where, name, text, rule);
}

}  // namespace forkjoin::detail
