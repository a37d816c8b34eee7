// The state machine of a training run with interruptions (the model of
// sim/train/goodput.hpp), shared by the Monte Carlo runs and the replay of a failure trace:
// work in checkpoint intervals, an interruption undoes the interval in progress and costs
// a restart plus a restore, which an interruption can strike too. Where interruptions come
// from is the caller's: a source answers how long from now until the next one, and hears
// of each one that strikes. Times in seconds from the job's start (double).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/train/goodput.hpp"

namespace collsim {

// The run's checkpoint intervals of whole steps: `full` of `full_s` each, then one of
// `last_s` (0: none).
struct Segments {
  double full_s = 0;
  std::int64_t full = 0;
  double last_s = 0;
};

[[nodiscard]] inline Segments segments_of(const RunModel& m) {
  const std::int64_t k = m.steps_per_checkpoint();
  Segments s;
  s.full = m.steps / k;
  s.full_s = static_cast<double>(k) * m.step_s;
  s.last_s = static_cast<double>(m.steps % k) * m.step_s;
  return s;
}

// Throws InternalError unless step > 0, steps >= 1, interval > 0 and the other times and
// the failure rate >= 0.
void check_run_fields(const RunModel& m);

// What the job was doing when an interruption struck.
enum class RunPhase : std::uint8_t { Training, Checkpoint, Restart, Restore };

// One interruption as the run met it.
struct Strike {
  double wall_s = 0;       // when, from the job's start
  RunPhase phase = RunPhase::Training;
  std::int64_t step = 0;   // training: the step in progress (from 1); checkpoint: the last
                           // step it holds; restart, restore: the last step of the checkpoint
                           // being restored (0: the run's start)
  double undone_s = 0;     // training and checkpoint writing (or restart and restore) lost
};

// Plays the run of `m` (checked by the caller) against `source`, which has
//   double until_next(double now_s)  the time from now to the next interruption (inf: none);
//                                    asked once at the start of each attempt at an interval
//                                    and at each restart
//   void strike(const Strike&)       that interruption struck (a trace moves past it)
template <typename Source>
[[nodiscard]] RunOutcome drive_run(const RunModel& m, Source& source) {
  RunOutcome out;
  const double recovery = m.restart_s + m.restore_s;
  std::int64_t saved = 0;  // steps in the last whole checkpoint
  auto play = [&](double work_s, std::int64_t steps) {
    const double a = work_s + m.checkpoint_s;
    for (;;) {
      const double x = source.until_next(out.wall_s);
      if (x >= a) {
        out.wall_s += a;
        out.checkpoint_s += m.checkpoint_s;
        saved += steps;
        return;
      }
      const bool training = x < work_s;
      const std::int64_t in_progress = std::min(steps, static_cast<std::int64_t>(std::floor(x / m.step_s)) + 1);
      source.strike(Strike{out.wall_s + x, training ? RunPhase::Training : RunPhase::Checkpoint,
                           saved + (training ? in_progress : steps), x});
      out.wall_s += x;
      out.lost_s += x;
      ++out.failures;
      for (;;) {  // restart and restore until one is not interrupted
        const double y = source.until_next(out.wall_s);
        if (y >= recovery) {
          out.wall_s += recovery;
          out.recovery_s += recovery;
          break;
        }
        source.strike(Strike{out.wall_s + y, y < m.restart_s ? RunPhase::Restart : RunPhase::Restore, saved, y});
        out.wall_s += y;
        out.recovery_s += y;
        ++out.failures;
      }
    }
  };
  const Segments s = segments_of(m);
  const std::int64_t k = m.steps_per_checkpoint();
  for (std::int64_t i = 0; i < s.full; ++i) play(s.full_s, k);
  if (s.last_s > 0) play(s.last_s, m.steps % k);
  return out;
}

}  // namespace collsim
