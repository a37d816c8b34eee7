#include "sim/train/trace_replay.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace {

constexpr double kNoInterruption = std::numeric_limits<double>::infinity();
constexpr double kMaxReplaySteps = 2e8;  // intervals plus interruptions per replay (a few seconds)

// The trace's interruptions in order: the next one not yet struck is the next to come
// (each strikes whatever the job is doing at its time, so none is ever passed over).
class TraceSource {
 public:
  TraceSource(const FailureTrace& trace, std::vector<TraceStrike>* strikes) : trace_(trace), strikes_(strikes) {}

  [[nodiscard]] double until_next(double now_s) const {
    if (next_ == trace_.interruptions.size()) return kNoInterruption;
    // The sums of the run's phases land on the trace's times up to rounding: never below 0.
    return std::max(0.0, trace_.interruptions[next_].at_s - now_s);
  }

  void strike(const Strike& s) {
    if (strikes_ != nullptr) strikes_->push_back(TraceStrike{next_, s});
    ++next_;
  }

 private:
  const FailureTrace& trace_;
  std::vector<TraceStrike>* strikes_;  // null: not kept
  std::size_t next_ = 0;
};

void check_replay(const RunModel& m, const FailureTrace& trace) {
  check_run_fields(m);
  const Segments s = segments_of(m);
  const double intervals = static_cast<double>(s.full) + (s.last_s > 0 ? 1 : 0);
  if (intervals + static_cast<double>(trace.interruptions.size()) > kMaxReplaySteps) {
    throw LimitError(fmt::format(
        "a replay of {:.4g} checkpoint intervals and {} interruptions is more than the {:.0e} allowed per replay: "
        "use a longer checkpoint interval",
        intervals, trace.interruptions.size(), kMaxReplaySteps));
  }
}

}  // namespace

TraceReplay replay_trace(const RunModel& m, const FailureTrace& trace) {
  check_replay(m, trace);
  TraceReplay out;
  TraceSource source(trace, &out.strikes);
  out.outcome = drive_run(m, source);
  return out;
}

TraceScan scan_trace_interval(const RunModel& m, const FailureTrace& trace, int count) {
  if (trace.interruptions.empty() || count < 3) {
    throw InternalError("scan_trace_interval: a trace with interruptions and >= 3 points expected");
  }
  TraceScan out;
  out.centre_s = scan_centre_s(m, trace.mtbf_s());
  for (const double interval : interval_grid(m, out.centre_s, count)) {
    RunModel v = m;
    v.interval_s = interval;
    check_replay(v, trace);
    TraceSource source(trace, nullptr);
    const RunOutcome o = drive_run(v, source);
    out.points.push_back(TracePoint{interval, o.wall_s, o.failures});
  }
  out.best = static_cast<std::size_t>(
      std::min_element(out.points.begin(), out.points.end(),
                       [](const TracePoint& a, const TracePoint& b) { return a.wall_s < b.wall_s; }) -
      out.points.begin());
  return out;
}

}  // namespace collsim
