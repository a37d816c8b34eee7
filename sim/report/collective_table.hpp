// Writes collective predictions in nccl-tests' columns (size B, count elements, type,
// redop, root, time us, algbw and busbw GB/s with 1 GB = 1e9 B) as a table, JSON or CSV,
// with the algorithm, protocol and channel count that produced each row.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/coll/crossover.hpp"
#include "sim/coll/predict.hpp"

namespace collsim {

enum class OutputFormat { Table, Json, Csv };

struct CollectiveReport {
  std::string topology;
  std::vector<CollectivePrediction> rows;
  std::vector<Crossover> crossovers;  // where the chosen (algorithm, protocol) changes
};

void write_collective_report(std::ostream& out, const CollectiveReport& report, OutputFormat format);

}  // namespace collsim
