// Writes collective predictions in nccl-tests' columns (size B, count elements, type,
// redop, root, time us, algbw and busbw GB/s with 1 GB = 1e9 B) as a table, JSON or CSV,
// with the algorithm, protocol and channel count that produced each row.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/coll/crossover.hpp"
#include "sim/coll/predict.hpp"
#include "sim/report/table_model.hpp"

namespace collsim {

struct CollectiveReport {
  std::string topology;
  std::vector<CollectivePrediction> rows;
  std::vector<Crossover> crossovers;  // where the chosen (algorithm, protocol) changes
  // With link events (--scenario FILE): the file, and per row the same collective on the
  // healthy topology.
  std::string scenario;
  // With late ranks (--rank-delay, --arrival-jitter): when each rank entered (ps from the
  // first); `healthy` then holds the same collectives with every rank on time.
  std::vector<Time> rank_arrival;
  std::vector<CollectivePrediction> healthy;
};

// The report in each format; the views read `report`, which must outlive them.
[[nodiscard]] ReportViews collective_report_views(const CollectiveReport& report);

}  // namespace collsim
