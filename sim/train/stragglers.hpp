// Training steps with slow ranks (DDP, ZeRO, FSDP). Every rank's compute runs at its own
// speed (1 = nominal): a fixed factor per rank, times, with jitter, a log-normal factor per
// rank and step (median 1, sigma as given; seeded). A synchronous collective can start only
// when every rank has reached it, and each rank's compute is its nominal compute scaled by
// its speed, so the step is the slowest rank's: its compute plus the communication exposed
// after it; each other rank waits for the difference. Times in ps.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/train/ddp_timeline.hpp"
#include "sim/train/sharded_timeline.hpp"

namespace collsim {

struct StragglerSpec {
  std::vector<std::pair<int, double>> speeds;  // (rank, speed); ranks not listed run at 1
  double jitter_sigma = 0;  // sigma of ln(time factor) per rank and step; 0: none
  int steps = 1;            // steps to draw (jitter); 1 without jitter
  std::uint64_t seed = 1;

  [[nodiscard]] bool active() const { return !speeds.empty() || jitter_sigma > 0; }
};

struct RankWait {
  int rank = 0;
  double speed = 1;  // in step 0
  Time compute;      // its own compute in step 0 (at its speed)
  Time waiting;      // step 0's iteration minus its compute: exposed communication and waiting for others
};

struct StragglerStep {
  int slowest_rank = 0;
  double slowest_speed = 1;
  Time iteration;
};

// Who waited for whom over the drawn steps, whatever the step.
struct StragglerResult {
  Time nominal_iteration;            // the same step with every rank at speed 1
  std::vector<StragglerStep> steps;  // one per drawn step
  std::vector<RankWait> ranks;       // step 0, every rank
  Time mean, p50, p99, max;          // over steps
};

// One step played with every kernel at `speed`: its iteration and its compute (every
// kernel on the GPU, waits aside).
struct StepTimes {
  Time iteration;
  Time compute;
};
using StepAtSpeed = std::function<StepTimes(double speed)>;

// The slowest speed of each drawn step (the same draws for any step), at most 100,000 steps.
// `ranks`: the world size. Throws ConfigError naming the StragglerSpec field ("speeds",
// "jitter_sigma", "steps") for a rank outside 0..ranks-1, a speed outside (0, 10], a sigma
// outside [0, 2] or steps outside 1..100000.
[[nodiscard]] std::vector<std::pair<int, double>> slowest_per_step(const StragglerSpec& spec, int ranks);

// Every drawn step played at its slowest rank's speed; the same checks.
[[nodiscard]] StragglerResult play_stragglers(int ranks, const StragglerSpec& spec, const StepAtSpeed& play);

// A DDP or sharded step with its stragglers: `first` is step 0 at its slowest rank's speed.
struct DdpStragglers : StragglerResult {
  DdpResult first;
};
struct ShardedStragglers : StragglerResult {
  ShardedResult first;
};

[[nodiscard]] DdpStragglers simulate_stragglers(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost,
                                                const DdpOptions& o, int ranks, const StragglerSpec& spec);
[[nodiscard]] ShardedStragglers simulate_sharded_stragglers(const Workload& w, const ComputeModel& cm, const GroupCostFn& cost,
                                                            const ShardingOptions& o, int ranks, const StragglerSpec& spec);

}  // namespace collsim
