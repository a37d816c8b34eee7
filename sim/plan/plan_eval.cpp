#include "sim/plan/plan_eval.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "sim/coll/affine_collective_cost.hpp"
#include "sim/coll/group_collective_cost.hpp"
#include "sim/core/error.hpp"
#include "sim/core/name_table.hpp"
#include "sim/plan/plan_batch.hpp"
#include "sim/plan/plan_fields.hpp"
#include "sim/plan/plan_row_json.hpp"
#include "sim/topo/link_graph.hpp"
#include "sim/train/bucket_assignment.hpp"
#include "sim/train/compute_model.hpp"
#include "sim/train/ddp_timeline.hpp"
#include "sim/train/device_catalogue.hpp"
#include "sim/train/host_link.hpp"
#include "sim/train/interference.hpp"
#include "sim/train/llm_model.hpp"
#include "sim/train/llm_search.hpp"
#include "sim/train/sharded_timeline.hpp"
#include "sim/train/stragglers.hpp"

namespace collsim {

namespace {

constexpr double kPsPerS = 1e12;
constexpr double kPsPerHour = 3600 * kPsPerS;

// Unsharded parameter bytes of the largest FSDP/ZeRO-3 unit under `o`'s wrapping policy.
Bytes largest_unit_bytes(const Workload& w, const ShardingOptions& o) {
  std::int64_t largest = 0;
  for (const auto& u : make_units(w, o)) largest = std::max(largest, u.numel);
  return Bytes{largest * o.precision.param_bytes};
}

// A row's rates from its step: samples/s, exposed share, cost per million samples.
void set_rates(PlanRow& row, std::int64_t global) {
  const double step_ps = static_cast<double>(row.step.ps);
  row.samples_per_s = step_ps > 0 ? static_cast<double>(global) * kPsPerS / step_ps : 0;
  row.exposed_percent = step_ps > 0 ? 100.0 * static_cast<double>(row.exposed_comm.ps) / step_ps : 0;
  row.cost_per_million = row.cost_per_hour * (step_ps / kPsPerHour) / static_cast<double>(global) * 1e6;
}

// A megatron strategy's row: the layouts of `space` searched at the row's world size, the
// best one's step (the fastest that fits, else the one needing least memory: DoesNotFit).
// BatchInvalid when no layout can take the global batch.
void megatron_row(PlanRow& row, const LlmModel& base, LlmSearchSpace space, const DeviceSpec& device,
                  GroupCollectiveCost& cost, LinkGraph& graph, int node_ranks, std::int64_t global) {
  const LlmModel model = with_device_efficiency(base, device);
  space.gpus = row.world;
  space.gpus_per_host = node_ranks;
  space.global_batch = global;
  const GroupsCostFn fn = [&cost](CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups) {
    return cost.time_groups(op, bytes, groups);
  };
  const LlmSearchResult found = search_llm_layouts(model, space, device, fn, host_link_of(graph, 0));
  row.layouts_evaluated = found.evaluated;
  if (found.candidates.empty()) {
    row.status = PlanStatus::BatchInvalid;
    return;
  }
  const LlmCandidate& best = found.candidates.front();
  const LlmTraining& t = best.training;
  const LlmStep& st = best.step;
  row.layout = fmt::format("{} mb{} {}{}{}", t.layout.label(), t.micro_batch, to_string(t.recompute),
                           t.sequence_parallel ? " SP" : "", t.distributed_optimizer ? " ZeRO-1" : "") +
               (t.offload_optimizer ? " offload" : "");
  row.micro_batch = static_cast<int>(t.micro_batch);
  row.step = st.step;
  row.nominal_step = st.step;
  row.mfu = st.mfu;
  row.tokens_per_s = st.tokens_per_s;
  // Communication of the fullest stage: its TP and EP collectives over all micro-batches,
  // its gradient reduction and the parameter gather; exposed: what the step waits for past
  // the pipeline (the reduction's tail, the gather) and the TP/EP inside it.
  const LlmStageCost* fullest = &st.stages.front();
  for (const auto& sc : st.stages) {
    if (sc.memory.total() > fullest->memory.total()) fullest = &sc;
  }
  const Time inside = (fullest->tp_forward + fullest->tp_backward + fullest->ep_forward + fullest->ep_backward) * st.micro_batches;
  row.comm_total = inside + fullest->dp_reduce + st.param_gather;
  row.exposed_comm = inside + fullest->dp_exposed + st.param_gather;
  const LlmMemory& m = fullest->memory;
  row.memory.parameters = m.weights;
  row.memory.gradients = m.gradients;
  row.memory.optimizer = m.optimizer;
  row.memory.activations = m.activations + m.logits;
  row.memory.total = st.memory_peak;
  row.memory.capacity = device.hbm_capacity;
  row.memory.fits = st.fits;
  row.memory.margin_bytes = device.hbm_capacity.count - st.memory_peak.count;
  row.status = st.fits ? PlanStatus::Ok : PlanStatus::DoesNotFit;
  set_rates(row, global);
}

// The workload with its floating-point parameters in `grad_bytes`-byte elements (2: bfloat16,
// 4: float32); unchanged for 0 or when they already are.
Workload in_precision(Workload w, std::int64_t grad_bytes) {
  if (grad_bytes != 2 && grad_bytes != 4) return w;
  const DType to = grad_bytes == 2 ? DType::BFloat16 : DType::Float32;
  for (Parameter& p : w.parameters) {
    const bool floating = p.dtype == DType::Float32 || p.dtype == DType::Float16 || p.dtype == DType::BFloat16;
    if (floating) p.dtype = to;
  }
  return w;
}

struct Loaded {
  Workload workload;                                 // when a DDP/ZeRO/FSDP strategy runs it
  std::optional<LlmModel> llm;                       // when a megatron strategy runs it
  std::vector<const PlanStrategyVariant*> variants;  // the workload's strategies expanded
  std::vector<std::size_t> variant_index;            // into plan.variants
  Bytes largest_bucket{0};                           // over its DDP variants
};

// Everything that one (candidate, world size) evaluates: its own topology, graph and caches.
std::vector<PlanRow> evaluate_group(const Plan& plan, const std::vector<Loaded>& loaded, std::size_t ci, int world,
                                    std::size_t& simulations) {
  const PlanCandidate& c = plan.candidates[ci];
  const Topology topo = plan_topology(c, world);
  LinkGraph graph(topo);
  const DeviceSpec device = *find_device(c.gpu_model);
  const double hourly = c.price.hourly();
  // The network gear's share per hour, counted on this world size's topology.
  const double network_hourly = c.network_price ? c.network_price->hourly(NetworkPrice::count(topo)) : 0.0;
  // Node = one host of the cluster generator, else as the topology groups its ranks.
  const int node_ranks = c.gpus_per_host > 0 ? c.gpus_per_host : ranks_per_node(topo);
  // Plans price NCCL jobs: "auto" is NCCL's choice on GPU ranks (resolve_comm_spec).
  const CommSpec requested{c.algorithm, c.protocol, calibrated_protocol_model(c.calibration, c.nccl_env)};
  const CommSpec comm = resolve_comm_spec(requested, topo, true);
  std::optional<GroupCollectiveCost> sharded;  // built on first use
  std::optional<GroupCollectiveCost> llm_cost;  // megatron layouts' groups (job ranks as listed)
  // One all-reduce fit for every DDP workload: it spans up to the largest bucket of any.
  std::optional<AffineCollectiveCost> ddp_cost;
  Bytes largest_bucket{0};
  for (const auto& l : loaded) largest_bucket = std::max(largest_bucket, l.largest_bucket);
  // Slow GPUs at this world size (none without the plan's "stragglers").
  const StragglerSpec stragglers = plan.stragglers ? straggler_spec(*plan.stragglers, world) : StragglerSpec{};
  std::vector<PlanRow> rows;
  for (std::size_t wi = 0; wi < loaded.size(); ++wi) {
    const Loaded& l = loaded[wi];
    const std::int64_t global = plan.workloads[wi].global_batch;
    std::map<std::pair<int, std::int64_t>, Workload> scaled;  // per micro-batch and DDP gradient bytes
    std::size_t strategy = 0;        // of the variant being simulated, for errors
    // Inputs in range can still multiply past the clock (hour-long layers times a huge
    // micro-batch): name the workload's batch rather than stop with no place to look.
    try {
      for (std::size_t k = 0; k < l.variants.size(); ++k) {
        const PlanStrategyVariant& v = *l.variants[k];
        strategy = v.strategy_index;
        PlanRow row;
        row.candidate = ci;
        row.workload = wi;
        row.variant = l.variant_index[k];
        row.world = world;
        row.cost_per_hour = hourly * world + network_hourly;
        if (v.megatron) {
          if (!llm_cost) llm_cost.emplace(graph, comm, 1);
          megatron_row(row, *l.llm, *v.megatron, device, *llm_cost, graph, node_ranks, global);
          simulations += row.layouts_evaluated;
          if (plan.failures && row.status != PlanStatus::BatchInvalid) {
            row.run = plan_run(*plan.failures, static_cast<double>(row.step.ps) / kPsPerS, world, node_ranks,
                               l.llm->shape.parameters(), 16);
          }
          rows.push_back(row);
          continue;
        }
        const auto micro = micro_batch(global, world, v.sharding.accumulate);
        if (!micro) {
          row.status = PlanStatus::BatchInvalid;
          rows.push_back(row);
          continue;
        }
        row.micro_batch = *micro;
        // Gradients travel in the strategy's precision: DDP's buckets hold grad_bytes per
        // element (16-bit under adam_mixed, as ZeRO and FSDP reduce them), whatever the
        // workload file's parameter dtypes.
        const std::int64_t grad_bytes = v.sharding.strategy == Sharding::Ddp ? v.sharding.precision.grad_bytes : 0;
        auto it = scaled.find({*micro, grad_bytes});
        if (it == scaled.end()) {
          it = scaled.emplace(std::make_pair(*micro, grad_bytes), in_precision(with_micro_batch(l.workload, *micro), grad_bytes)).first;
        }
        const Workload& w = it->second;
        const ComputeModel cm = make_compute_model(w, device);
        MemoryInputs mi;
        mi.parameters = w.parameter_count();
        mi.world_size = world;
        mi.sharding = v.sharding;
        mi.sharding.ranks_per_node = node_ranks;
        mi.capacity = device.hbm_capacity;
        mi.activations = activation_bytes(w, *micro, v.sharding.activation_checkpointing);
        if (v.sharding.strategy == Sharding::Ddp) {
          if (!ddp_cost) ddp_cost.emplace(graph, comm, largest_bucket);
          DdpOptions o;
          o.buckets.bucket_cap = v.bucket_cap;
          o.gradient_as_bucket_view = v.gradient_as_bucket_view;
          o.accumulate = v.sharding.accumulate;
          o.world_size = world;
          o.host = default_host_costs(device, comm.model.launch_overhead);
          // A fitted DDP slowdown replaces the interference model, as in `ddp --calibration`.
          if (c.calibration && c.calibration->ddp) {
            o.compute_slowdown = c.calibration->ddp->comm_slowdown;
          } else {
            o.comm_interference = slowdown_from(*ddp_cost, device);
          }
          const CollectiveCostFn cost = [&](CollectiveOp op, Bytes b) { return ddp_cost->time(op, b); };
          const DdpResult r = simulate_ddp(w, cm, cost, o);
          row.step = r.iteration;
          row.nominal_step = r.iteration;
          row.comm_total = r.comm_total;
          row.exposed_comm = r.exposed_comm;
          if (stragglers.active()) row.step = simulate_stragglers(w, cm, cost, o, world, stragglers).mean;
          mi.ddp_bucket_cap = o.buckets.bucket_cap;
          mi.gradient_as_bucket_view = v.gradient_as_bucket_view;
        } else {
          if (!sharded) sharded.emplace(graph, comm, node_ranks);
          mi.sharding.host = default_host_costs(device, comm.model.launch_overhead);
          // An offloaded optimizer runs at the candidate's PCIe and DRAM shares (simulate_sharded
          // refuses a topology that gives neither).
          if (mi.sharding.offload_optimizer) mi.sharding.host_link = host_link_of(graph, 0).value_or(HostLink{});
          const ShardingOptions& o = mi.sharding;
          const ShardedResult r = simulate_sharded(w, cm, sharded->function(), o, world);
          row.step = r.iteration;
          row.nominal_step = r.iteration;
          row.comm_total = r.comm_total;
          row.exposed_comm = r.exposed_comm;
          if (stragglers.active()) row.step = simulate_sharded_stragglers(w, cm, sharded->function(), o, world, stragglers).mean;
          const bool units = o.strategy != Sharding::Zero1 && o.strategy != Sharding::Zero2;
          if (units) mi.largest_unit = largest_unit_bytes(w, o);
        }
        ++simulations;
        row.memory = estimate_memory(mi);
        row.status = row.memory.fits ? PlanStatus::Ok : PlanStatus::DoesNotFit;
        if (plan.failures) {
          const StatePrecision& pr = v.sharding.precision;
          row.run = plan_run(*plan.failures, static_cast<double>(row.step.ps) / kPsPerS, world, node_ranks,
                             w.parameter_count(), pr.param_bytes + pr.optimizer_bytes);
        }
        set_rates(row, global);
        rows.push_back(row);
      }
    } catch (const ConfigError& e) {
      // The simulators name an options field; the plan's reader wants the key that set it.
      throw in_plan(e, plan.source, ci, strategy);
    } catch (const OverflowError& e) {
      throw ConfigError(plan.source, fmt::format("/workloads/{}/global_batch", wi), std::to_string(global),
                        fmt::format("a global batch whose step on {} with {} GPUs stays inside the clock's range "
                                    "(it leads to {})", c.name, world, e.what()));
    }
  }
  return rows;
}

std::vector<Loaded> load_workloads(const Plan& plan) {
  std::vector<Loaded> out;
  for (const auto& pw : plan.workloads) {
    Loaded l;
    if (pw.listed) l.workload = load_workload_file(pw.path);
    if (pw.megatron) l.llm = load_llm_model(pw.path);
    for (const auto& name : pw.strategies) {
      for (std::size_t i = 0; i < plan.variants.size(); ++i) {
        const auto& v = plan.variants[i];
        if (v.strategy != name) continue;
        l.variants.push_back(&v);
        l.variant_index.push_back(i);
        if (!v.megatron && v.sharding.strategy == Sharding::Ddp) {
          BucketOptions bo;
          bo.bucket_cap = v.bucket_cap;
          for (const auto& b : rebuilt_buckets(l.workload, l.workload.grad_ready_order(), bo).buckets) {
            l.largest_bucket = std::max(l.largest_bucket, b.bytes);
          }
        }
      }
    }
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

std::optional<double> PlanRow::run_cost() const {
  if (!run || !run->wall_s) return std::nullopt;
  return cost_per_hour * *run->wall_s / 3600;
}

void finish_plan_rows(std::vector<PlanRow>& rows) {
  // Strong scaling at fixed global batch: the same candidate, workload and variant at its
  // smallest simulated world size is the base; perfect scaling keeps T x N constant.
  for (auto& r : rows) {
    r.efficiency_base = 0;
    r.scaling_efficiency = 0;
    r.pareto = false;
    if (r.status == PlanStatus::BatchInvalid) continue;
    for (const auto& b : rows) {
      if (b.candidate != r.candidate || b.workload != r.workload || b.variant != r.variant) continue;
      if (b.status == PlanStatus::BatchInvalid) continue;
      if (r.efficiency_base == 0 || b.world < r.efficiency_base) {
        r.efficiency_base = b.world;
        r.scaling_efficiency = static_cast<double>(b.step.ps) * b.world / (static_cast<double>(r.step.ps) * r.world);
      }
    }
  }
  for (auto& r : rows) {
    if (r.status != PlanStatus::Ok) continue;
    const bool dominated = std::any_of(rows.begin(), rows.end(), [&](const PlanRow& o) {
      if (&o == &r || o.status != PlanStatus::Ok || o.workload != r.workload) return false;
      if (r.run) {
        // With failures: the expected time and cost of the whole run; a run that never
        // ends is dominated by any that does.
        if (!r.run->wall_s) return o.run && o.run->wall_s;
        if (!o.run || !o.run->wall_s) return false;
        const double ow = *o.run->wall_s, rw = *r.run->wall_s, oc = *o.run_cost(), rc = *r.run_cost();
        return ow <= rw && oc <= rc && (ow < rw || oc < rc);
      }
      const bool no_worse = o.step <= r.step && o.cost_per_million <= r.cost_per_million;
      const bool better = o.step < r.step || o.cost_per_million < r.cost_per_million;
      return no_worse && better;
    });
    r.pareto = !dominated && (!r.run || r.run->wall_s);
  }
}

std::vector<std::pair<std::size_t, int>> plan_groups(const Plan& plan) {
  std::vector<std::pair<std::size_t, int>> groups;  // (candidate, world), plan order
  for (std::size_t ci = 0; ci < plan.candidates.size(); ++ci) {
    for (int n : plan.candidates[ci].world_sizes) groups.emplace_back(ci, n);
  }
  return groups;
}

std::vector<WorkItem> plan_work_items(const Plan& plan) {
  std::vector<WorkItem> items;
  // Larger world sizes take longer: they start first, so the runners' tails stay short.
  for (const auto& [ci, world] : plan_groups(plan)) {
    items.push_back(WorkItem{fmt::format("{}/{}", plan.candidates[ci].name, world), static_cast<double>(world)});
  }
  return items;
}

PlanResult evaluate_plan(const Plan& plan, const WorkRunner& runner, const WorkOptions& options, WorkStats* stats) {
  const std::vector<Loaded> loaded = load_workloads(plan);
  const auto groups = plan_groups(plan);
  const WorkFn item = [&](std::size_t g) {
    std::size_t simulations = 0;
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : evaluate_group(plan, loaded, groups[g].first, groups[g].second, simulations)) {
      rows.push_back(plan_row_to_json(r));
    }
    return nlohmann::json{{"rows", std::move(rows)}, {"simulations", simulations}};
  };
  const std::vector<nlohmann::json> out = runner.run(plan_work_items(plan), item, options, stats);
  PlanResult result;
  std::vector<PlanRow> rows;
  for (const auto& o : out) {
    for (const auto& r : o.at("rows")) rows.push_back(plan_row_from_json(r));
    result.simulations += o.at("simulations").get<std::size_t>();
  }
  // Reorder: candidate, workload, variant (in the workload's order), world size (items are
  // in plan order, so a stable sort keeps the world sizes ascending).
  auto rank = [&](const PlanRow& r) {
    const auto& vs = loaded[r.workload].variant_index;
    const auto v = static_cast<std::size_t>(std::find(vs.begin(), vs.end(), r.variant) - vs.begin());
    return std::tuple{r.candidate, r.workload, v};
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const PlanRow& a, const PlanRow& b) { return rank(a) < rank(b); });
  result.rows = std::move(rows);
  finish_plan_rows(result.rows);
  return result;
}

PlanResult evaluate_plan(const Plan& plan, int jobs) {
  WorkOptions options;
  options.jobs = jobs;
  return evaluate_plan(plan, ThreadRunner{}, options);
}

}  // namespace collsim
