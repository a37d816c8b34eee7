// std::from_chars for a double, everywhere collsim is built. GCC's and recent libc++'s
// <charconv> parse floating point; the libc++ of Debian 12's emscripten (the web explorer's
// WebAssembly build, web/) does not, so there the same grammar is scanned by hand and
// converted with strtod. Both read what std::from_chars(first, last, out) reads with
// chars_format::general: an optional '-', then digits with an optional '.' and an
// optional exponent, or inf/infinity/nan; no leading '+', spaces or hexadecimal.
#pragma once

#include <charconv>

namespace collsim {

// The hand-written reading (always built, so that the tests compare it with std::from_chars).
[[nodiscard]] std::from_chars_result scan_double(const char* first, const char* last, double& out);

inline std::from_chars_result chars_to_double(const char* first, const char* last, double& out) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  return std::from_chars(first, last, out);
#else
  return scan_double(first, last, out);
#endif
}

}  // namespace collsim
