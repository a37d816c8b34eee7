#include "sim/report/plan_report.hpp"
#include "sim/core/version.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "sim/report/csv_writer.hpp"

namespace collsim {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// One row's cells, formatted once so the table, CSV, JSON and markdown agree.
struct Cells {
  std::string candidate, workload, strategy, world, micro, status;
  std::string step_ms, samples_s, efficiency, exposed, memory_gib, margin_gib, per_hour, per_million, pareto;
};

constexpr std::array<const char*, 15> kHeader{"candidate", "workload", "strategy", "gpus", "micro_batch", "status",
                                              "step_ms", "samples_per_s", "scaling_eff_pct", "exposed_comm_pct",
                                              "memory_gib", "margin_gib", "cost_per_hour", "cost_per_m_samples", "pareto"};

Cells cells(const PlanReport& rep, const PlanRow& r) {
  const Plan& p = *rep.plan;
  Cells c;
  c.candidate = p.candidates[r.candidate].name;
  c.workload = rep.workload_names[r.workload];
  c.strategy = p.variants[r.variant].label;
  c.world = std::to_string(r.world);
  c.status = std::string(to_string(r.status));
  c.per_hour = fmt::format("{:.2f}", r.cost_per_hour);
  if (r.status == PlanStatus::BatchInvalid) {
    for (std::string* cell : {&c.micro, &c.step_ms, &c.samples_s, &c.efficiency, &c.exposed, &c.memory_gib,
                              &c.margin_gib, &c.per_million}) {
      cell->assign(1, '-');
    }
    return c;
  }
  c.micro = std::to_string(r.micro_batch);
  c.step_ms = fmt::format("{:.3f}", static_cast<double>(r.step.ps) / Time::kPerMs);
  c.samples_s = fmt::format("{:.1f}", r.samples_per_s);
  c.efficiency = fmt::format("{:.1f}", 100 * r.scaling_efficiency);
  c.exposed = fmt::format("{:.1f}", r.exposed_percent);
  c.memory_gib = fmt::format("{:.2f}", static_cast<double>(r.memory.total.count) / kGiB);
  c.margin_gib = fmt::format("{:.2f}", static_cast<double>(r.memory.margin_bytes) / kGiB);
  c.per_million = fmt::format("{:.2f}", r.cost_per_million);
  c.pareto = r.pareto ? "yes" : "";
  return c;
}

std::vector<std::string> as_list(const Cells& c) {
  return {c.candidate, c.workload, c.strategy, c.world, c.micro, c.status, c.step_ms, c.samples_s, c.efficiency,
          c.exposed, c.memory_gib, c.margin_gib, c.per_hour, c.per_million, c.pareto};
}

void write_table(std::ostream& out, const PlanReport& rep) {
  const Plan& p = *rep.plan;
  fmt::print(out, "# collsim plan: {} ({} combinations, {} simulated); costs in {}\n", p.name, rep.result.rows.size(),
             rep.result.simulations, p.currency);
  fmt::print(out, "# scaling_eff_pct: strong scaling at fixed global batch, T(base) x base / (T x gpus), base = the\n"
                  "# smallest world size of the same candidate/workload/strategy; pareto: best on (step_ms, cost_per_m_samples) per workload\n");
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back(kHeader.begin(), kHeader.end());
  for (const auto& r : rep.result.rows) rows.push_back(as_list(cells(rep, r)));
  std::vector<std::size_t> width(kHeader.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      // Text columns left-aligned, numbers right-aligned; two spaces between columns.
      const bool text = i < 3 || i == 5;
      line += text ? fmt::format("{:<{}}", row[i], width[i]) : fmt::format("{:>{}}", row[i], width[i]);
      if (i + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

void write_csv(std::ostream& out, const PlanReport& rep) {
  CsvWriter csv(out);
  csv.row(std::vector<std::string>(kHeader.begin(), kHeader.end()));
  for (const auto& r : rep.result.rows) csv.row(as_list(cells(rep, r)));
}

nlohmann::ordered_json number_or_null(const std::string& s) {
  if (s == "-") return nullptr;
  return std::stod(s);
}

void write_json(std::ostream& out, const PlanReport& rep) {
  const Plan& p = *rep.plan;
  nlohmann::ordered_json doc;
  doc[kVersionKey] = version_string();
  doc["plan"] = p.name;
  doc["source"] = p.source;
  doc["currency"] = p.currency;
  doc["scaling"] = "strong scaling at fixed global batch: T(base) x base / (T x gpus), base = smallest world size of the same candidate, workload and strategy";
  doc["simulations"] = rep.result.simulations;
  doc["candidates"] = nlohmann::ordered_json::array();
  for (const auto& c : p.candidates) {
    doc["candidates"].push_back({{"name", c.name}, {"description", c.description}, {"gpu", c.gpu_model},
                                 {"gpus_per_host", c.gpus_per_host}, {"algorithm", c.algorithm}, {"protocol", c.protocol},
                                 {"price_per_gpu_hour", c.price.hourly()}, {"price", c.price.describe()}});
  }
  doc["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : rep.result.rows) {
    const Cells c = cells(rep, r);
    nlohmann::ordered_json row;
    row["candidate"] = c.candidate;
    row["workload"] = c.workload;
    row["strategy"] = c.strategy;
    row["gpus"] = r.world;
    row["micro_batch"] = r.status == PlanStatus::BatchInvalid ? nlohmann::ordered_json() : nlohmann::ordered_json(r.micro_batch);
    row["status"] = c.status;
    row["step_ms"] = number_or_null(c.step_ms);
    row["step_ps"] = r.step.ps;
    row["samples_per_s"] = number_or_null(c.samples_s);
    row["scaling_efficiency_base_gpus"] = r.efficiency_base;
    row["scaling_eff_pct"] = number_or_null(c.efficiency);
    row["exposed_comm_pct"] = number_or_null(c.exposed);
    row["communication_ps"] = r.comm_total.ps;
    row["exposed_communication_ps"] = r.exposed_comm.ps;
    row["memory_gib"] = number_or_null(c.memory_gib);
    row["margin_gib"] = number_or_null(c.margin_gib);
    row["memory_bytes"] = {{"parameters", r.memory.parameters.count}, {"gradients", r.memory.gradients.count},
                           {"optimizer", r.memory.optimizer.count},   {"buckets", r.memory.buckets.count},
                           {"unsharded", r.memory.unsharded.count},   {"activations", r.memory.activations.count},
                           {"total", r.memory.total.count},           {"capacity", r.memory.capacity.count}};
    row["cost_per_hour"] = std::stod(c.per_hour);
    row["cost_per_m_samples"] = number_or_null(c.per_million);
    row["pareto"] = r.pareto;
    doc["rows"].push_back(std::move(row));
  }
  out << doc.dump(2) << "\n";
}

}  // namespace

std::vector<std::string> plan_columns() { return {kHeader.begin(), kHeader.end()}; }

std::vector<std::string> plan_row_cells(const PlanReport& report, const PlanRow& row) {
  return as_list(cells(report, row));
}

void write_plan_report(std::ostream& out, const PlanReport& report, OutputFormat format) {
  switch (format) {
    case OutputFormat::Table: write_table(out, report); break;
    case OutputFormat::Json: write_json(out, report); break;
    case OutputFormat::Csv: write_csv(out, report); break;
  }
}

}  // namespace collsim
