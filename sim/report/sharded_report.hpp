// Writes one ZeRO / FSDP step prediction: iteration, forward, backward, optimizer, total,
// busy and exposed communication (ms), overlap (%), elements gathered and reduced per rank,
// peak unsharded bytes, and per-unit (FSDP) or per-bucket (ZeRO-1/2) collective times in
// ms from the step's start, as a table, JSON or CSV; with slow ranks, who waited for whom.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "sim/report/collective_table.hpp"
#include "sim/train/sharded_timeline.hpp"
#include "sim/train/elastic.hpp"
#include "sim/train/eventful_step.hpp"
#include "sim/train/stragglers.hpp"

namespace collsim {

struct ShardedReport {
  std::string workload;
  std::string topology;
  std::string device;
  std::string algorithm;
  std::string strategy;
  int ranks = 1;
  int ranks_per_node = 0;  // HYBRID_SHARD's shard group (0: not hybrid)
  int accumulate = 1;
  ShardedResult result;  // with stragglers: step 0, at its slowest rank's speed
  std::optional<StragglerResult> stragglers;
  std::uint64_t straggler_seed = 1;
  double jitter_sigma = 0;
  std::optional<ElasticResult> elastic;  // --membership: the run across its changes of membership
  std::optional<StepEvents> events;      // --scenario: link events during the step
};

// The report in each format; the views read `report`, which must outlive them.
[[nodiscard]] ReportViews sharded_report_views(const ShardedReport& report);

}  // namespace collsim
