#include "sim/report/collective_table.hpp"
#include "sim/core/version.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "sim/report/csv_writer.hpp"

namespace collsim {

namespace {

constexpr int kFloatBytes = 4;

struct RowFields {
  std::int64_t count;
  const char* redop;
  int root;
};

// nccl-tests conventions: float elements; gather-type collectives print redop "none";
// rootless collectives print root -1.
RowFields fields(const CollectivePrediction& p) {
  const CollectiveOp op = p.collective.op;
  const bool rooted = op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce;
  const bool reduces = op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter || op == CollectiveOp::Reduce;
  std::int64_t count = p.collective.size.count / kFloatBytes;
  if (op == CollectiveOp::AllGather || op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllToAll) {
    count /= p.collective.ranks;
  }
  return {count, reduces ? "sum" : "none", rooted ? p.collective.root : -1};
}

void write_table(std::ostream& out, const CollectiveReport& r) {
  if (!r.rows.empty()) {
    const auto& c = r.rows.front().collective;
    fmt::print(out, "# collsim collective: {} on {} ({} ranks)\n", to_string(c.op), r.topology, c.ranks);
  }
  fmt::print(out, "#{:>11} {:>13} {:>9} {:>6} {:>6} {:>12} {:>9} {:>9}  {:<10} {:<8} {}\n", "size", "count", "type",
             "redop", "root", "time", "algbw", "busbw", "algorithm", "protocol", "channels");
  fmt::print(out, "#{:>11} {:>13} {:>9} {:>6} {:>6} {:>12} {:>9} {:>9}\n", "(B)", "(elements)", "", "", "", "(us)",
             "(GB/s)", "(GB/s)");
  for (const auto& p : r.rows) {
    const RowFields f = fields(p);
    fmt::print(out, "{:>12} {:>13} {:>9} {:>6} {:>6} {:>12.2f} {:>9.2f} {:>9.2f}  {:<10} {:<8} {}\n",
               p.collective.size.count, f.count, "float", f.redop, f.root, p.time.us(), p.algbw_gbps, p.busbw_gbps,
               p.algorithm, to_string(p.protocol), p.channels);
  }
  for (const auto& x : r.crossovers) {
    fmt::print(out, "# crossover: {}/{} -> {}/{} at {} B\n", x.from_algorithm, to_string(x.from_protocol),
               x.to_algorithm, to_string(x.to_protocol), x.at.count);
  }
}

void write_json(std::ostream& out, const CollectiveReport& r) {
  nlohmann::ordered_json doc;
  doc[kVersionKey] = version_string();
  doc["topology"] = r.topology;
  doc["rows"] = nlohmann::ordered_json::array();
  for (const auto& p : r.rows) {
    const RowFields f = fields(p);
    nlohmann::ordered_json row;
    row["op"] = to_string(p.collective.op);
    row["ranks"] = p.collective.ranks;
    row["size_bytes"] = p.collective.size.count;
    row["count"] = f.count;
    row["type"] = "float";
    row["redop"] = f.redop;
    row["root"] = f.root;
    row["time_ps"] = p.time.ps;
    row["time_us"] = p.time.us();
    row["algbw_gbps"] = p.algbw_gbps;
    row["busbw_gbps"] = p.busbw_gbps;
    row["algorithm"] = p.algorithm;
    row["protocol"] = to_string(p.protocol);
    row["channels"] = p.channels;
    doc["rows"].push_back(std::move(row));
  }
  if (!r.crossovers.empty()) {
    doc["crossovers"] = nlohmann::ordered_json::array();
    for (const auto& x : r.crossovers) {
      nlohmann::ordered_json j;
      j["from_algorithm"] = x.from_algorithm;
      j["from_protocol"] = to_string(x.from_protocol);
      j["to_algorithm"] = x.to_algorithm;
      j["to_protocol"] = to_string(x.to_protocol);
      j["size_bytes"] = x.at.count;
      doc["crossovers"].push_back(std::move(j));
    }
  }
  out << doc.dump(2) << "\n";
}

void write_csv(std::ostream& out, const CollectiveReport& r) {
  CsvWriter csv(out);
  csv.row({"op", "ranks", "size_bytes", "count", "type", "redop", "root", "time_us", "algbw_gbps", "busbw_gbps", "algorithm",
           "protocol", "channels"});
  for (const auto& p : r.rows) {
    const RowFields f = fields(p);
    csv.row({std::string(to_string(p.collective.op)), std::to_string(p.collective.ranks),
             std::to_string(p.collective.size.count), fmt::format("{}", f.count), "float", fmt::format("{}", f.redop),
             fmt::format("{}", f.root), fmt::format("{:.6f}", p.time.us()), fmt::format("{:.6f}", p.algbw_gbps),
             fmt::format("{:.6f}", p.busbw_gbps), p.algorithm, std::string(to_string(p.protocol)),
             std::to_string(p.channels)});
  }
}

}  // namespace

void write_collective_report(std::ostream& out, const CollectiveReport& report, OutputFormat format) {
  switch (format) {
    case OutputFormat::Table: write_table(out, report); break;
    case OutputFormat::Json: write_json(out, report); break;
    case OutputFormat::Csv: write_csv(out, report); break;
  }
}

}  // namespace collsim
