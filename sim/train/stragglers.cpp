#include "sim/train/stragglers.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/random_stream.hpp"

namespace collsim {

namespace {

constexpr int kMaxStragglerSteps = 100'000;

void check_spec(const StragglerSpec& spec, int ranks) {
  for (const auto& [rank, speed] : spec.speeds) {
    if (rank < 0 || rank >= ranks) {
      throw ConfigError("", "speeds", std::to_string(rank), fmt::format("a rank from 0 to {}", ranks - 1));
    }
    if (!(speed > 0 && speed <= 10)) {
      throw ConfigError("", "speeds", fmt::format("{}:{}", rank, speed), "a speed above 0 and at most 10 (1 = nominal)");
    }
  }
  if (!(spec.jitter_sigma >= 0 && spec.jitter_sigma <= 2)) {
    throw ConfigError("", "jitter_sigma", fmt::format("{}", spec.jitter_sigma), "a log-normal sigma from 0 to 2");
  }
  if (spec.steps < 1 || spec.steps > kMaxStragglerSteps) {
    throw ConfigError("", "steps", std::to_string(spec.steps), fmt::format("a step count from 1 to {}", kMaxStragglerSteps));
  }
}

Time percentile(std::vector<Time> v, double p) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

namespace {

// Every rank's speed in step k: its fixed factor, over a log-normal time factor e^(sigma z)
// (median 1) with jitter, z drawn in rank order from stream k of the seed.
std::vector<double> step_speeds(const StragglerSpec& spec, int ranks, int k) {
  std::vector<double> speed(static_cast<std::size_t>(ranks), 1.0);
  for (const auto& [rank, s] : spec.speeds) speed[static_cast<std::size_t>(rank)] = s;
  if (spec.jitter_sigma > 0) {
    RandomStream rng(spec.seed, static_cast<std::uint64_t>(k));
    for (double& s : speed) s /= std::exp(spec.jitter_sigma * rng.normal());
  }
  return speed;
}

}  // namespace

std::vector<std::pair<int, double>> slowest_per_step(const StragglerSpec& spec, int ranks) {
  check_spec(spec, ranks);
  const int steps = spec.jitter_sigma > 0 ? spec.steps : 1;
  std::vector<std::pair<int, double>> out;
  for (int k = 0; k < steps; ++k) {
    const std::vector<double> speed = step_speeds(spec, ranks, k);
    const auto slowest = std::min_element(speed.begin(), speed.end());
    out.emplace_back(static_cast<int>(slowest - speed.begin()), *slowest);
  }
  return out;
}

StragglerResult play_stragglers(int ranks, const StragglerSpec& spec, const StepAtSpeed& play) {
  const auto slowest = slowest_per_step(spec, ranks);
  StragglerResult out;
  const StepTimes nominal = play(1.0);
  out.nominal_iteration = nominal.iteration;
  std::vector<Time> iterations;
  for (std::size_t k = 0; k < slowest.size(); ++k) {
    const auto [rank, speed] = slowest[k];
    const StepTimes t = play(speed);
    out.steps.push_back(StragglerStep{rank, speed, t.iteration});
    iterations.push_back(t.iteration);
    if (k > 0) continue;
    // Step 0's speeds for every rank's own compute and wait.
    const std::vector<double> speeds = step_speeds(spec, ranks, 0);
    for (std::size_t q = 0; q < speeds.size(); ++q) {
      const double own_speed = speeds[q];
      // Every kernel scales with the speed: the nominal compute over it (to within the
      // rounding of each kernel to whole ps; the slowest rank's is the played one).
      const Time own = static_cast<int>(q) == rank
                           ? t.compute
                           : Time{static_cast<std::int64_t>(std::llround(static_cast<double>(nominal.compute.ps) / own_speed))};
      out.ranks.push_back(RankWait{static_cast<int>(q), own_speed, own, t.iteration - own});
    }
  }
  long double sum = 0;
  for (const Time& t : iterations) sum += static_cast<long double>(t.ps);
  out.mean = Time{static_cast<std::int64_t>(std::llround(static_cast<double>(sum / static_cast<long double>(iterations.size()))))};
  out.p50 = percentile(iterations, 0.5);
  out.p99 = percentile(iterations, 0.99);
  out.max = *std::max_element(iterations.begin(), iterations.end());
  return out;
}

namespace {

// `Out` (a StragglerResult with the step's `first`) from `simulate(model)`, one step played
// with `cm` at every drawn speed; `times` gives a step's iteration and compute.
template <typename Out, typename Simulate, typename Times>
Out stragglers_of(const ComputeModel& cm, int ranks, const StragglerSpec& spec, Simulate simulate, Times times) {
  auto play = [&](double speed) {
    ComputeModel at = cm;
    at.speed = cm.speed * speed;
    return simulate(at);
  };
  Out out;
  static_cast<StragglerResult&>(out) = play_stragglers(ranks, spec, [&](double speed) { return times(play(speed)); });
  out.first = play(out.steps.front().slowest_speed);
  return out;
}

}  // namespace

DdpStragglers simulate_stragglers(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost,
                                  const DdpOptions& o, int ranks, const StragglerSpec& spec) {
  const BucketPlan plan = ddp_bucket_plan(w, o);
  return stragglers_of<DdpStragglers>(
      cm, ranks, spec, [&](const ComputeModel& at) { return simulate_ddp(w, at, cost, o, plan); },
      [](const DdpResult& r) {
        return StepTimes{r.iteration, r.forward + r.backward + r.copies + r.hook_compute + r.optimizer + r.other_compute};
      });
}

ShardedStragglers simulate_sharded_stragglers(const Workload& w, const ComputeModel& cm, const GroupCostFn& cost,
                                              const ShardingOptions& o, int ranks, const StragglerSpec& spec) {
  // A sharded step's compute is everything but what the compute stream waits for
  // (communication, host launches).
  return stragglers_of<ShardedStragglers>(
      cm, ranks, spec, [&](const ComputeModel& at) { return simulate_sharded(w, at, cost, o, ranks); },
      [](const ShardedResult& r) { return StepTimes{r.iteration, r.iteration - r.exposed_comm - r.host_wait}; });
}

}  // namespace collsim
