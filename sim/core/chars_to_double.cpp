#include "sim/core/chars_to_double.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

namespace collsim {

namespace {

bool starts_with_word(const char* p, const char* last, std::string_view word) {
  if (static_cast<std::size_t>(last - p) < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(p[i])) != word[i]) return false;
  }
  return true;
}

bool digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::from_chars_result scan_double(const char* first, const char* last, double& out) {
  const char* p = first;
  if (p != last && *p == '-') ++p;
  const char* end = nullptr;
  if (starts_with_word(p, last, "infinity")) {
    end = p + 8;
  } else if (starts_with_word(p, last, "inf") || starts_with_word(p, last, "nan")) {
    end = p + 3;
  } else {
    const char* q = p;
    std::size_t digits = 0;
    for (; q != last && digit(*q); ++q) ++digits;
    if (q != last && *q == '.') {
      for (++q; q != last && digit(*q); ++q) ++digits;
    }
    if (digits == 0) return {first, std::errc::invalid_argument};
    if (q != last && (*q == 'e' || *q == 'E')) {
      const char* e = q + 1;
      if (e != last && (*e == '+' || *e == '-')) ++e;
      if (e != last && digit(*e)) {
        while (e != last && digit(*e)) ++e;
        q = e;
      }
    }
    end = q;
  }
  const std::string text(first, end);
  errno = 0;
  const double value = std::strtod(text.c_str(), nullptr);
  // As std::from_chars: a value out of double's range leaves `out` as it was.
  if (errno == ERANGE && (value == HUGE_VAL || value == -HUGE_VAL)) return {end, std::errc::result_out_of_range};
  out = value;
  return {end, std::errc{}};
}

}  // namespace collsim
