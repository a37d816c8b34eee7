// Writes `collsim llm --search`: the best layouts of a transformer on N GPUs (sim/train/
// llm_search.hpp), one row each with step, tokens/s, MFU, memory and, with a price, the cost
// per step and per million tokens; how many layouts were evaluated. Text in s and GiB.
#pragma once

#include <optional>
#include <string>

#include "sim/report/table_model.hpp"
#include "sim/train/llm_search.hpp"

namespace collsim {

struct LlmSearchReport {
  std::string model, topology, device, collectives;
  int gpus = 0;
  std::int64_t global_batch = 0;
  std::int64_t sequence = 0;
  std::optional<double> price_per_gpu_hour;
  std::size_t top = 10;
  LlmSearchResult result;
};

[[nodiscard]] ReportViews llm_search_report_views(const LlmSearchReport& report);

}  // namespace collsim
