#include "sim/report/llm_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace collsim {

namespace {

struct StageRow {
  int rank = 0;
  const LlmStageCost* cost = nullptr;
  Time last_backward_end;
  int in_flight = 0;
};

std::vector<StageRow> stage_rows(const LlmStep& s) {
  std::vector<StageRow> rows;
  for (std::size_t r = 0; r < s.stages.size(); ++r) {
    rows.push_back({static_cast<int>(r), &s.stages[r], s.run.last_backward_end[r], s.run.peak_in_flight[r]});
  }
  return rows;
}

Column<StageRow> gib_column(std::string name, std::string title, std::function<Bytes(const StageRow&)> bytes) {
  return {.name = std::move(name), .value = [bytes](const StageRow& r) { return Json(bytes(r).count); }, .title = std::move(title),
          .unit = "(GiB)", .width = 9,
          .text = [bytes](const StageRow& r) { return fmt::format("{:.2f}", static_cast<double>(bytes(r).count) / kBytesPerGiB); }};
}

// A stage's times: the table and CSV show them in ms ("<key>_ms"), JSON in integer ps
// ("<key>_ps", after the memory columns).
struct StageTime {
  const char* key;
  const char* title;
  int width;
  Time (*time)(const StageRow&);
};

const StageTime kStageTimes[] = {
    {"forward", "forward", 9, [](const StageRow& r) { return r.cost->forward; }},
    {"backward", "backward", 9, [](const StageRow& r) { return r.cost->backward; }},
    {"tp", "TP comm", 9, [](const StageRow& r) { return r.cost->tp_forward + r.cost->tp_backward; }},
    {"ep", "EP comm", 9, [](const StageRow& r) { return r.cost->ep_forward + r.cost->ep_backward; }},
    {"recompute", "recompute", 10, [](const StageRow& r) { return r.cost->recompute; }},
    {"last_backward_end", "bwd done", 10, [](const StageRow& r) { return r.last_backward_end; }},
    {"dp_reduce", "DP reduce", 10, [](const StageRow& r) { return r.cost->dp_reduce; }},
    {"dp_exposed", "exposed", 9, [](const StageRow& r) { return r.cost->dp_exposed; }},
};

std::vector<Column<StageRow>> stage_columns() {
  using R = StageRow;
  std::vector<Column<R>> cols{{.name = "stage", .value = [](const R& r) { return Json(r.rank); }, .title = "stage", .width = 5}};
  for (const StageTime& t : kStageTimes) cols.push_back(ms_column<R>(std::string(t.key) + "_ms", t.title, "(ms)", t.width, t.time));
  cols.push_back({.name = "micro_batches_in_flight", .value = [](const R& r) { return Json(r.in_flight); }, .title = "in flight", .width = 9});
  cols.push_back(gib_column("weights_bytes", "weights", [](const R& r) { return r.cost->memory.weights; }));
  cols.push_back(gib_column("gradients_bytes", "grads", [](const R& r) { return r.cost->memory.gradients; }));
  cols.push_back(gib_column("optimizer_bytes", "optimizer", [](const R& r) { return r.cost->memory.optimizer; }));
  cols.push_back(gib_column("activations_bytes", "activ.", [](const R& r) { return r.cost->memory.activations + r.cost->memory.logits; }));
  // The optimizer's fp32 gradient copy (fp16): the total holds it or the activations, whichever is larger.
  cols.push_back(gib_column("step_gradients_bytes", "fp32 grad", [](const R& r) { return r.cost->memory.step_gradients; }));
  cols.push_back(gib_column("memory_bytes", "total", [](const R& r) { return r.cost->memory.total(); }));
  for (const StageTime& t : kStageTimes) cols.push_back(ps_column<R>(std::string(t.key) + "_ps", t.time));
  return cols;
}

std::vector<Field> llm_summary(const LlmReport& r) {
  const LlmStep& s = r.step;
  return {
      {"step_s", "step", Json(s.step.seconds()), "{:>12.6f} s"},
      {"pipeline_s", "pipeline (fwd+bwd)", Json(s.pipeline.seconds()), "{:>12.6f} s"},
      {"bubble_fraction", "pipeline bubble", Json(s.run.bubble_fraction()), "{:>12.4f}"},
      {"optimizer_s", "optimizer", Json(s.optimizer.seconds()), "{:>12.6f} s"},
      {"param_gather_s", "param all-gather", Json(s.param_gather.seconds()), "{:>12.6f} s"},
      {"offload_s", "offload", Json(s.offload.seconds()), "{:>12.6f} s"},
      {"offload_cpu_s", "  of which CPU Adam", Json(s.offload_cpu.seconds()), "{:>12.6f} s"},
      {"tokens_per_s", "tokens/s", Json(s.tokens_per_s), "{:>12.0f}"},
      {"model_tflops_per_gpu", "model TFLOP/s per GPU", Json(s.model_tflops_per_gpu), "{:>12.1f}"},
      {"hardware_tflops_per_gpu", "hw TFLOP/s per GPU", Json(s.hardware_tflops_per_gpu), "{:>12.1f}"},
      {"mfu", "MFU", Json(s.mfu), "{:>12.4f}"},
      {"memory_peak_bytes", "memory (fullest GPU)", Json(s.memory_peak.count), "{:>12} B"},
      {"hbm_capacity_bytes", "HBM per GPU", Json(s.hbm_capacity.count), "{:>12} B"},
      {"fits", "fits in HBM", Json(s.fits), "{:>12}"},
  };
}

void llm_table(std::ostream& out, const LlmReport& r) {
  const LlmTraining& t = r.training;
  const LlmStep& s = r.step;
  fmt::print(out, "# collsim llm: {} on {} ({} GPUs, {}), collectives {}\n", r.model, r.topology, t.layout.world(), r.device,
             r.collectives);
  fmt::print(out,
             "# layout {} ({}), {} schedule, micro-batch {}, global batch {} ({} micro-batches per replica), recompute {}, "
             "sequence parallel {}, distributed optimizer {}, offload {}, overlap grad reduce {}{}\n",
             t.layout.label(), to_string(t.layout.order), to_string(t.schedule), t.micro_batch, t.global_batch, s.micro_batches,
             to_string(t.recompute), t.sequence_parallel ? "on" : "off", t.distributed_optimizer ? "on" : "off",
             !t.offload_optimizer ? "none" : t.overlap_offload ? "optimizer (overlapped)" : "optimizer",
             t.overlap_grad_reduce ? "on" : "off",
             t.gradient_accumulation_fusion ? "" : ", no gradient-accumulation fusion");
  fmt::print(out, "# GEMMs at {:.1f} % of the {} peak; {} TP collectives per layer per micro-batch{}\n",
             100 * r.spec.efficiency, r.spec.precision, s.tp_collectives_per_layer,
             s.ep_all_to_alls_per_layer > 0 ? fmt::format(", {} EP all-to-alls", s.ep_all_to_alls_per_layer) : std::string());
  if (s.tp_crosses_hosts) fmt::print(out, "# warning: TP groups span hosts (TP traffic leaves the NVLink domain)\n");
  if (!s.fits) fmt::print(out, "# warning: the fullest GPU needs more memory than its HBM\n");
  write_field_lines(out, llm_summary(r));
  out << '\n';
  write_text_table(out, stage_columns(), stage_rows(s));
}

Json llm_json(const LlmReport& r) {
  const LlmTraining& t = r.training;
  const LlmStep& s = r.step;
  Json doc = report_document({{"model", r.model}, {"topology", r.topology}, {"device", r.device}, {"collectives", r.collectives}});
  doc["layout"] = {{"tp", t.layout.tp},
                   {"pp", t.layout.pp},
                   {"dp", t.layout.dp},
                   {"virtual_stages", t.layout.virtual_stages},
                   {"ep", t.layout.ep},
                   {"order", to_string(t.layout.order)},
                   {"gpus", t.layout.world()}};
  doc["schedule"] = to_string(t.schedule);
  doc["micro_batch"] = t.micro_batch;
  doc["global_batch"] = t.global_batch;
  doc["micro_batches"] = s.micro_batches;
  doc["recompute"] = to_string(t.recompute);
  doc["sequence_parallel"] = t.sequence_parallel;
  doc["distributed_optimizer"] = t.distributed_optimizer;
  doc["offload_optimizer"] = t.offload_optimizer;
  doc["overlap_cpu_optimizer_d2h_h2d"] = t.overlap_offload;
  doc["gradient_accumulation_fusion"] = t.gradient_accumulation_fusion;
  doc["overlap_grad_reduce"] = t.overlap_grad_reduce;
  doc["gemm_efficiency"] = r.spec.efficiency;
  doc["tp_collectives_per_layer"] = s.tp_collectives_per_layer;
  doc["ep_all_to_alls_per_layer"] = s.ep_all_to_alls_per_layer;
  doc["tp_crosses_hosts"] = s.tp_crosses_hosts;
  doc["step_ps"] = s.step.ps;
  add_fields(doc, llm_summary(r));
  doc["model_flops"] = s.model_flops;
  doc["hardware_flops"] = s.hardware_flops;
  doc["stages"] = json_rows(stage_columns(), stage_rows(s));
  return doc;
}

void llm_csv(std::ostream& out, const LlmReport& r) { write_csv_table(out, stage_columns(), stage_rows(r.step)); }

}  // namespace

ReportViews llm_report_views(const LlmReport& report) { return views_of(report, llm_table, llm_json, llm_csv); }

}  // namespace collsim
