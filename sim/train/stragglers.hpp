// DDP steps with slow ranks. Every rank's compute runs at its own speed (1 = nominal): a
// fixed factor per rank, times, with jitter, a log-normal factor per rank and step
// (median 1, sigma as given; seeded). A bucket's all-reduce can start only when every rank
// has its gradients, and each rank's compute is its nominal compute scaled by its speed, so
// the step is the slowest rank's: its compute plus the communication exposed after it; each
// other rank waits for the difference. Times in ps.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/train/ddp_timeline.hpp"

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

struct StragglerResult {
  DdpResult first;                   // step 0, played at its slowest rank's speed
  Time nominal_iteration;            // the same step with every rank at speed 1
  std::vector<StragglerStep> steps;  // one per drawn step
  std::vector<RankWait> ranks;       // step 0, every rank
  Time mean, p50, p99, max;          // over steps
};

// `ranks`: the world size. Throws ConfigError naming the StragglerSpec field ("speeds",
// "jitter_sigma", "steps") for a rank outside 0..ranks-1, a speed outside (0, 10], a sigma
// outside [0, 2] or steps outside 1..100000.
[[nodiscard]] StragglerResult simulate_stragglers(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost,
                                                  const DdpOptions& o, int ranks, const StragglerSpec& spec);

}  // namespace collsim
