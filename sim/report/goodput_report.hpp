// Writes `collsim run`: a training run with failures (sim/train/goodput.hpp) - expected
// wall time, goodput, interruptions, lost work, checkpoint and recovery time (Monte Carlo
// with its 95 % interval, and the closed form beside it), and the checkpoint interval scan
// with the optima next to Young's and Daly's, as a table, JSON or CSV (the scan). Times in
// the text in hours or minutes, in JSON and CSV in seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/report/table_model.hpp"
#include "sim/train/goodput.hpp"

namespace collsim {

struct GoodputReport {
  RunModel model;               // at the interval the run used
  int gpus = 0, hosts = 0, links = 0;
  double mtbf_gpu_s = 0, mtbf_host_s = 0, mtbf_link_s = 0;  // 0: that kind does not fail
  std::string interval_choice;  // how the interval was chosen
  std::uint64_t seed = 0;
  GoodputEstimate estimate;
  double expected_wall_s = 0;   // closed form
  std::optional<IntervalSearch> search;  // none without failures
};

[[nodiscard]] ReportViews goodput_report_views(const GoodputReport& report);

}  // namespace collsim
