#include "sim/report/llm_search_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace collsim {

namespace {

struct SearchRow {
  int rank = 0;
  const LlmCandidate* c = nullptr;
  std::optional<double> price;  // per GPU-hour
  std::int64_t tokens = 0;      // per step
};

std::optional<double> step_cost(const SearchRow& r) {
  if (!r.price) return std::nullopt;
  return *r.price * r.c->training.layout.world() * r.c->step.step.seconds() / 3600.0;
}

std::vector<Column<SearchRow>> search_columns() {
  const auto cost_json = [](const SearchRow& r) { const auto c = step_cost(r); return c ? Json(*c) : Json(); };
  return {
      {.name = "rank", .value = [](const SearchRow& r) { return Json(r.rank); }, .title = "#", .width = 4},
      {.name = "layout", .value = [](const SearchRow& r) { return Json(r.c->training.layout.label()); }, .title = "layout",
       .width = kFitWidth, .align = Align::Left, .gap = 2},
      {.name = "micro_batch", .value = [](const SearchRow& r) { return Json(r.c->training.micro_batch); }, .title = "mb", .width = 3},
      {.name = "recompute", .value = [](const SearchRow& r) { return Json(std::string(to_string(r.c->training.recompute))); },
       .title = "recompute", .width = 10},
      {.name = "sequence_parallel", .value = [](const SearchRow& r) { return Json(r.c->training.sequence_parallel); }, .title = "SP",
       .width = 4, .text = [](const SearchRow& r) { return std::string(r.c->training.sequence_parallel ? "on" : "-"); }},
      {.name = "distributed_optimizer", .value = [](const SearchRow& r) { return Json(r.c->training.distributed_optimizer); },
       .title = "ZeRO-1", .width = 6, .text = [](const SearchRow& r) { return std::string(r.c->training.distributed_optimizer ? "on" : "-"); }},
      {.name = "offload_optimizer", .value = [](const SearchRow& r) { return Json(r.c->training.offload_optimizer); },
       .title = "offload", .width = 7, .text = [](const SearchRow& r) { return std::string(r.c->training.offload_optimizer ? "on" : "-"); }},
      {.name = "step_s", .value = [](const SearchRow& r) { return Json(r.c->step.step.seconds()); }, .title = "step", .unit = "(s)",
       .width = 9, .text_format = "{:.3f}"},
      {.name = "tokens_per_s", .value = [](const SearchRow& r) { return Json(r.c->step.tokens_per_s); }, .title = "tokens/s",
       .width = 10, .text_format = "{:.0f}"},
      {.name = "mfu", .value = [](const SearchRow& r) { return Json(r.c->step.mfu); }, .title = "MFU", .width = 6, .text_format = "{:.3f}"},
      {.name = "bubble", .value = [](const SearchRow& r) { return Json(r.c->step.run.bubble_fraction()); }, .title = "bubble",
       .width = 7, .text_format = "{:.3f}"},
      {.name = "memory_bytes", .value = [](const SearchRow& r) { return Json(r.c->step.memory_peak.count); }, .title = "memory",
       .unit = "(GiB)", .width = 8,
       .text = [](const SearchRow& r) { return fmt::format("{:.1f}", static_cast<double>(r.c->step.memory_peak.count) / kBytesPerGiB); }},
      {.name = "fits", .value = [](const SearchRow& r) { return Json(r.c->step.fits); }, .title = "fits", .width = 5,
       .text = [](const SearchRow& r) { return std::string(r.c->step.fits ? "yes" : "NO"); }},
      {.name = "cost_per_step", .value = cost_json, .title = "cost/step", .width = 10, .text_format = "{:.4f}"},
      {.name = "cost_per_million_tokens", .value = [](const SearchRow& r) {
         const auto c = step_cost(r);
         return c ? Json(*c * 1e6 / static_cast<double>(r.tokens)) : Json();
       }, .title = "cost/Mtok", .width = 10, .text_format = "{:.4f}"},
  };
}

std::vector<SearchRow> search_rows(const LlmSearchReport& r) {
  std::vector<SearchRow> out;
  const std::size_t n = std::min(r.top, r.result.candidates.size());
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back({static_cast<int>(i + 1), &r.result.candidates[i], r.price_per_gpu_hour, r.global_batch * r.sequence});
  }
  return out;
}

std::size_t fitting(const LlmSearchReport& r) {
  return static_cast<std::size_t>(std::count_if(r.result.candidates.begin(), r.result.candidates.end(),
                                                [](const LlmCandidate& c) { return c.step.fits; }));
}

void search_table(std::ostream& out, const LlmSearchReport& r) {
  fmt::print(out, "# collsim llm --search: {} on {} ({} GPUs, {}), global batch {}, collectives {}\n", r.model, r.topology,
             r.gpus, r.device, r.global_batch, r.collectives);
  fmt::print(out,
             "# {} layouts evaluated ({} fit in HBM); {} pruned (model state alone over HBM), {} refused by the model or "
             "batch, {} with a collective too large to play; best {} by step time\n",
             r.result.evaluated, fitting(r), r.result.pruned, r.result.refused, r.result.unpriced,
             std::min(r.top, r.result.candidates.size()));
  if (!r.result.candidates.empty() && !r.result.candidates.front().training.gradient_accumulation_fusion) {
    fmt::print(out, "# without gradient-accumulation fusion (each micro-batch's weight gradients added by a kernel of their own)\n");
  }
  write_text_table(out, search_columns(), search_rows(r));
}

Json search_json(const LlmSearchReport& r) {
  Json doc = report_document({{"model", r.model}, {"topology", r.topology}, {"device", r.device}, {"collectives", r.collectives},
                              {"gpus", r.gpus}, {"global_batch", r.global_batch}});
  doc["evaluated"] = r.result.evaluated;
  doc["fitting"] = fitting(r);
  doc["refused"] = r.result.refused;
  doc["pruned"] = r.result.pruned;
  doc["unpriced"] = r.result.unpriced;
  doc["price_per_gpu_hour"] = r.price_per_gpu_hour ? Json(*r.price_per_gpu_hour) : Json();
  doc["layouts"] = json_rows(search_columns(), search_rows(r));
  for (std::size_t i = 0; i < doc["layouts"].size(); ++i) {
    const ParallelLayout& l = r.result.candidates[i].training.layout;
    doc["layouts"][i]["tp"] = l.tp;
    doc["layouts"][i]["pp"] = l.pp;
    doc["layouts"][i]["dp"] = l.dp;
    doc["layouts"][i]["virtual_stages"] = l.virtual_stages;
    doc["layouts"][i]["ep"] = l.ep;
    const LlmTraining& t = r.result.candidates[i].training;
    doc["layouts"][i]["overlap_cpu_optimizer_d2h_h2d"] = t.overlap_offload;
    doc["layouts"][i]["gradient_accumulation_fusion"] = t.gradient_accumulation_fusion;
  }
  return doc;
}

void search_csv(std::ostream& out, const LlmSearchReport& r) { write_csv_table(out, search_columns(), search_rows(r)); }

}  // namespace

ReportViews llm_search_report_views(const LlmSearchReport& report) {
  return views_of(report, search_table, search_json, search_csv);
}

}  // namespace collsim
