#include "sim/train/stragglers.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/random_stream.hpp"

namespace collsim {

namespace {

constexpr int kMaxSteps = 100'000;

void check(const StragglerSpec& spec, int ranks) {
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
  if (spec.steps < 1 || spec.steps > kMaxSteps) {
    throw ConfigError("", "steps", std::to_string(spec.steps), fmt::format("a step count from 1 to {}", kMaxSteps));
  }
}

// A rank's compute in a step: forward, backward, bucket copies, hook kernels, optimizer
// and the rest, all on its own GPU.
Time compute_of(const DdpResult& r) { return r.forward + r.backward + r.copies + r.hook_compute + r.optimizer + r.other_compute; }

Time percentile(std::vector<Time> v, double p) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

StragglerResult simulate_stragglers(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost,
                                    const DdpOptions& o, int ranks, const StragglerSpec& spec) {
  check(spec, ranks);
  std::vector<double> base(static_cast<std::size_t>(ranks), 1.0);
  for (const auto& [rank, speed] : spec.speeds) base[static_cast<std::size_t>(rank)] = speed;
  const BucketPlan plan = ddp_bucket_plan(w, o);
  auto play = [&](double speed) {
    ComputeModel at = cm;
    at.speed = cm.speed * speed;
    return simulate_ddp(w, at, cost, o, plan);
  };
  StragglerResult out;
  const DdpResult nominal = play(1.0);
  out.nominal_iteration = nominal.iteration;
  const Time nominal_compute = compute_of(nominal);
  const int steps = spec.jitter_sigma > 0 ? spec.steps : 1;
  std::vector<double> speed(base.size());
  std::vector<Time> iterations;
  for (int k = 0; k < steps; ++k) {
    RandomStream rng(spec.seed, static_cast<std::uint64_t>(k));
    for (std::size_t r = 0; r < base.size(); ++r) {
      // Time factor e^(sigma z): median 1; speed is its inverse.
      speed[r] = spec.jitter_sigma > 0 ? base[r] / std::exp(spec.jitter_sigma * rng.normal()) : base[r];
    }
    const auto slowest = static_cast<std::size_t>(std::min_element(speed.begin(), speed.end()) - speed.begin());
    DdpResult r = play(speed[slowest]);
    out.steps.push_back(StragglerStep{static_cast<int>(slowest), speed[slowest], r.iteration});
    iterations.push_back(r.iteration);
    if (k == 0) {
      for (std::size_t q = 0; q < speed.size(); ++q) {
        // Every kernel scales with the speed: the nominal compute over it (to within the
        // rounding of each kernel to whole ps; the slowest rank's is the played one).
        const Time own = q == slowest ? compute_of(r)
                                      : Time{static_cast<std::int64_t>(std::llround(static_cast<double>(nominal_compute.ps) / speed[q]))};
        out.ranks.push_back(RankWait{static_cast<int>(q), speed[q], own, r.iteration - own});
      }
      out.first = std::move(r);
    }
  }
  long double sum = 0;
  for (const Time& t : iterations) sum += static_cast<long double>(t.ps);
  out.mean = Time{static_cast<std::int64_t>(std::llround(static_cast<double>(sum / steps)))};
  out.p50 = percentile(iterations, 0.5);
  out.p99 = percentile(iterations, 0.99);
  out.max = *std::max_element(iterations.begin(), iterations.end());
  return out;
}

}  // namespace collsim
