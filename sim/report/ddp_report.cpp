#include "sim/report/ddp_report.hpp"
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

std::vector<Summary> summary(const DdpResult& r) {
  return {{"iteration_ms", "iteration", r.iteration},
          {"forward_ms", "forward compute", r.forward},
          {"backward_ms", "backward compute", r.backward},
          {"bucket_copies_ms", "bucket copies", r.copies},
          {"hook_compute_ms", "comm hook compute", r.hook_compute},
          {"optimizer_ms", "optimizer", r.optimizer},
          {"communication_ms", "communication (sum)", r.comm_total},
          {"communication_busy_ms", "communication (busy)", r.comm_busy},
          {"exposed_communication_ms", "exposed communication", r.exposed_comm}};
}

void write_table(std::ostream& out, const DdpReport& rep) {
  const DdpResult& r = rep.result;
  fmt::print(out, "# collsim ddp: {} on {} ({} ranks, {}), {} {} all-reduce, bucket_cap_mb {}, iteration {}{}\n",
             rep.workload, rep.topology, rep.ranks, rep.device, rep.backend, rep.algorithm, rep.bucket_cap_mb,
             rep.iteration, r.accumulate > 1 ? fmt::format(", {} micro-steps", r.accumulate) : "");
  for (const auto& s : summary(r)) fmt::print(out, "{:<24}{:>12.3f} ms\n", s.label, s.value.ms());
  fmt::print(out, "{:<24}{:>12.1f} %\n", "overlap", r.overlap_percent);
  fmt::print(out, "\n{:>6} {:>7} {:>14} {:>14} {:>11} {:>11} {:>11} {:>11} {:>11}\n", "bucket", "params", "bytes",
             "wire bytes", "ready", "launch", "start", "end", "comm");
  fmt::print(out, "{:>6} {:>7} {:>14} {:>14} {:>11} {:>11} {:>11} {:>11} {:>11}\n", "", "", "(B)", "(B)", "(ms)", "(ms)",
             "(ms)", "(ms)", "(ms)");
  for (const auto& b : r.buckets) {
    fmt::print(out, "{:>6} {:>7} {:>14} {:>14} {:>11.3f} {:>11.3f} {:>11.3f} {:>11.3f} {:>11.3f}\n", b.index, b.params,
               b.bytes.count, b.wire_bytes.count, b.ready.ms(), b.launched.ms(), b.start.ms(), b.end.ms(), (b.end - b.start).ms());
  }
}

void write_json(std::ostream& out, const DdpReport& rep) {
  const DdpResult& r = rep.result;
  nlohmann::ordered_json doc;
  doc[kVersionKey] = version_string();
  doc["workload"] = rep.workload;
  doc["topology"] = rep.topology;
  doc["ranks"] = rep.ranks;
  doc["device"] = rep.device;
  doc["backend"] = rep.backend;
  doc["algorithm"] = rep.algorithm;
  doc["bucket_cap_mb"] = rep.bucket_cap_mb;
  doc["iteration"] = rep.iteration;
  doc["micro_steps"] = r.accumulate;
  for (const auto& s : summary(r)) doc[s.key] = s.value.ms();
  doc["iteration_ps"] = r.iteration.ps;
  doc["overlap_percent"] = r.overlap_percent;
  doc["buckets"] = nlohmann::ordered_json::array();
  for (const auto& b : r.buckets) {
    nlohmann::ordered_json row;
    row["index"] = b.index;
    row["params"] = b.params;
    row["bytes"] = b.bytes.count;
    row["wire_bytes"] = b.wire_bytes.count;
    row["collectives"] = b.collectives;
    row["ready_ps"] = b.ready.ps;
    row["launch_ps"] = b.launched.ps;
    row["start_ps"] = b.start.ps;
    row["end_ps"] = b.end.ps;
    const auto i = static_cast<std::size_t>(&b - r.buckets.data());
    if (i < rep.bucket_choices.size() && !rep.bucket_choices[i].empty()) row["choice"] = rep.bucket_choices[i];
    doc["buckets"].push_back(std::move(row));
  }
  out << doc.dump(2) << "\n";
}

void write_csv(std::ostream& out, const DdpReport& rep) {
  CsvWriter csv(out);
  csv.row({"bucket", "params", "bytes", "wire_bytes", "ready_ms", "launch_ms", "start_ms", "end_ms", "comm_ms"});
  for (const auto& b : rep.result.buckets) {
    csv.row({std::to_string(b.index), std::to_string(b.params), std::to_string(b.bytes.count),
             std::to_string(b.wire_bytes.count), fmt::format("{:.6f}", b.ready.ms()), fmt::format("{:.6f}", b.launched.ms()),
             fmt::format("{:.6f}", b.start.ms()), fmt::format("{:.6f}", b.end.ms()),
             fmt::format("{:.6f}", (b.end - b.start).ms())});
  }
}

}  // namespace

void write_ddp_report(std::ostream& out, const DdpReport& report, OutputFormat format) {
  switch (format) {
    case OutputFormat::Table: write_table(out, report); break;
    case OutputFormat::Json: write_json(out, report); break;
    case OutputFormat::Csv: write_csv(out, report); break;
  }
}

}  // namespace collsim
