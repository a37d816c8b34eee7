// Writes `collsim run --failure-trace`: a training run replayed against a failure trace
// (sim/train/trace_replay.hpp) - wall time, goodput, lost work, checkpoint and recovery
// time, each interruption that struck (when, during what, at which step, its cause), how
// the run and the trace ended against each other, and the checkpoint interval scan with
// its best point next to Young's and Daly's at the trace's MTBF; as a table, JSON or CSV
// (the scan). Times in the text in hours or minutes, in JSON and CSV in seconds.
#pragma once

#include <optional>
#include <string>

#include "sim/report/table_model.hpp"
#include "sim/train/failure_trace.hpp"
#include "sim/train/trace_replay.hpp"

namespace collsim {

struct TraceRunReport {
  RunModel model;               // at the interval the run used
  int gpus = 0, hosts = 0, links = 0;
  std::string interval_choice;  // how the interval was chosen
  FailureTrace trace;
  TraceReplay replay;
  std::optional<TraceScan> scan;  // none for a trace without interruptions
};

[[nodiscard]] ReportViews trace_run_report_views(const TraceRunReport& report);

}  // namespace collsim
