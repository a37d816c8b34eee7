// Physical quantities of collsim: Time (int64 picoseconds), Bytes (int64 bytes),
// Bandwidth (bytes per second, double). Distinct types so units never mix silently.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace collsim {

// Simulated time: an exact integer count of picoseconds.
struct Time {
  std::int64_t ps = 0;

  static constexpr std::int64_t kPerNs = 1'000;
  static constexpr std::int64_t kPerUs = 1'000'000;
  static constexpr std::int64_t kPerMs = 1'000'000'000;
  static constexpr std::int64_t kPerS = 1'000'000'000'000;

  [[nodiscard]] static constexpr Time from_ps(std::int64_t v) { return Time{v}; }
  [[nodiscard]] static constexpr Time from_ns(std::int64_t v) { return Time{v * kPerNs}; }
  [[nodiscard]] static constexpr Time from_us(std::int64_t v) { return Time{v * kPerUs}; }
  [[nodiscard]] static constexpr Time from_ms(std::int64_t v) { return Time{v * kPerMs}; }
  // Rounds to the nearest picosecond.
  [[nodiscard]] static Time from_seconds(double s);
  [[nodiscard]] static constexpr Time max() { return Time{INT64_MAX}; }

  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ps) / kPerS; }
  [[nodiscard]] constexpr double us() const { return static_cast<double>(ps) / kPerUs; }
  [[nodiscard]] constexpr double ms() const { return static_cast<double>(ps) / kPerMs; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time{ps + o.ps}; }
  constexpr Time operator-(Time o) const { return Time{ps - o.ps}; }
  constexpr Time& operator+=(Time o) { ps += o.ps; return *this; }
  constexpr Time operator*(std::int64_t k) const { return Time{ps * k}; }
};

// An amount of data in bytes.
struct Bytes {
  std::int64_t count = 0;

  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return Bytes{count + o.count}; }
  constexpr Bytes operator-(Bytes o) const { return Bytes{count - o.count}; }
  constexpr Bytes& operator+=(Bytes o) { count += o.count; return *this; }
  constexpr Bytes operator*(std::int64_t k) const { return Bytes{count * k}; }
};

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
// std::invalid_argument for a non-positive bandwidth with a non-zero byte count.
[[nodiscard]] Time transfer_time(Bytes bytes, Bandwidth bw);

// Same rounding for a fractional byte count (the network model's remaining bytes).
[[nodiscard]] Time transfer_time(double bytes, double bytes_per_s);

// Human-readable renderings used in messages and tables ("1.5us", "25MiB", "400Gbps").
[[nodiscard]] std::string to_string(Time t);
[[nodiscard]] std::string to_string(Bytes b);
[[nodiscard]] std::string to_string(Bandwidth bw);

}  // namespace collsim
