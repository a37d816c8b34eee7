// Evaluates every combination of a capacity plan (candidate x world size x workload x
// strategy variant): step time, throughput, strong-scaling efficiency at fixed global
// batch, exposed communication, per-GPU memory and fit, cost, and the Pareto-best set on
// (step time, cost) per workload. Work runs as items on a WorkRunner with results in a fixed order.
// Times in ps, sizes in bytes, costs in the plan's currency.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/name_table.hpp"
#include "sim/core/work_pool.hpp"
#include "sim/plan/memory_model.hpp"
#include "sim/plan/plan.hpp"

namespace collsim {

enum class PlanStatus : std::uint8_t {
  Ok,            // simulated and fits in HBM
  DoesNotFit,    // simulated, but the per-GPU memory exceeds the GPU's HBM
  BatchInvalid,  // global batch does not split evenly into world x accumulate micro-batches
};
template <>
inline constexpr auto kEnumNames<PlanStatus> = names_in_order<PlanStatus>({"ok", "does not fit", "batch indivisible"});

struct PlanRow {
  std::size_t candidate = 0, workload = 0, variant = 0;  // indices into the plan
  int world = 0;
  PlanStatus status = PlanStatus::Ok;
  int micro_batch = 0;            // samples per GPU per micro-step (0 when BatchInvalid)
  Time step;                      // one optimizer step (all accumulation micro-steps); with
                                  // the plan's stragglers, the mean over its drawn steps
  Time nominal_step;              // the same with every GPU at nominal speed
  Time comm_total, exposed_comm;
  double samples_per_s = 0;       // global batch / step
  double exposed_percent = 0;     // exposed_comm / step x 100
  int efficiency_base = 0;        // world size the efficiency is measured against (0: none)
  double scaling_efficiency = 0;  // strong scaling: T(base) x base / (T(world) x world)
  MemoryEstimate memory;
  double cost_per_hour = 0;       // world x price per GPU-hour
  double cost_per_million = 0;    // cost of 1e6 samples at this step time
  // Strategy kind "megatron": the best layout found ("tp8 pp4 dp16 v2 mb1 full SP ZeRO-1"),
  // its MFU and tokens/s, and how many layouts the search evaluated.
  std::string layout;
  double mfu = 0, tokens_per_s = 0;
  std::size_t layouts_evaluated = 0;
  std::optional<PlanRun> run;     // with the plan's failures: the whole run
  bool pareto = false;            // not dominated within its workload on (step, cost_per_million),
                                  // or with failures on (expected wall time, cost of the run)
  // The run's expected cost: GPUs x price per GPU-hour x wall time (none: no run or no end).
  [[nodiscard]] std::optional<double> run_cost() const;
};

struct PlanResult {
  std::vector<PlanRow> rows;  // candidate, workload, variant, world size (each in plan order)
  std::size_t simulations = 0;
};

// The plan's work items: one per (candidate, world size) in plan order, keyed
// "candidate/world", each with its own topology, LinkGraph and collective-cost caches.
[[nodiscard]] std::vector<WorkItem> plan_work_items(const Plan& plan);

// Every item on `runner` (threads, or MPI ranks in collsim-mpi), journaled and resumed as
// `options` say. The result does not depend on the runner, its threads or ranks.
[[nodiscard]] PlanResult evaluate_plan(const Plan& plan, const WorkRunner& runner, const WorkOptions& options,
                                       WorkStats* stats = nullptr);
// The same on `jobs` threads of this process, without a journal.
[[nodiscard]] PlanResult evaluate_plan(const Plan& plan, int jobs);

// Marks the Pareto-best rows (Ok rows only) per workload, and fills scaling efficiency.
void finish_plan_rows(std::vector<PlanRow>& rows);

}  // namespace collsim
