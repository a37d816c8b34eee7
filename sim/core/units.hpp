// Physical quantities of collsim: Time (int64 picoseconds), Bytes (int64 bytes),
// Bandwidth (bytes per second, double). Distinct types so units never mix silently.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace collsim {

// Checked int64 arithmetic for Time and Bytes. A wrapped sum would be a negative time or
// size that the simulation then uses as if it were true, so every overflow throws
// OverflowError (sim/core/error.hpp) instead. INT64_MAX itself is left out of Time's range:
// it is Time::max(), "never".
namespace units_detail {
[[noreturn]] void time_overflow();
[[noreturn]] void bytes_overflow();
[[noreturn]] void bad_bandwidth();
// 2^63 as a double: every double below it converts to int64 exactly (no undefined cast).
inline constexpr double kTwoTo63 = 9223372036854775808.0;
constexpr std::int64_t time_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r) || r == INT64_MAX) time_overflow();
  return r;
}
constexpr std::int64_t time_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r) || r == INT64_MAX) time_overflow();
  return r;
}
constexpr std::int64_t time_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r == INT64_MAX) time_overflow();
  return r;
}
constexpr std::int64_t bytes_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) bytes_overflow();
  return r;
}
constexpr std::int64_t bytes_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) bytes_overflow();
  return r;
}
constexpr std::int64_t bytes_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) bytes_overflow();
  return r;
}
}  // namespace units_detail

// Simulated time: an exact integer count of picoseconds, below 2^63 - 1 ps (about 106.75
// days). Arithmetic that would leave that range throws OverflowError.
struct Time {
  std::int64_t ps = 0;

  static constexpr std::int64_t kPerNs = 1'000;
  static constexpr std::int64_t kPerUs = 1'000'000;
  static constexpr std::int64_t kPerMs = 1'000'000'000;
  static constexpr std::int64_t kPerS = 1'000'000'000'000;

  [[nodiscard]] static constexpr Time from_ps(std::int64_t v) { return Time{v}; }
  [[nodiscard]] static constexpr Time from_ns(std::int64_t v) { return Time{units_detail::time_mul(v, kPerNs)}; }
  [[nodiscard]] static constexpr Time from_us(std::int64_t v) { return Time{units_detail::time_mul(v, kPerUs)}; }
  [[nodiscard]] static constexpr Time from_ms(std::int64_t v) { return Time{units_detail::time_mul(v, kPerMs)}; }
  [[nodiscard]] static constexpr Time from_s(std::int64_t v) { return Time{units_detail::time_mul(v, kPerS)}; }
  // Rounds to the nearest picosecond; throws OverflowError for a NaN, an infinity or a time
  // outside the clock's range.
  [[nodiscard]] static Time from_seconds(double s);
  // This time times `f` (>= 0), rounded to the nearest picosecond; throws OverflowError
  // past the clock's range.
  [[nodiscard]] Time scaled(double f) const;
  // "Never": a flow without a rate, the start value of a minimum search.
  [[nodiscard]] static constexpr Time max() { return Time{INT64_MAX}; }

  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ps) / kPerS; }
  [[nodiscard]] constexpr double us() const { return static_cast<double>(ps) / kPerUs; }
  [[nodiscard]] constexpr double ms() const { return static_cast<double>(ps) / kPerMs; }

  constexpr auto operator<=>(const Time&) const = default;
  // Never plus anything, or never minus a finite time, is still never: code may add a delay
  // to a Time::max() sentinel or measure from it without a special case.
  constexpr Time operator+(Time o) const {
    if (ps == INT64_MAX || o.ps == INT64_MAX) return max();
    return Time{units_detail::time_add(ps, o.ps)};
  }
  constexpr Time operator-(Time o) const {
    if (ps == INT64_MAX && o.ps != INT64_MAX) return max();
    return Time{units_detail::time_sub(ps, o.ps)};
  }
  constexpr Time& operator+=(Time o) { return *this = *this + o; }
  constexpr Time operator*(std::int64_t k) const {
    if (ps == INT64_MAX && k > 0) return max();
    return Time{units_detail::time_mul(ps, k)};
  }
};

// An amount of data in bytes. Arithmetic that would leave int64 throws OverflowError.
struct Bytes {
  std::int64_t count = 0;

  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return Bytes{units_detail::bytes_add(count, o.count)}; }
  constexpr Bytes operator-(Bytes o) const { return Bytes{units_detail::bytes_sub(count, o.count)}; }
  constexpr Bytes& operator+=(Bytes o) { return *this = *this + o; }
  constexpr Bytes operator*(std::int64_t k) const { return Bytes{units_detail::bytes_mul(count, k)}; }
};
// Bytes in a GiB (2^30), for reports that print sizes in GiB.
inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

// A data rate in bytes per second. 1 Gbps = 1.25e8 B/s; 1 GB/s = 1e9 B/s.
struct Bandwidth {
  double bytes_per_s = 0.0;

  [[nodiscard]] static constexpr Bandwidth bytes_per_second(double v) { return Bandwidth{v}; }
  [[nodiscard]] static constexpr Bandwidth bits_per_second(double v) { return Bandwidth{v / 8.0}; }
  [[nodiscard]] static constexpr Bandwidth gbps(double v) { return Bandwidth{v * 1e9 / 8.0}; }
  [[nodiscard]] static constexpr Bandwidth gb_per_s(double v) { return Bandwidth{v * 1e9}; }
  [[nodiscard]] constexpr double gb_per_s() const { return bytes_per_s / 1e9; }

  constexpr auto operator<=>(const Bandwidth&) const = default;
  constexpr Bandwidth operator*(double k) const { return Bandwidth{bytes_per_s * k}; }
};

// Time to push `bytes` through `bw`, rounded UP to the next whole picosecond: a
// transfer is never predicted to finish before the physics allows. Throws
// std::invalid_argument for a non-positive bandwidth with a non-zero byte count, and
// OverflowError for a time past the clock's range.
[[nodiscard]] Time transfer_time(Bytes bytes, Bandwidth bw);

// Same rounding for a fractional byte count (the network model's remaining bytes). Inline:
// a full replay calls it once per flow and rate change, tens of millions of times.
[[nodiscard]] inline Time transfer_time(double bytes, double bytes_per_s) {
  if (bytes <= 0.0) return Time{0};
  if (!(bytes_per_s > 0.0)) units_detail::bad_bandwidth();
  // Double precision is exact to well under a picosecond up to 2^53 ps (2.5 hours).
  // A relative tolerance of 1e-14 absorbs the representation error of the division
  // before rounding up, so 1e9 B at 1e9 B/s is exactly 1 s, not 1 s + 1 ps.
  const double ps = bytes * 1e12 / bytes_per_s;
  if (!(ps < units_detail::kTwoTo63)) units_detail::time_overflow();
  // ceil(x) for 0 < x < 2^63 without a libm call: truncation is the floor of a positive
  // number, one up if that dropped a fraction (from 2^53 on every double is whole).
  const double x = ps - ps * 1e-14;
  auto whole = static_cast<std::int64_t>(x);
  if (static_cast<double>(whole) < x) ++whole;
  return Time{whole};
}

// Human-readable renderings used in messages and tables ("1.5us", "25MiB", "400Gbps").
[[nodiscard]] std::string to_string(Time t);
[[nodiscard]] std::string to_string(Bytes b);
[[nodiscard]] std::string to_string(Bandwidth bw);

}  // namespace collsim
