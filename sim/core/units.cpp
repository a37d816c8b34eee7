#include "sim/core/units.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace collsim {

Time Time::from_seconds(double s) {
  return Time{static_cast<std::int64_t>(std::llround(s * static_cast<double>(kPerS)))};
}

Time transfer_time(double bytes, double bytes_per_s) {
  if (bytes <= 0.0) return Time{0};
  if (!(bytes_per_s > 0.0)) throw std::invalid_argument("transfer_time: bandwidth must be positive");
  // long double keeps 64 bits of mantissa: exact for byte counts up to 2^64 / 1e12.
  const long double ps = static_cast<long double>(bytes) * 1e12L / static_cast<long double>(bytes_per_s);
  // A relative tolerance of 1e-15 absorbs representation error in bytes_per_s before
  // rounding up, so 1e9 B at 1e9 B/s is exactly 1 s, not 1 s + 1 ps.
  const long double rounded = std::ceil(ps * (1.0L - 1e-15L));
  return Time{static_cast<std::int64_t>(rounded)};
}

Time transfer_time(Bytes bytes, Bandwidth bw) {
  return transfer_time(static_cast<double>(bytes.count), bw.bytes_per_s);
}

std::string to_string(Time t) {
  const auto a = t.ps < 0 ? -t.ps : t.ps;
  if (a >= Time::kPerS) return fmt::format("{:g}s", static_cast<double>(t.ps) / Time::kPerS);
  if (a >= Time::kPerMs) return fmt::format("{:g}ms", static_cast<double>(t.ps) / Time::kPerMs);
  if (a >= Time::kPerUs) return fmt::format("{:g}us", static_cast<double>(t.ps) / Time::kPerUs);
  if (a >= Time::kPerNs) return fmt::format("{:g}ns", static_cast<double>(t.ps) / Time::kPerNs);
  return fmt::format("{}ps", t.ps);
}

std::string to_string(Bytes b) {
  constexpr std::int64_t kKi = 1024;
  const char* names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::int64_t v = b.count;
  int i = 0;
  while (i < 4 && v != 0 && v % kKi == 0) {
    v /= kKi;
    ++i;
  }
  return fmt::format("{}{}", v, names[i]);
}

std::string to_string(Bandwidth bw) {
  const double bps = bw.bytes_per_s * 8.0;
  if (bps >= 1e12) return fmt::format("{:g}Tbps", bps / 1e12);
  if (bps >= 1e9) return fmt::format("{:g}Gbps", bps / 1e9);
  if (bps >= 1e6) return fmt::format("{:g}Mbps", bps / 1e6);
  if (bps >= 1e3) return fmt::format("{:g}Kbps", bps / 1e3);
  return fmt::format("{:g}bps", bps);
}

}  // namespace collsim
