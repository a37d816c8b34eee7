#include "sim/report/sharded_report.hpp"
#include "sim/core/version.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "sim/report/csv_writer.hpp"

namespace collsim {

namespace {

struct Summary {
  const char* key;
  const char* label;
  Time value;
};

std::vector<Summary> summary(const ShardedResult& r) {
  return {{"iteration_ms", "iteration", r.iteration},
          {"forward_ms", "forward compute", r.forward},
          {"backward_ms", "backward compute", r.backward},
          {"optimizer_ms", "optimizer (shard)", r.optimizer},
          {"communication_ms", "communication (sum)", r.comm_total},
          {"communication_busy_ms", "communication (busy)", r.comm_busy},
          {"exposed_communication_ms", "exposed communication", r.exposed_comm}};
}

// One row per FSDP unit, or per ZeRO-1/2 bucket: name, elements, then start/end pairs.
struct Row {
  std::string name;
  std::int64_t numel = 0;
  Time fwd_start, fwd_end, bwd_start, bwd_end, reduce_start, reduce_end;
};

std::vector<Row> rows(const ShardedResult& r) {
  std::vector<Row> out;
  for (const auto& t : r.unit_timings) {
    const ShardUnit& u = r.units[t.unit];
    out.push_back(Row{u.name, u.numel, t.forward_gather_start, t.forward_gather_end, t.backward_gather_start,
                      t.backward_gather_end, t.reduce_start, t.reduce_end});
  }
  for (std::size_t b = 0; b < r.buckets.size(); ++b) {
    const GradientBucket& g = r.buckets[b];
    out.push_back(Row{fmt::format("bucket {}", b), g.numel, {}, {}, {}, {}, g.reduce_start, g.reduce_end});
  }
  return out;
}

void write_table(std::ostream& out, const ShardedReport& rep) {
  const ShardedResult& r = rep.result;
  fmt::print(out, "# collsim ddp --sharding {}: {} on {} ({} ranks{}, {}), {} collectives{}\n", rep.strategy, rep.workload,
             rep.topology, rep.ranks, rep.ranks_per_node > 0 ? fmt::format(", {} per node", rep.ranks_per_node) : "",
             rep.device, rep.algorithm, rep.accumulate > 1 ? fmt::format(", {} micro-steps", rep.accumulate) : "");
  for (const auto& s : summary(r)) fmt::print(out, "{:<24}{:>12.3f} ms\n", s.label, s.value.ms());
  fmt::print(out, "{:<24}{:>12.1f} %\n", "overlap", r.overlap_percent);
  fmt::print(out, "{:<24}{:>12.0f}\n", "gathered elements", r.gathered_elements);
  fmt::print(out, "{:<24}{:>12.0f}\n", "reduced elements", r.reduced_elements);
  fmt::print(out, "{:<24}{:>12} B\n", "peak unsharded", r.peak_unsharded.count);
  fmt::print(out, "\n{:<20} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "unit", "elements", "fwd AG", "fwd AG",
             "bwd AG", "bwd AG", "reduce", "reduce");
  fmt::print(out, "{:<20} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "", "", "start ms", "end ms", "start ms",
             "end ms", "start ms", "end ms");
  for (const Row& row : rows(r)) {
    fmt::print(out, "{:<20} {:>12} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f}\n", row.name, row.numel,
               row.fwd_start.ms(), row.fwd_end.ms(), row.bwd_start.ms(), row.bwd_end.ms(), row.reduce_start.ms(),
               row.reduce_end.ms());
  }
}

void write_json(std::ostream& out, const ShardedReport& rep) {
  const ShardedResult& r = rep.result;
  nlohmann::ordered_json doc;
  doc[kVersionKey] = version_string();
  doc["workload"] = rep.workload;
  doc["topology"] = rep.topology;
  doc["ranks"] = rep.ranks;
  doc["device"] = rep.device;
  doc["algorithm"] = rep.algorithm;
  doc["sharding"] = rep.strategy;
  if (rep.ranks_per_node > 0) doc["ranks_per_node"] = rep.ranks_per_node;
  doc["micro_steps"] = rep.accumulate;
  for (const auto& s : summary(r)) doc[s.key] = s.value.ms();
  doc["iteration_ps"] = r.iteration.ps;
  doc["overlap_percent"] = r.overlap_percent;
  doc["gathered_elements"] = r.gathered_elements;
  doc["reduced_elements"] = r.reduced_elements;
  doc["peak_unsharded_bytes"] = r.peak_unsharded.count;
  doc["units"] = nlohmann::ordered_json::array();
  for (const Row& row : rows(r)) {
    nlohmann::ordered_json j;
    j["name"] = row.name;
    j["elements"] = row.numel;
    j["forward_gather_start_ps"] = row.fwd_start.ps;
    j["forward_gather_end_ps"] = row.fwd_end.ps;
    j["backward_gather_start_ps"] = row.bwd_start.ps;
    j["backward_gather_end_ps"] = row.bwd_end.ps;
    j["reduce_start_ps"] = row.reduce_start.ps;
    j["reduce_end_ps"] = row.reduce_end.ps;
    doc["units"].push_back(std::move(j));
  }
  out << doc.dump(2) << "\n";
}

void write_csv(std::ostream& out, const ShardedReport& rep) {
  CsvWriter csv(out);
  csv.row({"unit", "elements", "fwd_gather_start_ms", "fwd_gather_end_ms", "bwd_gather_start_ms", "bwd_gather_end_ms",
           "reduce_start_ms", "reduce_end_ms"});
  auto ms = [](Time t) { return fmt::format("{:.6f}", t.ms()); };
  for (const Row& row : rows(rep.result)) {
    csv.row({row.name, fmt::format("{}", row.numel), ms(row.fwd_start), ms(row.fwd_end), ms(row.bwd_start), ms(row.bwd_end),
             ms(row.reduce_start), ms(row.reduce_end)});
  }
}

}  // namespace

void write_sharded_report(std::ostream& out, const ShardedReport& report, OutputFormat format) {
  switch (format) {
    case OutputFormat::Table: write_table(out, report); break;
    case OutputFormat::Json: write_json(out, report); break;
    case OutputFormat::Csv: write_csv(out, report); break;
  }
}

}  // namespace collsim
