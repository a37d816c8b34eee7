// A whole training run with failures. T steps of a given step time run on a job whose
// interruptions arrive as a Poisson process (exponential times between them; the rate is
// the sum over GPUs, hosts and links of 1 / MTBF); training writes a checkpoint every k
// steps (stopping meanwhile); an interruption loses the work since the last checkpoint and
// costs a restart (detection, rescheduling, rendezvous, communicator init) plus a restore
// of the checkpoint, during which further interruptions can strike. Estimated by Monte
// Carlo over seeded runs, and in closed form for the same model (Daly 2006: E[segment] =
// e^(lambda (R + restore)) (e^(lambda (w + C)) - 1) / lambda); the checkpoint interval that
// minimises the expected wall time is compared with Young's (1974) sqrt(2 C M) and Daly's
// (2006) higher-order formula. Times in seconds (double): runs last weeks, far past the
// picosecond clock; rates in failures per second.
#pragma once

#include <cstdint>
#include <vector>

namespace collsim {

struct RunModel {
  double step_s = 0;           // one training step without failures
  std::int64_t steps = 0;      // steps to train
  double failure_rate = 0;     // job interruptions per second (0: none)
  double interval_s = 0;       // training between checkpoints; rounded to whole steps (>= 1)
  double checkpoint_s = 0;     // writing one checkpoint (training waits)
  double restart_s = 0;        // from an interruption to a job that trains again, restore aside
  double restore_s = 0;        // reading the last checkpoint back

  [[nodiscard]] double work_s() const { return step_s * static_cast<double>(steps); }
  [[nodiscard]] std::int64_t steps_per_checkpoint() const;  // max(1, round(interval / step))
  [[nodiscard]] double mtbf_s() const;                      // 1 / failure_rate (inf when 0)
};

// What one run took: its wall time and where the time went (useful work is work_s()).
struct RunOutcome {
  double wall_s = 0;
  double lost_s = 0;        // training and checkpoint writing undone by interruptions
  double checkpoint_s = 0;  // checkpoints written whole
  double recovery_s = 0;    // restarts and restores, interrupted ones included
  std::int64_t failures = 0;
};

// Throws LimitError (exit 2, with the figures) when a run, or in monte_carlo all its runs,
// would take more than 2 x 10^8 random draws (a few seconds): an interval so long against
// the MTBF that a checkpoint is almost never reached, or too many runs of too many
// intervals. Deterministic for a (seed, run) pair: run r of a Monte Carlo estimate.
[[nodiscard]] RunOutcome simulate_run(const RunModel& m, std::uint64_t seed, std::uint64_t run = 0);

struct GoodputEstimate {
  int runs = 0;
  double mean_wall_s = 0, stddev_wall_s = 0;
  double ci95_wall_s = 0;  // half-width of the 95 % confidence interval of the mean
  double mean_lost_s = 0, mean_checkpoint_s = 0, mean_recovery_s = 0, mean_failures = 0;
  double goodput = 0;      // work_s / mean_wall_s
};

// `runs` runs; run i draws from its own stream (seed, i), so an estimate at another
// interval uses the same random numbers (common random numbers).
[[nodiscard]] GoodputEstimate monte_carlo(const RunModel& m, int runs, std::uint64_t seed);

// The expected wall time of the same model in closed form.
[[nodiscard]] double expected_wall_s(const RunModel& m);

// Checkpoint intervals (training time between checkpoints) from the literature.
[[nodiscard]] double young_interval_s(double checkpoint_s, double mtbf_s);  // sqrt(2 C M)
// sqrt(2 C M) (1 + sqrt(C / 2M) / 3 + C / 18M) - C for C < 2M, else M.
[[nodiscard]] double daly_interval_s(double checkpoint_s, double mtbf_s);

// The checkpoint interval that minimises expected_wall_s (golden section on log(interval),
// a quarter to four times Daly's); needs a failure rate above 0. Throws LimitError as
// expected_wall_s does for a model that almost never reaches a checkpoint.
[[nodiscard]] double expected_optimum_interval_s(const RunModel& m);

struct IntervalPoint {
  double interval_s = 0;   // after rounding to whole steps
  double mc_wall_s = 0;    // Monte Carlo mean
  double expected_wall_s = 0;
};

struct IntervalSearch {
  std::vector<IntervalPoint> points;  // ascending intervals around Daly's
  double mc_optimum_s = 0;            // vertex of a parabola (in log interval) through the
                                      // Monte Carlo minimum and its neighbours
  double expected_optimum_s = 0;      // minimum of the closed form (golden section)
};

// The centre of an interval scan: Daly's interval for `mtbf_s`, at least one step.
[[nodiscard]] double scan_centre_s(const RunModel& m, double mtbf_s);
// `count` (>= 2) intervals from a quarter to four times `centre_s` (geometric), rounded to
// whole steps of `m`; ascending, each once.
[[nodiscard]] std::vector<double> interval_grid(const RunModel& m, double centre_s, int count);

// The Monte Carlo wall time at the interval_grid of `count` points around Daly's interval,
// each from `runs` runs on common random numbers, and both optima. Needs a failure rate
// above 0 and count >= 3.
[[nodiscard]] IntervalSearch search_interval(const RunModel& m, int runs, std::uint64_t seed, int count = 25);

}  // namespace collsim
