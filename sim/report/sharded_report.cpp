#include "sim/report/sharded_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/report/elastic_report.hpp"
#include "sim/report/step_events_report.hpp"
#include "sim/report/step_summary.hpp"
#include "sim/report/straggler_report.hpp"

namespace collsim {

namespace {

// The step's figures, then what was gathered and reduced and the peak unsharded bytes.
std::vector<Field> sharded_summary(const ShardedResult& r) {
  std::vector<Field> f = step_fields(r,
                                     {ms_field("host_launch_ms", "host launches (CPU)", r.host_launch),
                                      ms_field("host_wait_ms", "waiting for launches", r.host_wait)},
                                     "optimizer (shard)");
  if (r.offload_copies.ps > 0) f.push_back(ms_field("offload_copies_ms", "offload host copies", r.offload_copies));
  f.push_back({"gathered_elements", "gathered elements", r.gathered_elements, "{:>12.0f}"});
  f.push_back({"reduced_elements", "reduced elements", r.reduced_elements, "{:>12.0f}"});
  f.push_back({"peak_unsharded_bytes", "peak unsharded", r.peak_unsharded.count, "{:>12} B"});
  return f;
}

// One row per FSDP unit, or per ZeRO-1/2 bucket: name, elements, then start/end pairs.
struct ShardedRow {
  std::string name;
  std::int64_t numel = 0;
  Time fwd_start, fwd_end, bwd_start, bwd_end, reduce_start, reduce_end;
};

std::vector<ShardedRow> sharded_rows(const ShardedResult& r) {
  std::vector<ShardedRow> out;
  for (const auto& t : r.unit_timings) {
    const ShardUnit& u = r.units[t.unit];
    out.push_back(ShardedRow{u.name, u.numel, t.forward_gather_start, t.forward_gather_end, t.backward_gather_start,
                      t.backward_gather_end, t.reduce_start, t.reduce_end});
  }
  for (std::size_t b = 0; b < r.buckets.size(); ++b) {
    const GradientBucket& g = r.buckets[b];
    out.push_back(ShardedRow{fmt::format("bucket {}", b), g.numel, {}, {}, {}, {}, g.reduce_start, g.reduce_end});
  }
  return out;
}

// A collective's start and end: milliseconds in the table and CSV, picoseconds in JSON.
void add_span(std::vector<Column<ShardedRow>>& cols, const std::string& csv, const std::string& json, const std::string& title,
              Time ShardedRow::*start, Time ShardedRow::*end) {
  cols.push_back(ms_column<ShardedRow>(csv + "_start_ms", title, "start ms", 10, [start](const ShardedRow& r) { return r.*start; }));
  cols.push_back(ms_column<ShardedRow>(csv + "_end_ms", title, "end ms", 10, [end](const ShardedRow& r) { return r.*end; }));
  cols.push_back(ps_column<ShardedRow>(json + "_start_ps", [start](const ShardedRow& r) { return r.*start; }));
  cols.push_back(ps_column<ShardedRow>(json + "_end_ps", [end](const ShardedRow& r) { return r.*end; }));
}

std::vector<Column<ShardedRow>> unit_columns() {
  std::vector<Column<ShardedRow>> cols{
      {.name = "unit", .value = [](const ShardedRow& r) { return Json(r.name); }, .shown = kInTable | kInCsv, .title = "unit",
       .width = 20, .align = Align::Left},
      {.name = "name", .value = [](const ShardedRow& r) { return Json(r.name); }, .shown = kInJson},
      {.name = "elements", .value = [](const ShardedRow& r) { return Json(r.numel); }, .title = "elements", .width = 12}};
  add_span(cols, "fwd_gather", "forward_gather", "fwd AG", &ShardedRow::fwd_start, &ShardedRow::fwd_end);
  add_span(cols, "bwd_gather", "backward_gather", "bwd AG", &ShardedRow::bwd_start, &ShardedRow::bwd_end);
  add_span(cols, "reduce", "reduce", "reduce", &ShardedRow::reduce_start, &ShardedRow::reduce_end);
  return cols;
}

void sharded_table(std::ostream& out, const ShardedReport& rep) {
  const ShardedResult& r = rep.result;
  fmt::print(out, "# collsim ddp --sharding {}: {} on {} ({} ranks{}, {}), {} collectives{}\n", rep.strategy, rep.workload,
             rep.topology, rep.ranks, rep.ranks_per_node > 0 ? fmt::format(", {} per node", rep.ranks_per_node) : "",
             rep.device, rep.algorithm, rep.accumulate > 1 ? fmt::format(", {} micro-steps", rep.accumulate) : "");
  write_field_lines(out, sharded_summary(r));
  out << "\n";
  write_text_table(out, unit_columns(), sharded_rows(r));
  if (rep.stragglers) write_stragglers(out, *rep.stragglers, rep.jitter_sigma, rep.straggler_seed);
  if (rep.elastic) write_elastic(out, *rep.elastic);
  if (rep.events) write_step_events(out, *rep.events, r.iteration);
}

Json sharded_json(const ShardedReport& rep) {
  Json doc = report_document({{"workload", rep.workload}, {"topology", rep.topology}, {"ranks", rep.ranks},
                              {"device", rep.device}, {"algorithm", rep.algorithm}, {"sharding", rep.strategy}});
  if (rep.ranks_per_node > 0) doc["ranks_per_node"] = rep.ranks_per_node;
  doc["micro_steps"] = rep.accumulate;
  add_fields(doc, sharded_summary(rep.result));
  doc["units"] = json_rows(unit_columns(), sharded_rows(rep.result));
  if (rep.stragglers) doc["stragglers"] = stragglers_json(*rep.stragglers, rep.jitter_sigma, rep.straggler_seed);
  if (rep.elastic) doc["elastic"] = elastic_json(*rep.elastic);
  if (rep.events) doc["link_events"] = step_events_json(*rep.events);
  return doc;
}

void sharded_csv(std::ostream& o, const ShardedReport& r) { write_csv_table(o, unit_columns(), sharded_rows(r.result)); }

}  // namespace

ReportViews sharded_report_views(const ShardedReport& report) { return views_of(report, sharded_table, sharded_json, sharded_csv); }

}  // namespace collsim
