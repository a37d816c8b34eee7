#include "sim/report/sweep_report.hpp"
#include "sim/core/version.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "sim/report/csv_writer.hpp"

namespace collsim {

namespace {

void write_table(std::ostream& out, const SweepReport& rep) {
  const SweepResult& r = rep.result;
  fmt::print(out, "# collsim sweep: {} on {} ({}), {} {} all-reduce ({})\n", rep.workload, rep.topology, rep.device,
             rep.backend, rep.algorithm, rep.cost_method);
  fmt::print(out, "{:>6} {:>10} {:>8} {:>13} {:>13} {:>13} {:>9}\n", "ranks", "bucket_mb", "buckets", "iteration",
             "comm", "exposed", "overlap");
  fmt::print(out, "{:>6} {:>10} {:>8} {:>13} {:>13} {:>13} {:>9}\n", "", "(MiB)", "", "(ms)", "(ms)", "(ms)", "(%)");
  for (const auto& row : r.rows) {
    fmt::print(out, "{:>6} {:>10g} {:>8} {:>13.3f} {:>13.3f} {:>13.3f} {:>9.1f}\n", row.ranks, row.bucket_mb, row.buckets,
               row.iteration.ms(), row.comm_total.ms(), row.exposed_comm.ms(), row.overlap_percent);
  }
  fmt::print(out, "\n# best bucket size per world size; scaling efficiency = best iteration at {} ranks / at N\n",
             r.best.empty() ? 0 : r.best.front().ranks);
  fmt::print(out, "{:>6} {:>10} {:>13} {:>11}\n", "ranks", "bucket_mb", "iteration", "efficiency");
  for (const auto& b : r.best) {
    fmt::print(out, "{:>6} {:>10g} {:>13.3f} {:>10.1f}%\n", b.ranks, b.bucket_mb, b.iteration.ms(), 100 * b.scaling_efficiency);
  }
}

void write_json(std::ostream& out, const SweepReport& rep) {
  const SweepResult& r = rep.result;
  nlohmann::ordered_json doc;
  doc[kVersionKey] = version_string();
  doc["workload"] = rep.workload;
  doc["topology"] = rep.topology;
  doc["device"] = rep.device;
  doc["backend"] = rep.backend;
  doc["algorithm"] = rep.algorithm;
  doc["allreduce_cost"] = rep.cost_method;
  doc["collective_plays"] = r.collective_plays;
  doc["rows"] = nlohmann::ordered_json::array();
  for (const auto& row : r.rows) {
    doc["rows"].push_back({{"ranks", row.ranks}, {"bucket_mb", row.bucket_mb}, {"buckets", row.buckets},
                           {"iteration_ms", row.iteration.ms()}, {"iteration_ps", row.iteration.ps},
                           {"communication_ms", row.comm_total.ms()}, {"exposed_communication_ms", row.exposed_comm.ms()},
                           {"overlap_percent", row.overlap_percent}});
  }
  doc["best"] = nlohmann::ordered_json::array();
  for (const auto& b : r.best) {
    doc["best"].push_back({{"ranks", b.ranks}, {"bucket_mb", b.bucket_mb}, {"iteration_ms", b.iteration.ms()},
                           {"scaling_efficiency", b.scaling_efficiency}});
  }
  out << doc.dump(2) << "\n";
}

void write_csv(std::ostream& out, const SweepReport& rep) {
  CsvWriter csv(out);
  csv.row({"ranks", "bucket_mb", "buckets", "iteration_ms", "communication_ms", "exposed_communication_ms", "overlap_percent",
           "best"});
  for (const auto& row : rep.result.rows) {
    bool best = false;
    for (const auto& b : rep.result.best) best = best || (b.ranks == row.ranks && b.bucket_mb == row.bucket_mb);
    csv.row({fmt::format("{}", row.ranks), fmt::format("{:g}", row.bucket_mb), fmt::format("{}", row.buckets),
             fmt::format("{:.6f}", row.iteration.ms()), fmt::format("{:.6f}", row.comm_total.ms()),
             fmt::format("{:.6f}", row.exposed_comm.ms()), fmt::format("{:.3f}", row.overlap_percent), best ? "1" : "0"});
  }
}

}  // namespace

void write_sweep_report(std::ostream& out, const SweepReport& report, OutputFormat format) {
  switch (format) {
    case OutputFormat::Table: write_table(out, report); break;
    case OutputFormat::Json: write_json(out, report); break;
    case OutputFormat::Csv: write_csv(out, report); break;
  }
}

}  // namespace collsim
