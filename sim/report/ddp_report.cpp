#include "sim/report/ddp_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>


#include "sim/report/step_summary.hpp"
#include "sim/report/elastic_report.hpp"
#include "sim/report/step_events_report.hpp"
#include "sim/report/straggler_report.hpp"

namespace collsim {

namespace {

using BucketRow = BucketTiming;

std::vector<Field> ddp_summary(const DdpResult& r) {
  return step_fields(r,
                     {ms_field("bucket_copies_ms", "bucket copies", r.copies), ms_field("hook_compute_ms", "comm hook compute", r.hook_compute),
                      ms_field("host_launch_ms", "host launches (CPU)", r.host_launch),
                      ms_field("host_wait_ms", "waiting for launches", r.host_wait)},
                     "optimizer");
}

// The 1-bit hook's two kinds of step (the report's iteration is the compressed one).
std::vector<Field> onebit_fields(const OneBitRun& b) {
  std::vector<Field> f{Field{"warmup_steps", "1-bit warm-up steps", static_cast<std::int64_t>(b.warmup_steps), "{:>12}"},
                       ms_field("warmup_iteration_ms", "warm-up step (no hook)", b.warmup_iteration),
                       ms_field("compressed_iteration_ms", "compressed step", b.compressed_iteration)};
  if (b.steps > 0) {
    f.push_back(Field{"steps", "steps in the run", static_cast<std::int64_t>(b.steps), "{:>12}"});
    f.push_back(ms_field("mean_iteration_ms", "mean step over the run", b.mean_iteration));
  }
  return f;
}

// Start-up and uneven inputs, when asked for.
std::vector<Field> run_fields(const DdpReport& rep) {
  std::vector<Field> f;
  if (rep.init_sync) f.push_back(ms_field("init_sync_ms", "start-up broadcast", *rep.init_sync));
  if (const auto& j = rep.join) {
    f.push_back(ms_field("join_step_ms", "step with join signal", j->step));
    f.push_back(Field{"join_steps", "steps (most batches)", static_cast<std::int64_t>(j->steps), "{:>12}"});
    f.push_back(Field{"join_shadow_rank_steps", "shadow rank-steps", j->shadow_rank_steps, "{:>12}"});
    f.push_back(ms_field("join_final_sync_ms", "final model broadcast", j->final_sync));
    f.push_back(ms_field("join_total_ms", "run with join", j->total));
  }
  return f;
}

// One row per bucket; the per-bucket (algorithm/protocol) choice is JSON only.
std::vector<Column<BucketRow>> bucket_columns(const DdpReport& rep) {
  const auto count = [](std::int64_t v) { return Json(v); };
  return {
      {.name = "bucket", .value = [](const BucketRow& b) { return Json(b.index); }, .shown = kInTable | kInCsv, .title = "bucket", .width = 6},
      {.name = "index", .value = [](const BucketRow& b) { return Json(b.index); }, .shown = kInJson},
      {.name = "params", .value = [](const BucketRow& b) { return Json(b.params); }, .title = "params", .width = 7},
      {.name = "bytes", .value = [count](const BucketRow& b) { return count(b.bytes.count); }, .title = "bytes", .unit = "(B)", .width = 14},
      {.name = "wire_bytes", .value = [count](const BucketRow& b) { return count(b.wire_bytes.count); }, .title = "wire bytes",
       .unit = "(B)", .width = 14},
      {.name = "collectives", .value = [](const BucketRow& b) { return Json(b.collectives); }, .shown = kInJson},
      ms_column<BucketRow>("ready_ms", "ready", "(ms)", 11, [](const BucketRow& b) { return b.ready; }),
      ps_column<BucketRow>("ready_ps", [](const BucketRow& b) { return b.ready; }),
      ms_column<BucketRow>("launch_ms", "launch", "(ms)", 11, [](const BucketRow& b) { return b.launched; }),
      ps_column<BucketRow>("launch_ps", [](const BucketRow& b) { return b.launched; }),
      ms_column<BucketRow>("start_ms", "start", "(ms)", 11, [](const BucketRow& b) { return b.start; }),
      ps_column<BucketRow>("start_ps", [](const BucketRow& b) { return b.start; }),
      ms_column<BucketRow>("end_ms", "end", "(ms)", 11, [](const BucketRow& b) { return b.end; }),
      ps_column<BucketRow>("end_ps", [](const BucketRow& b) { return b.end; }),
      ms_column<BucketRow>("comm_ms", "comm", "(ms)", 11, [](const BucketRow& b) { return b.end - b.start; }),
      {.name = "choice",
       .value =
           [&rep](const BucketRow& b) {
             const auto i = static_cast<std::size_t>(&b - rep.result.buckets.data());
             return i < rep.bucket_choices.size() && !rep.bucket_choices[i].empty() ? Json(rep.bucket_choices[i]) : Json();
           },
       .shown = kInJson,
       .omit_null = true},
  };
}

void ddp_table(std::ostream& out, const DdpReport& rep) {
  const DdpResult& r = rep.result;
  fmt::print(out, "# collsim ddp: {} on {} ({} ranks, {}), {} {} all-reduce, bucket_cap_mb {}, iteration {}{}\n",
             rep.workload, rep.topology, rep.ranks, rep.device, rep.backend, rep.algorithm, rep.bucket_cap_mb,
             rep.iteration, r.accumulate > 1 ? fmt::format(", {} micro-steps", r.accumulate) : "");
  write_field_lines(out, ddp_summary(r));
  if (rep.onebit) write_field_lines(out, onebit_fields(*rep.onebit));
  write_field_lines(out, run_fields(rep));
  out << "\n";
  write_text_table(out, bucket_columns(rep), r.buckets);
  if (rep.stragglers) write_stragglers(out, *rep.stragglers, rep.jitter_sigma, rep.straggler_seed);
  if (rep.elastic) write_elastic(out, *rep.elastic);
  if (rep.events) write_step_events(out, *rep.events, r.iteration);
}

Json ddp_json(const DdpReport& rep) {
  const DdpResult& r = rep.result;
  Json doc = report_document({{"workload", rep.workload}, {"topology", rep.topology}, {"ranks", rep.ranks},
                              {"device", rep.device}, {"backend", rep.backend}, {"algorithm", rep.algorithm},
                              {"bucket_cap_mb", rep.bucket_cap_mb}, {"iteration", rep.iteration}, {"micro_steps", r.accumulate}});
  add_fields(doc, ddp_summary(r));
  add_fields(doc, run_fields(rep));
  if (rep.join) doc["join_batches"] = rep.join->batches;
  if (rep.onebit) {
    Json o = Json::object();
    add_fields(o, onebit_fields(*rep.onebit));
    doc["onebit"] = o;
  }
  doc["buckets"] = json_rows(bucket_columns(rep), r.buckets);
  if (rep.stragglers) doc["stragglers"] = stragglers_json(*rep.stragglers, rep.jitter_sigma, rep.straggler_seed);
  if (rep.elastic) doc["elastic"] = elastic_json(*rep.elastic);
  if (rep.events) doc["link_events"] = step_events_json(*rep.events);
  return doc;
}

void ddp_csv(std::ostream& o, const DdpReport& r) { write_csv_table(o, bucket_columns(r), r.result.buckets); }

}  // namespace

ReportViews ddp_report_views(const DdpReport& report) { return views_of(report, ddp_table, ddp_json, ddp_csv); }

}  // namespace collsim
