// Writes one DDP step prediction: iteration, forward, backward, optimizer, copies, total
// and exposed communication (ms), overlap (%), and the per-bucket table (bytes, ready,
// launch, start, end in ms from the step's start) as a table, JSON or CSV; with slow ranks,
// who waited for whom (each rank's compute and waiting) and, with jitter, the step times;
// for an elastic run, each membership's step and schedules and each rebuild's cost.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/report/collective_table.hpp"
#include "sim/train/ddp_startup.hpp"
#include "sim/train/ddp_timeline.hpp"
#include "sim/train/elastic.hpp"
#include "sim/train/eventful_step.hpp"
#include "sim/train/stragglers.hpp"

namespace collsim {

struct DdpReport {
  std::string workload;
  std::string topology;
  std::string device;
  std::string algorithm;  // the CommSpec's label: "auto/auto", "ring/ideal"
  std::vector<std::string> bucket_choices;  // per bucket: "ring/simple" (empty: not an all-reduce play)
  std::string backend;
  int ranks = 1;
  double bucket_cap_mb = 25;
  std::string iteration;  // "steady" or "0"
  DdpResult result;       // with stragglers: step 0, at its slowest rank's speed
  std::optional<StragglerResult> stragglers;
  std::uint64_t straggler_seed = 1;
  double jitter_sigma = 0;
  std::optional<ElasticResult> elastic;  // --membership: the run across its changes of membership
  std::optional<StepEvents> events;      // --scenario: link events during the step
  std::optional<OneBitRun> onebit;       // --hook onebit: the warm-up and compressed steps
  std::optional<Time> init_sync;         // iteration 0: DDP's start-up broadcast
  std::optional<JoinRun> join;           // --join: the run with uneven inputs
};

// The report in each format; the views read `report`, which must outlive them.
[[nodiscard]] ReportViews ddp_report_views(const DdpReport& report);

}  // namespace collsim
