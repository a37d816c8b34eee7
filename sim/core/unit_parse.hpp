// Parsing of quantities written with units ("400Gbps", "50GB/s", "1.5us", "25MiB").
// GB is 10^9 bytes, GiB is 2^30 bytes; b is bits, B is bytes. A bare number is an error.
#pragma once

#include <string>
#include <string_view>

#include "sim/core/units.hpp"

namespace collsim {

// Each throws UnitError (value + what was expected) on a missing or unknown unit, a
// malformed number, or an out-of-range value.
[[nodiscard]] Bandwidth parse_bandwidth(std::string_view text);  // 1 bps .. 1e18 B/s
[[nodiscard]] Time parse_time(std::string_view text);            // >= 0
[[nodiscard]] Time parse_time(std::string_view text, Time max);  // 0 .. max
[[nodiscard]] Bytes parse_size(std::string_view text);           // >= 0, whole bytes
// A duration of hours to years (an MTBF, a run, a checkpoint interval), in seconds as a
// double: the picosecond clock ends at 106 days. Units ms, s, min, h, d; > 0, <= 1e12 s.
[[nodiscard]] double parse_duration_s(std::string_view text);

// The phrases used in error messages, so every caller says the same thing.
inline constexpr std::string_view kExpectedBandwidth =
    "a positive bandwidth with a unit: bps, Kbps, Mbps, Gbps, Tbps, B/s, KB/s, MB/s, GB/s, TB/s, "
    "KiB/s, MiB/s, GiB/s or TiB/s (e.g. \"400Gbps\", \"50GB/s\"), from 1 bps to 1e18 B/s";
inline constexpr std::string_view kExpectedTime =
    "a non-negative time with a unit: ps, ns, us, ms or s (e.g. \"1.5us\")";
inline constexpr std::string_view kExpectedDuration =
    "a positive duration with a unit: ms, s, min, h or d (e.g. \"30min\", \"50000h\"), at most 1e12 s";
// "a non-negative time with a unit ..., from 0 to MAX": what parse_time(text, max) expects.
[[nodiscard]] std::string expected_time(Time max);

// Documented input ranges (docs/file-formats.md#input-ranges). Each is far beyond real
// hardware and models, and small enough that sums of many such inputs stay inside the
// clock (2^63 ps, about 106 days); a combination that still leaves it throws
// OverflowError when computed.
//  - a latency (a link's, a hop's, a calibrated one): at most 1 s, a geostationary
//    satellite hop's round trip being about 0.6 s;
//  - a task time (a layer's forward or backward, the optimizer step, a graph walk): at
//    most 1 hour, so a step of thousands of such layers still fits;
//  - a message size per rank (--sizes, --size, --slice): at most 2^50 B (1 PiB): summed
//    over 4096 ranks it still fits an int64 byte count, and at 100 Gbps it takes one day.
inline constexpr Time kMaxLatency = Time::from_s(1);
inline constexpr Time kMaxTaskTime = Time::from_s(3600);
inline constexpr Bytes kMaxMessageBytes{std::int64_t{1} << 50};

inline constexpr std::string_view kExpectedSize =
    "a non-negative whole number of bytes with a unit: B, KB, MB, GB, TB, KiB, MiB, GiB or TiB "
    "(e.g. \"25MiB\")";

}  // namespace collsim
