#include "sim/train/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/random_stream.hpp"
#include "sim/train/run_driver.hpp"

namespace collsim {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr double kMaxDraws = 2e8;  // per estimate (a few seconds): beyond it a model is refused, not ground through

// Refuses a model whose estimate of `runs` runs would take more than kMaxDraws random
// draws (runs x intervals x attempts per interval): a hang to the user, not an answer.
void check_model(const RunModel& m, int runs = 1) {
  check_run_fields(m);
  // Expected attempts per interval ~ e^(lambda (interval + checkpoint + recovery)): in logs.
  const Segments s = segments_of(m);
  const double segments = static_cast<double>(s.full) + (s.last_s > 0 ? 1 : 0);
  const double exponent = m.failure_rate * (s.full_s + m.checkpoint_s + m.restart_s + m.restore_s);
  const double log_draws = std::log(segments) + exponent + std::log(static_cast<double>(runs));
  if (log_draws <= std::log(kMaxDraws)) return;
  if (exponent > 10) {
    throw LimitError(fmt::format(
        "a run whose checkpoint interval plus checkpoint and recovery ({:.4g} s) is {:.3g} times the job's MTBF "
        "({:.4g} s) almost never reaches a checkpoint (about e^{:.3g} interruptions per interval): shorten the "
        "checkpoint interval, the checkpoint or the restart, or raise the MTBFs",
        s.full_s + m.checkpoint_s + m.restart_s + m.restore_s, exponent, m.mtbf_s(), exponent));
  }
  throw LimitError(fmt::format(
      "an estimate of {} runs x {:.4g} checkpoint intervals x {:.3g} attempts per interval needs about {:.3g} random "
      "draws, more than the {:.0e} allowed per estimate: use fewer runs or a longer checkpoint interval",
      runs, segments, std::exp(exponent), std::exp(log_draws), kMaxDraws));
}

// The expected wall time of one segment of `work_s` (Daly 2006, exponential failures,
// interruptible recovery): e^(lambda b) (e^(lambda a) - 1) / lambda, a = work + C, b = R + restore.
double expected_segment_s(const RunModel& m, double work_s) {
  const double a = work_s + m.checkpoint_s;
  if (m.failure_rate == 0) return a;
  const double l = m.failure_rate;
  return std::exp(l * (m.restart_s + m.restore_s)) * std::expm1(l * a) / l;
}

}  // namespace

std::int64_t RunModel::steps_per_checkpoint() const {
  const double k = std::round(interval_s / step_s);
  if (!(k >= 1)) return 1;
  return k >= static_cast<double>(steps) ? steps : static_cast<std::int64_t>(k);
}

double RunModel::mtbf_s() const { return failure_rate > 0 ? 1 / failure_rate : kNever; }

void check_run_fields(const RunModel& m) {
  if (!(m.step_s > 0) || m.steps < 1 || !(m.failure_rate >= 0) || !(m.interval_s > 0) || !(m.checkpoint_s >= 0) ||
      !(m.restart_s >= 0) || !(m.restore_s >= 0)) {
    throw InternalError("RunModel: step > 0, steps >= 1, interval > 0 and the rest >= 0 expected");
  }
}

namespace {

// Interruptions as a Poisson process: the time to the next one is a fresh exponential draw
// whenever the run asks (memoryless, so what is left of the last draw does not matter).
class PoissonSource {
 public:
  PoissonSource(double rate, std::uint64_t seed, std::uint64_t run) : rate_(rate), rng_(seed, run) {}
  [[nodiscard]] double until_next(double /*now_s*/) { return rate_ > 0 ? rng_.exponential(rate_) : kNever; }
  void strike(const Strike& /*s*/) {}

 private:
  double rate_;
  RandomStream rng_;
};

// One run of a model already checked.
RunOutcome play_run(const RunModel& m, std::uint64_t seed, std::uint64_t run) {
  PoissonSource source(m.failure_rate, seed, run);
  return drive_run(m, source);
}

}  // namespace

RunOutcome simulate_run(const RunModel& m, std::uint64_t seed, std::uint64_t run) {
  check_model(m);
  return play_run(m, seed, run);
}

GoodputEstimate monte_carlo(const RunModel& m, int runs, std::uint64_t seed) {
  if (runs < 1) throw InternalError("monte_carlo: runs must be >= 1");
  check_model(m, runs);
  GoodputEstimate e;
  e.runs = runs;
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < runs; ++i) {
    // Run i's stream: the seed and the run number, whatever else is estimated.
    const RunOutcome o = play_run(m, seed, static_cast<std::uint64_t>(i));
    sum += o.wall_s;
    sum_sq += o.wall_s * o.wall_s;
    e.mean_lost_s += o.lost_s;
    e.mean_checkpoint_s += o.checkpoint_s;
    e.mean_recovery_s += o.recovery_s;
    e.mean_failures += static_cast<double>(o.failures);
  }
  const double n = runs;
  e.mean_wall_s = sum / n;
  e.stddev_wall_s = runs > 1 ? std::sqrt(std::max(0.0, (sum_sq - sum * sum / n) / (n - 1))) : 0;
  e.ci95_wall_s = 1.96 * e.stddev_wall_s / std::sqrt(n);
  e.mean_lost_s /= n;
  e.mean_checkpoint_s /= n;
  e.mean_recovery_s /= n;
  e.mean_failures /= n;
  e.goodput = m.work_s() / e.mean_wall_s;
  return e;
}

double expected_wall_s(const RunModel& m) {
  check_model(m);
  const Segments s = segments_of(m);
  double total = static_cast<double>(s.full) * expected_segment_s(m, s.full_s);
  if (s.last_s > 0) total += expected_segment_s(m, s.last_s);
  return total;
}

double young_interval_s(double checkpoint_s, double mtbf_s) { return std::sqrt(2 * checkpoint_s * mtbf_s); }

double daly_interval_s(double checkpoint_s, double mtbf_s) {
  if (checkpoint_s >= 2 * mtbf_s) return mtbf_s;
  const double c = checkpoint_s, m = mtbf_s;
  return std::sqrt(2 * c * m) * (1 + std::sqrt(c / (2 * m)) / 3 + c / (18 * m)) - c;
}

double expected_optimum_interval_s(const RunModel& m) {
  if (!(m.failure_rate > 0)) throw InternalError("expected_optimum_interval_s: a failure rate expected");
  // Golden section on log(interval) from a quarter to four times Daly's interval.
  const double centre = scan_centre_s(m, m.mtbf_s());
  auto at = [&](double interval) {
    RunModel v = m;
    v.interval_s = interval;
    return v;
  };
  double lo = std::log(centre / 4), hi = std::log(centre * 4);
  const double g = (std::sqrt(5.0) - 1) / 2;
  auto f = [&](double x) { return expected_wall_s(at(std::exp(x))); };
  double c = hi - g * (hi - lo), d = lo + g * (hi - lo);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 80; ++i) {
    // Each step keeps one probe and evaluates one new point.
    if (fc < fd) {
      hi = d;
      d = c;
      fd = fc;
      c = hi - g * (hi - lo);
      fc = f(c);
    } else {
      lo = c;
      c = d;
      fc = fd;
      d = lo + g * (hi - lo);
      fd = f(d);
    }
  }
  return std::exp((lo + hi) / 2);
}

double scan_centre_s(const RunModel& m, double mtbf_s) {
  return std::max(daly_interval_s(m.checkpoint_s, mtbf_s), m.step_s);
}

std::vector<double> interval_grid(const RunModel& m, double centre_s, int count) {
  std::vector<double> out;
  RunModel v = m;
  for (int i = 0; i < count; ++i) {
    v.interval_s = centre_s * std::pow(16.0, static_cast<double>(i) / (count - 1)) / 4;  // 1/4 .. 4
    const double rounded = static_cast<double>(v.steps_per_checkpoint()) * m.step_s;
    if (!out.empty() && rounded == out.back()) continue;  // same whole steps
    out.push_back(rounded);
  }
  return out;
}

IntervalSearch search_interval(const RunModel& m, int runs, std::uint64_t seed, int count) {
  if (!(m.failure_rate > 0) || count < 3) throw InternalError("search_interval: a failure rate and >= 3 points expected");
  const double centre = scan_centre_s(m, m.mtbf_s());
  auto at = [&](double interval) {
    RunModel v = m;
    v.interval_s = interval;
    return v;
  };
  IntervalSearch out;
  for (const double interval : interval_grid(m, centre, count)) {
    const RunModel v = at(interval);
    out.points.push_back(IntervalPoint{interval, monte_carlo(v, runs, seed).mean_wall_s, expected_wall_s(v)});
  }
  // The Monte Carlo minimum, refined by a parabola in log(interval) through its neighbours.
  const auto best = static_cast<std::size_t>(
      std::min_element(out.points.begin(), out.points.end(),
                       [](const IntervalPoint& a, const IntervalPoint& b) { return a.mc_wall_s < b.mc_wall_s; }) -
      out.points.begin());
  out.mc_optimum_s = out.points[best].interval_s;
  if (best > 0 && best + 1 < out.points.size()) {
    const double x0 = std::log(out.points[best - 1].interval_s), x1 = std::log(out.points[best].interval_s),
                 x2 = std::log(out.points[best + 1].interval_s);
    const double y0 = out.points[best - 1].mc_wall_s, y1 = out.points[best].mc_wall_s, y2 = out.points[best + 1].mc_wall_s;
    const double denom = (x0 - x1) * (x0 - x2) * (x1 - x2);
    const double a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / denom;
    const double b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / denom;
    if (a > 0) out.mc_optimum_s = std::exp(std::clamp(-b / (2 * a), x0, x2));
  }
  out.expected_optimum_s = expected_optimum_interval_s(m);
  return out;
}

}  // namespace collsim
