// Writes `collsim llm`: one optimizer step of a transformer under a TP x PP x DP layout
// (sim/train/llm_step.hpp): the step, tokens/s, FLOP rates and MFU, the pipeline bubble,
// memory per GPU against HBM, and a table per pipeline rank (compute, TP, recompute, DP
// reduction, memory). Text in ms and GiB; JSON and CSV in seconds (and ps) and bytes.
#pragma once

#include <string>

#include "sim/report/table_model.hpp"
#include "sim/train/llm_step.hpp"

namespace collsim {

struct LlmReport {
  std::string model, topology, device, collectives;
  LlmModel spec;
  LlmTraining training;
  LlmStep step;
};

[[nodiscard]] ReportViews llm_report_views(const LlmReport& report);

}  // namespace collsim
