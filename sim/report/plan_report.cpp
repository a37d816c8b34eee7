#include "sim/report/plan_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

namespace collsim {

namespace {

// One row's cells, formatted once so the table, CSV, JSON and markdown agree.
struct Cells {
  std::string candidate, workload, strategy, world, micro, status;
  std::string step_ms, samples_s, efficiency, exposed, memory_gib, margin_gib, per_hour, per_million, pareto;
  std::string train_h, goodput, run_cost;  // with the plan's failures
  std::string layout, mfu, tokens_s;        // with megatron strategies
};

bool has_megatron(const Plan& p) {
  return std::any_of(p.variants.begin(), p.variants.end(), [](const PlanStrategyVariant& v) { return v.megatron.has_value(); });
}

Cells cells(const PlanReport& rep, const PlanRow& r) {
  const Plan& p = *rep.plan;
  Cells c;
  c.candidate = p.candidates[r.candidate].name;
  c.workload = rep.workload_names[r.workload];
  c.strategy = p.variants[r.variant].label;
  c.world = std::to_string(r.world);
  c.status = std::string(to_string(r.status));
  c.per_hour = fmt::format("{:.2f}", r.cost_per_hour);
  const bool megatron = p.variants[r.variant].megatron.has_value();
  c.layout = megatron && !r.layout.empty() ? r.layout : "-";
  c.mfu = megatron && !r.layout.empty() ? fmt::format("{:.3f}", r.mfu) : "-";
  c.tokens_s = megatron && !r.layout.empty() ? fmt::format("{:.0f}", r.tokens_per_s) : "-";
  if (r.status == PlanStatus::BatchInvalid) {
    for (std::string* cell : {&c.micro, &c.step_ms, &c.samples_s, &c.efficiency, &c.exposed, &c.memory_gib,
                              &c.margin_gib, &c.per_million, &c.train_h, &c.goodput, &c.run_cost}) {
      cell->assign(1, '-');
    }
    return c;
  }
  c.micro = std::to_string(r.micro_batch);
  c.step_ms = fmt::format("{:.3f}", static_cast<double>(r.step.ps) / Time::kPerMs);
  c.samples_s = fmt::format("{:.1f}", r.samples_per_s);
  c.efficiency = fmt::format("{:.1f}", 100 * r.scaling_efficiency);
  c.exposed = fmt::format("{:.1f}", r.exposed_percent);
  c.memory_gib = fmt::format("{:.2f}", static_cast<double>(r.memory.total.count) / kBytesPerGiB);
  c.margin_gib = fmt::format("{:.2f}", static_cast<double>(r.memory.margin_bytes) / kBytesPerGiB);
  c.per_million = fmt::format("{:.2f}", r.cost_per_million);
  c.pareto = r.pareto ? "yes" : "";
  if (r.run) {
    // "never": interruptions come faster than a step, a checkpoint and a restart.
    c.train_h = r.run->wall_s ? fmt::format("{:.1f}", *r.run->wall_s / 3600) : "never";
    c.goodput = r.run->wall_s ? fmt::format("{:.1f}", 100 * r.run->goodput) : "0.0";
    c.run_cost = r.run->wall_s ? fmt::format("{:.0f}", *r.run_cost()) : "never";
  }
  return c;
}

// A row with its cells formatted.
struct Line {
  const PlanRow* row;
  Cells cells;
};

std::vector<Line> lines(const PlanReport& rep) {
  std::vector<Line> out;
  out.reserve(rep.result.rows.size());
  for (const auto& r : rep.result.rows) out.push_back({&r, cells(rep, r)});
  return out;
}

Json number_or_null(const std::string& s) { return s == "-" || s == "never" ? Json() : Json(std::stod(s)); }

// A column whose table and CSV cell is `field`, in JSON the cell read back as a number
// (null for "-"), unless `json` says otherwise. Text left-aligned, numbers right-aligned.
Column<Line> cell(const char* name, std::string Cells::*field, std::function<Json(const Line&)> json = {},
                  Align align = Align::Right) {
  return {.name = name, .value = [field](const Line& l) { return Json(l.cells.*field); }, .title = name,
          .width = kFitWidth, .align = align, .gap = 2,
          .json = json ? std::move(json)
                       : std::function<Json(const Line&)>([field](const Line& l) { return number_or_null(l.cells.*field); })};
}

Column<Line> json_only(const char* name, std::function<Json(const Line&)> json) {
  return {.name = name, .value = std::move(json), .shown = kInJson};
}

// The columns; with the plan's failures, the run's too, before the Pareto mark.
std::vector<Column<Line>> plan_table_columns(const PlanReport& rep) {
  const auto text = [](std::string Cells::*field) { return [field](const Line& l) { return Json(l.cells.*field); }; };
  std::vector<Column<Line>> cols{
      cell("candidate", &Cells::candidate, text(&Cells::candidate), Align::Left),
      cell("workload", &Cells::workload, text(&Cells::workload), Align::Left),
      cell("strategy", &Cells::strategy, text(&Cells::strategy), Align::Left),
      cell("gpus", &Cells::world, [](const Line& l) { return Json(l.row->world); }),
      cell("micro_batch", &Cells::micro,
           [](const Line& l) { return l.row->status == PlanStatus::BatchInvalid ? Json() : Json(l.row->micro_batch); }),
      cell("status", &Cells::status, text(&Cells::status), Align::Left),
      cell("step_ms", &Cells::step_ms),
      json_only("step_ps", [](const Line& l) { return Json(l.row->step.ps); }),
      cell("samples_per_s", &Cells::samples_s),
      json_only("scaling_efficiency_base_gpus", [](const Line& l) { return Json(l.row->efficiency_base); }),
      cell("scaling_eff_pct", &Cells::efficiency),
      cell("exposed_comm_pct", &Cells::exposed),
      json_only("communication_ps", [](const Line& l) { return Json(l.row->comm_total.ps); }),
      json_only("exposed_communication_ps", [](const Line& l) { return Json(l.row->exposed_comm.ps); }),
      cell("memory_gib", &Cells::memory_gib),
      cell("margin_gib", &Cells::margin_gib),
      json_only("memory_bytes",
                [](const Line& l) {
                  const MemoryEstimate& m = l.row->memory;
                  return Json{{"parameters", m.parameters.count}, {"gradients", m.gradients.count},
                              {"optimizer", m.optimizer.count},   {"buckets", m.buckets.count},
                              {"unsharded", m.unsharded.count},   {"activations", m.activations.count},
                              {"total", m.total.count},           {"capacity", m.capacity.count}};
                }),
      cell("cost_per_hour", &Cells::per_hour, [](const Line& l) { return Json(std::stod(l.cells.per_hour)); }),
      cell("cost_per_m_samples", &Cells::per_million),
  };
  if (rep.plan->stragglers) {
    cols.insert(cols.begin() + 8, json_only("nominal_step_ps", [](const Line& l) { return Json(l.row->nominal_step.ps); }));
  }
  if (has_megatron(*rep.plan)) {
    // After the strategy: the layout a megatron row found, then (before the cost) its rates.
    cols.insert(cols.begin() + 3, cell("layout", &Cells::layout,
                                       [](const Line& l) { return l.cells.layout == "-" ? Json() : Json(l.cells.layout); },
                                       Align::Left));
    cols.push_back(cell("tokens_per_s", &Cells::tokens_s,
                        [](const Line& l) { return l.cells.tokens_s == "-" ? Json() : Json(l.row->tokens_per_s); }));
    cols.push_back(cell("mfu", &Cells::mfu, [](const Line& l) { return l.cells.mfu == "-" ? Json() : Json(l.row->mfu); }));
    cols.push_back(json_only("layouts_evaluated", [](const Line& l) { return Json(l.row->layouts_evaluated); }));
  }
  if (rep.plan->failures) {
    cols.push_back(cell("train_hours", &Cells::train_h));
    cols.push_back(cell("goodput_pct", &Cells::goodput));
    cols.push_back(cell("run_cost", &Cells::run_cost));
    cols.push_back(json_only("run", [](const Line& l) {
      const auto& run = l.row->run;
      if (!run) return Json();
      return Json{{"checkpoint_bytes", run->checkpoint.count}, {"checkpoint_s", run->checkpoint_s},
                  {"checkpoint_interval_s", run->interval_s}, {"job_mtbf_s", run->mtbf_s},
                  {"expected_wall_s", run->wall_s ? Json(*run->wall_s) : Json()}, {"goodput", run->goodput},
                  {"expected_interruptions", run->interruptions}};
    }));
  }
  cols.push_back(cell("pareto", &Cells::pareto, [](const Line& l) { return Json(l.row->pareto); }));
  return cols;
}

void plan_table(std::ostream& out, const PlanReport& rep) {
  const Plan& p = *rep.plan;
  fmt::print(out, "# collsim plan: {} ({} combinations, {} simulated); costs in {}\n", p.name, rep.result.rows.size(),
             rep.result.simulations, p.currency);
  fmt::print(out, "# scaling_eff_pct: strong scaling at fixed global batch, T(base) x base / (T x gpus), base = the\n"
                  "# smallest world size of the same candidate/workload/strategy; pareto: best on {} per workload\n",
             p.failures ? "(train_hours, run_cost)" : "(step_ms, cost_per_m_samples)");
  for (const auto& line : plan_assumption_lines(p)) fmt::print(out, "# {}\n", line);
  write_text_table(out, plan_table_columns(rep), lines(rep), {.trim = true});
}

Json plan_json(const PlanReport& rep) {
  const Plan& p = *rep.plan;
  Json candidates = Json::array();
  for (const auto& c : p.candidates) {
    candidates.push_back({{"name", c.name}, {"description", c.description}, {"gpu", c.gpu_model},
                          {"gpus_per_host", c.gpus_per_host}, {"algorithm", c.algorithm}, {"protocol", c.protocol},
                          {"price_per_gpu_hour", c.price.hourly()}, {"price", c.price.describe()}});
    if (!c.nccl_env_text.empty()) candidates.back()["nccl_env"] = c.nccl_env_text;
    if (c.calibration) candidates.back()["calibration"] = c.calibration_path;
    if (c.network_price) candidates.back()["network_price"] = c.network_price->describe();
  }
  return report_document(
      {{"plan", p.name}, {"source", p.source}, {"currency", p.currency},
       {"scaling", "strong scaling at fixed global batch: T(base) x base / (T x gpus), base = smallest world size of the same candidate, workload and strategy"},
       {"simulations", rep.result.simulations}, {"candidates", std::move(candidates)},
       {"rows", json_rows(plan_table_columns(rep), lines(rep))}});
}

void plan_csv(std::ostream& o, const PlanReport& r) { write_csv_table(o, plan_table_columns(r), lines(r)); }

}  // namespace

std::vector<std::string> plan_columns(const PlanReport& report) {
  std::vector<std::string> names;
  for (const auto& c : plan_table_columns(report)) {
    if (c.shown & kInTable) names.push_back(c.name);
  }
  return names;
}

std::vector<std::string> plan_row_cells(const PlanReport& report, const PlanRow& row) {
  const Line line{&row, cells(report, row)};
  std::vector<std::string> out;
  for (const auto& c : plan_table_columns(report)) {
    if (c.shown & kInTable) out.push_back(text_cell(c, line));
  }
  return out;
}

std::vector<std::string> plan_assumption_lines(const Plan& p) {
  std::vector<std::string> out;
  if (const auto& s = p.stragglers) {
    std::string what;
    if (s->slow_fraction > 0) what = fmt::format("{:g} of the GPUs (rounded) at {:g}x speed", s->slow_fraction, s->slow_speed);
    if (s->jitter_sigma > 0) {
      what += fmt::format("{}log-normal jitter sigma {:g} per GPU and step", what.empty() ? "" : ", ", s->jitter_sigma);
    }
    out.push_back(fmt::format("stragglers: {}; step_ms is the mean over {} seeded step(s) (seed {}) at the slowest GPU's pace",
                              what, s->jitter_sigma > 0 ? s->steps : 1, s->seed));
  }
  if (const auto& f = p.failures) {
    std::vector<std::string> mtbf;
    if (f->mtbf_gpu_s) mtbf.push_back(fmt::format("{:g} h per GPU", *f->mtbf_gpu_s / 3600));
    if (f->mtbf_host_s) mtbf.push_back(fmt::format("{:g} h per host", *f->mtbf_host_s / 3600));
    if (f->mtbf_link_s) mtbf.push_back(fmt::format("{:g} h per link ({:g} per GPU)", *f->mtbf_link_s / 3600, f->links_per_gpu));
    out.push_back(fmt::format(
        "failures ({}): {} steps; MTBF {}; checkpoint {}; restart {:g} s; restore {}; train_hours is the expected "
        "wall time at the checkpoint interval that minimises it (Daly's closed form for exponential failures)",
        f->source, f->steps, fmt::join(mtbf, ", "),
        f->checkpoint_write_s ? fmt::format("written in {:g} s", *f->checkpoint_write_s)
                              : fmt::format("= model states at {:g} GB/s", f->storage_bandwidth->bytes_per_s / 1e9),
        f->restart_s, f->restore_s ? fmt::format("{:g} s", *f->restore_s) : std::string("= the write")));
  }
  return out;
}

ReportViews plan_report_views(const PlanReport& report) { return views_of(report, plan_table, plan_json, plan_csv); }

}  // namespace collsim
