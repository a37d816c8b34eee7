// Writes a DDP sweep: one row per (world size, bucket_cap_mb) point with iteration,
// communication and exposed communication (ms) and overlap (%), then the best bucket size
// per world size with its weak-scaling efficiency, as a table, JSON or CSV.
#pragma once

#include <ostream>
#include <string>

#include "sim/report/collective_table.hpp"
#include "sim/train/sweep.hpp"

namespace collsim {

struct SweepReport {
  std::string workload;
  std::string topology;
  std::string device;
  std::string algorithm;
  std::string backend;
  std::string cost_method;  // how all-reduce times were obtained
  SweepResult result;
};

// The report in each format; the views read `report`, which must outlive them.
[[nodiscard]] ReportViews sweep_report_views(const SweepReport& report);

}  // namespace collsim
