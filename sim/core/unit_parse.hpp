// Parsing of quantities written with units ("400Gbps", "50GB/s", "1.5us", "25MiB").
// GB is 10^9 bytes, GiB is 2^30 bytes; b is bits, B is bytes. A bare number is an error.
#pragma once

#include <string_view>

#include "sim/core/units.hpp"

namespace collsim {

// Each throws UnitError (value + what was expected) on a missing or unknown unit, a
// malformed number, or an out-of-range value.
[[nodiscard]] Bandwidth parse_bandwidth(std::string_view text);  // 1 bps .. 1e18 B/s
[[nodiscard]] Time parse_time(std::string_view text);            // >= 0
[[nodiscard]] Bytes parse_size(std::string_view text);           // >= 0, whole bytes

// The phrases used in error messages, so every caller says the same thing.
inline constexpr std::string_view kExpectedBandwidth =
    "a positive bandwidth with a unit: bps, Kbps, Mbps, Gbps, Tbps, B/s, KB/s, MB/s, GB/s, TB/s, "
    "KiB/s, MiB/s, GiB/s or TiB/s (e.g. \"400Gbps\", \"50GB/s\"), from 1 bps to 1e18 B/s";
inline constexpr std::string_view kExpectedTime =
    "a non-negative time with a unit: ps, ns, us, ms or s (e.g. \"1.5us\")";
inline constexpr std::string_view kExpectedSize =
    "a non-negative whole number of bytes with a unit: B, KB, MB, GB, TB, KiB, MiB, GiB or TiB "
    "(e.g. \"25MiB\")";

}  // namespace collsim
