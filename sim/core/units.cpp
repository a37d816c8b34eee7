#include "sim/core/units.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace units_detail {
void time_overflow() {
  throw OverflowError("a simulated time past 2^63 ps (about 106 days), the range of collsim's clock");
}
void bad_bandwidth() { throw std::invalid_argument("transfer_time: bandwidth must be positive"); }
void bytes_overflow() { throw OverflowError("a byte count past 2^63 B, the range of collsim's byte counts"); }
}  // namespace units_detail

Time Time::from_seconds(double s) {
  const double ps = std::round(s * static_cast<double>(kPerS));  // half away from zero, as llround
  if (!(ps > -units_detail::kTwoTo63 && ps < units_detail::kTwoTo63)) units_detail::time_overflow();
  return Time{static_cast<std::int64_t>(ps)};
}

Time Time::scaled(double f) const {
  const double v = std::round(static_cast<double>(ps) * f);
  if (!(v > -units_detail::kTwoTo63 && v < units_detail::kTwoTo63)) units_detail::time_overflow();
  return Time{static_cast<std::int64_t>(v)};
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
