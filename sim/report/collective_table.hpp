// Writes collective predictions in nccl-tests' columns (size B, count elements, type,
// redop, root, time us, algbw and busbw GB/s with 1 GB = 1e9 B) as a table, JSON or CSV.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/coll/predict.hpp"

namespace collsim {

enum class OutputFormat { Table, Json, Csv };

struct CollectiveReport {
  std::string topology;
  std::vector<CollectivePrediction> rows;
};

void write_collective_report(std::ostream& out, const CollectiveReport& report, OutputFormat format);

}  // namespace collsim
