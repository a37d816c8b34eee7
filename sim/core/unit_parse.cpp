#include "sim/core/unit_parse.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "sim/core/chars_to_double.hpp"
#include "sim/core/error.hpp"
#include "sim/core/text.hpp"

namespace collsim {

namespace {

struct UnitScale {
  std::string_view suffix;
  long double scale;  // multiplier to the base unit (bytes/s, picoseconds, bytes)
};

constexpr std::array kBandwidthUnits{
    UnitScale{"bps", 1.0L / 8}, UnitScale{"Kbps", 1e3L / 8}, UnitScale{"kbps", 1e3L / 8},
    UnitScale{"Mbps", 1e6L / 8}, UnitScale{"Gbps", 1e9L / 8}, UnitScale{"Tbps", 1e12L / 8},
    UnitScale{"B/s", 1.0L},      UnitScale{"KB/s", 1e3L},     UnitScale{"kB/s", 1e3L},
    UnitScale{"MB/s", 1e6L},     UnitScale{"GB/s", 1e9L},     UnitScale{"TB/s", 1e12L},
    UnitScale{"KiB/s", 1024.0L}, UnitScale{"MiB/s", 1048576.0L}, UnitScale{"GiB/s", 1073741824.0L},
    UnitScale{"TiB/s", 1099511627776.0L},
};

constexpr std::array kTimeUnits{
    UnitScale{"ps", 1.0L}, UnitScale{"ns", 1e3L}, UnitScale{"us", 1e6L},
    UnitScale{"ms", 1e9L}, UnitScale{"s", 1e12L},
};

constexpr std::array kDurationUnits{
    UnitScale{"ms", 1e-3L}, UnitScale{"s", 1.0L}, UnitScale{"min", 60.0L}, UnitScale{"h", 3600.0L}, UnitScale{"d", 86400.0L},
};

constexpr std::array kSizeUnits{
    UnitScale{"B", 1.0L},  UnitScale{"KB", 1e3L},  UnitScale{"kB", 1e3L},
    UnitScale{"MB", 1e6L}, UnitScale{"GB", 1e9L},  UnitScale{"TB", 1e12L},
    UnitScale{"KiB", 1024.0L}, UnitScale{"MiB", 1048576.0L}, UnitScale{"GiB", 1073741824.0L},
    UnitScale{"TiB", 1099511627776.0L},
};


// Splits "12.5 Gbps" into its number and unit and returns number x scale.
template <std::size_t N>
long double scaled_value(std::string_view text, const std::array<UnitScale, N>& units,
                         std::string_view expected) {
  std::string_view rest = text;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  double number = 0.0;
  const auto [end, ec] = chars_to_double(rest.data(), rest.data() + rest.size(), number);
  if (ec != std::errc{} || end == rest.data()) throw UnitError(in_quotes(text), std::string(expected));
  std::string_view unit(end, static_cast<std::size_t>(rest.data() + rest.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (!std::isfinite(number)) throw UnitError(in_quotes(text), std::string(expected));
  for (const auto& u : units) {
    if (u.suffix == unit) return static_cast<long double>(number) * u.scale;
  }
  throw UnitError(in_quotes(text), std::string(expected));
}

}  // namespace

Bandwidth parse_bandwidth(std::string_view text) {
  const long double v = scaled_value(text, kBandwidthUnits, kExpectedBandwidth);
  // Below 1 bps or above 1e18 B/s no real link exists, and times computed from such a rate
  // would leave the picosecond range (or become infinite: "1e308TB/s").
  if (!(v >= 1.0L / 8 && v <= 1e18L)) throw UnitError(in_quotes(text), std::string(kExpectedBandwidth));
  return Bandwidth{static_cast<double>(v)};
}

Time parse_time(std::string_view text) {
  const long double v = scaled_value(text, kTimeUnits, kExpectedTime);
  if (v < 0 || v > 9.2e18L) throw UnitError(in_quotes(text), std::string(kExpectedTime));
  return Time{static_cast<std::int64_t>(std::llround(static_cast<double>(v)))};
}

std::string expected_time(Time max) { return fmt::format("{}, from 0 to {}", kExpectedTime, to_string(max)); }

Time parse_time(std::string_view text, Time max) {
  const std::string expected = expected_time(max);
  const long double v = scaled_value(text, kTimeUnits, expected);
  if (!(v >= 0 && v <= static_cast<long double>(max.ps))) throw UnitError(in_quotes(text), expected);
  return Time{static_cast<std::int64_t>(std::llround(static_cast<double>(v)))};
}

Bytes parse_size(std::string_view text) {
  const long double v = scaled_value(text, kSizeUnits, kExpectedSize);
  if (v < 0 || v > 9.2e18L || v != std::floor(v)) throw UnitError(in_quotes(text), std::string(kExpectedSize));
  return Bytes{static_cast<std::int64_t>(v)};
}

double parse_duration_s(std::string_view text) {
  const long double v = scaled_value(text, kDurationUnits, kExpectedDuration);
  if (!(v > 0 && v <= 1e12L)) throw UnitError(in_quotes(text), std::string(kExpectedDuration));
  return static_cast<double>(v);
}

}  // namespace collsim
