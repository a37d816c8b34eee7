// The one-page markdown report of a capacity plan: candidates and prices, the Pareto set,
// recommendations per workload, the full table, plots and the assumptions behind it.
#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/report/plan_report.hpp"

namespace collsim {

namespace {

std::string md_row(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const auto& c : cells) s += " " + (c.empty() ? std::string(" ") : c) + " |";
  return s + "\n";
}

std::string describe_row(const PlanReport& rep, const PlanRow& r) {
  const Plan& p = *rep.plan;
  const std::string run = r.run && r.run->wall_s ? fmt::format("; with failures the run takes {:.1f} h at {:.1f} % goodput "
                                                               "and costs {:.0f} {}",
                                                               *r.run->wall_s / 3600, 100 * r.run->goodput, *r.run_cost(),
                                                               p.currency)
                                                 : "";
  return fmt::format("**{}** with {} on {} GPUs ({:.3f} ms/step, {:.1f} samples/s, {:.2f} {} per million samples{})",
                     p.candidates[r.candidate].name, p.variants[r.variant].label, r.world,
                     static_cast<double>(r.step.ps) / Time::kPerMs, r.samples_per_s, r.cost_per_million, p.currency, run);
}

// What "fast" and "cheap" mean: per step, or with the plan's failures over the whole run
// (a run that never ends is neither).
double time_key(const PlanRow& r) {
  if (!r.run) return static_cast<double>(r.step.ps);
  return r.run->wall_s ? *r.run->wall_s : std::numeric_limits<double>::infinity();
}
double cost_key(const PlanRow& r) {
  if (!r.run) return r.cost_per_million;
  return r.run_cost().value_or(std::numeric_limits<double>::infinity());
}

void recommendations(std::ostream& out, const PlanReport& rep) {
  const Plan& p = *rep.plan;
  const auto& rows = rep.result.rows;
  for (std::size_t wi = 0; wi < p.workloads.size(); ++wi) {
    fmt::print(out, "- {} (global batch {}):\n", rep.workload_names[wi], p.workloads[wi].global_batch);
    const PlanRow* fastest = nullptr;
    const PlanRow* cheapest = nullptr;
    for (const auto& r : rows) {
      if (r.workload != wi || r.status != PlanStatus::Ok) continue;
      if (!fastest || time_key(r) < time_key(*fastest)) fastest = &r;
      if (!cheapest || cost_key(r) < cost_key(*cheapest)) cheapest = &r;
    }
    if (!fastest) {
      fmt::print(out, "  - no combination fits in GPU memory: add a sharded strategy, activation checkpointing or more GPUs\n");
      continue;
    }
    fmt::print(out, "  - fastest: {}\n", describe_row(rep, *fastest));
    fmt::print(out, "  - cheapest: {}\n", describe_row(rep, *cheapest));
    // The fastest Pareto point whose cost is within 10 % of the cheapest.
    const PlanRow* balanced = nullptr;
    for (const auto& r : rows) {
      if (r.workload != wi || !r.pareto || cost_key(r) > 1.10 * cost_key(*cheapest)) continue;
      if (!balanced || time_key(r) < time_key(*balanced)) balanced = &r;
    }
    if (balanced && balanced != cheapest) fmt::print(out, "  - fastest within 10 % of the cheapest cost: {}\n", describe_row(rep, *balanced));
    std::map<std::string, int> unfit;  // strategy label -> combinations that do not fit
    for (const auto& r : rows) {
      if (r.workload == wi && r.status == PlanStatus::DoesNotFit) ++unfit[p.variants[r.variant].label];
    }
    for (const auto& [label, n] : unfit) fmt::print(out, "  - {}: does not fit in {} combination(s) (see margin_gib)\n", label, n);
  }
}

}  // namespace

void write_plan_markdown(std::ostream& out, const PlanReport& rep, const std::vector<std::string>& plots,
                         const std::string& plot_note) {
  const Plan& p = *rep.plan;
  fmt::print(out, "# Capacity plan: {}\n\n", p.name);
  if (!p.description.empty()) fmt::print(out, "{}\n\n", p.description);
  fmt::print(out, "Source: `{}`. {} combinations, {} simulated. Costs in {}.\n\n", p.source, rep.result.rows.size(),
             rep.result.simulations, p.currency);
  fmt::print(out, "## Candidates\n\n");
  out << md_row({"candidate", "GPU", "GPUs/host", "algorithm", "price per GPU-hour", "world sizes"});
  out << md_row({"---", "---", "---:", "---", "---", "---"});
  for (const auto& c : p.candidates) {
    std::string sizes;
    for (int n : c.world_sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(n);
    out << md_row({c.name, c.gpu_model, c.gpus_per_host ? std::to_string(c.gpus_per_host) : "-", c.algorithm + "/" + c.protocol + (c.nccl_env_text.empty() ? "" : " (" + c.nccl_env_text + ")") +
                       (c.calibration ? ", calibrated by `" + c.calibration_path + "`" : ""),
                   c.price.describe() + (c.network_price ? "; plus " + c.network_price->describe() : std::string()), sizes});
  }
  fmt::print(out, "\n## Pareto-best ({}), per workload\n\n",
             p.failures ? "expected time and cost of the run with failures" : "step time, cost per million samples");
  const auto cols = plan_columns(rep);
  out << md_row(cols);
  out << md_row(std::vector<std::string>(cols.size(), "---"));
  // Per workload, fastest first (rows keep plan order on ties).
  std::vector<const PlanRow*> pareto;
  for (const auto& r : rep.result.rows) {
    if (r.pareto) pareto.push_back(&r);
  }
  std::stable_sort(pareto.begin(), pareto.end(), [](const PlanRow* a, const PlanRow* b) {
    return a->workload != b->workload ? a->workload < b->workload : time_key(*a) < time_key(*b);
  });
  for (const PlanRow* r : pareto) out << md_row(plan_row_cells(rep, *r));
  fmt::print(out, "\n## Recommendations\n\n");
  recommendations(out, rep);
  fmt::print(out, "\n## Plots\n\n");
  if (plots.empty()) fmt::print(out, "{}\n", plot_note);
  for (const auto& png : plots) fmt::print(out, "![{}]({})\n\n", png, png);
  fmt::print(out, "\n## All combinations\n\n");
  out << md_row(cols);
  out << md_row(std::vector<std::string>(cols.size(), "---"));
  for (const auto& r : rep.result.rows) out << md_row(plan_row_cells(rep, r));
  fmt::print(out, "\n## Assumptions\n\n");
  fmt::print(out,
             "- Step time: one optimizer step (all gradient-accumulation micro-steps) simulated by collsim's DDP or "
             "sharded (ZeRO/FSDP) timeline; collectives predicted on the candidate's topology with its algorithm "
             "(DDP all-reduces from an affine fit of three plays per world size, checked at a third size).\n"
             "- Per-GPU micro-batch = global batch / (GPUs x accumulation steps); the workload's compute, given for its "
             "own batch_per_gpu, is scaled linearly to the micro-batch (small micro-batches reach lower GPU efficiency "
             "in practice, so small-batch rows are optimistic). Rows whose global batch does not divide are listed as "
             "\"batch indivisible\".\n"
             "- Scaling efficiency is strong scaling at fixed global batch: T(base) x base / (T x GPUs), base = the "
             "smallest world size of the same candidate, workload and strategy.\n"
             "- Memory: parameters, gradients and optimizer state per the ZeRO paper's formulas for the strategy and "
             "precision, DDP buckets or FSDP units unsharded at the peak, activations of the micro-batch; capacity = the "
             "GPU's HBM from the device catalogue. Allocator fragmentation, CUDA context and NCCL buffers are not "
             "counted (keep a few GiB of margin).\n");
  for (std::size_t wi = 0; wi < p.workloads.size(); ++wi) {
    if (wi < rep.activations_known.size() && !rep.activations_known[wi]) {
      fmt::print(out, "- {}: its workload file gives no per-layer activation bytes, so activations count as 0 "
                      "and its memory is a lower bound.\n", rep.workload_names[wi]);
    }
  }
  fmt::print(out,
             "- Cost per million samples = cost per hour x step time / global batch x 1e6; cost per hour = "
             "GPUs x price per GPU-hour, plus the network gear's share where a candidate prices it (NICs, switches and "
             "cables counted on the topology at that size, spread over their years). Pareto-best: no other fitting combination of the same workload is at least as "
             "fast and at least as cheap, and better in one.\n"
             "- Sharded strategies: all-gathers and reduce-scatters over all GPUs, every node's GPUs or one GPU per "
             "node (HYBRID_SHARD), the concurrent groups played together so that they share NICs and fabric links.\n");
  for (const auto& line : plan_assumption_lines(p)) fmt::print(out, "- {}.\n", line);
  if (p.failures) {
    fmt::print(out, "- With failures the Pareto-best set and the recommendations rank on the run's expected wall time "
                    "and cost (GPUs x price per GPU-hour x expected wall time), not on one step.\n");
  }
}

}  // namespace collsim
