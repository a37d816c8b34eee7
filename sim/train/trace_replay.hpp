// A training run replayed against a failure trace (sim/train/failure_trace.hpp): the run
// model of sim/train/goodput.hpp, played once by the same state machine as the Monte Carlo
// runs (sim/train/run_driver.hpp), with the interruptions at the trace's times instead of
// exponential ones. An interruption strikes whatever the job is doing at its time:
// training, a checkpoint write, a restart or a restore. After the trace's last interruption
// the run goes on without any. Deterministic: no seed, one answer per interval. Times in
// seconds from the job's start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/train/failure_trace.hpp"
#include "sim/train/goodput.hpp"
#include "sim/train/run_driver.hpp"

namespace collsim {

struct TraceStrike {
  std::size_t index = 0;  // in the trace
  Strike strike;          // its wall_s is the trace's time, up to rounding
};

struct TraceReplay {
  RunOutcome outcome;
  std::vector<TraceStrike> strikes;  // in time order; outcome.failures of them
};

// Throws LimitError when one replay would take more than 2 x 10^8 intervals plus
// interruptions (a few seconds).
[[nodiscard]] TraceReplay replay_trace(const RunModel& m, const FailureTrace& trace);

struct TracePoint {
  double interval_s = 0;  // whole steps
  double wall_s = 0;      // the replay's wall time at this interval
  std::int64_t failures = 0;
};

struct TraceScan {
  double centre_s = 0;             // Daly's interval at the trace's MTBF (at least a step)
  std::vector<TracePoint> points;  // ascending intervals, a quarter to four times centre_s
  std::size_t best = 0;            // the point of least wall time (the shortest interval of a tie)
};

// The replay at `count` (>= 3) intervals around Daly's for the trace's empirical MTBF
// (interval_grid of sim/train/goodput.hpp). Needs a trace with interruptions.
[[nodiscard]] TraceScan scan_trace_interval(const RunModel& m, const FailureTrace& trace, int count = 25);

}  // namespace collsim
