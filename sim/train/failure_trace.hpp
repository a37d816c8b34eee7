// A failure trace: the times at which a real (or a synthetic) job was interrupted, in
// seconds of wall-clock time from the job's start, each with its cause when known.
// `collsim run --failure-trace FILE` replays one instead of drawing exponential times
// (sim/train/trace_replay.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collsim {

struct TraceInterruption {
  double at_s = 0;    // wall-clock time from the job's start (> 0)
  std::string cause;  // empty: the trace does not say
};

struct FailureTrace {
  std::string source;       // the file, for messages and the report
  std::string description;  // empty: none given
  std::vector<TraceInterruption> interruptions;  // strictly increasing at_s
  double end_s = 0;         // when the observation stopped: "end", else the last interruption (0: none)

  // The empirical job MTBF: the observed span over the interruptions in it (inf when none).
  [[nodiscard]] double mtbf_s() const;
};

inline constexpr std::size_t kMaxTraceInterruptions = 1'000'000;

// {"description": "..." (optional),
//  "interruptions": [{"at": "3.2h", "cause": "GPU HBM3 ECC"}, {"at": "7.9h"}, ...],
//  "end": "54d" (optional; at or after the last interruption)}
// Each `at` a duration with a unit (ms, s, min, h, d) after the one before it; `cause`
// optional text; 0 to kMaxTraceInterruptions interruptions. Throws ConfigError naming the
// file, the field's pointer, the value and what was expected; unknown keys included.
[[nodiscard]] FailureTrace parse_failure_trace(const nlohmann::json& j, const std::string& source);
[[nodiscard]] FailureTrace load_failure_trace(const std::string& path);

}  // namespace collsim
