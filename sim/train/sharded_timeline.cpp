#include "sim/train/sharded_timeline.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/train/sharded_program.hpp"

namespace collsim {

namespace {

void check_sharding(const Workload& w, const ShardingOptions& o, int world_size) {
  if (o.strategy == Sharding::Ddp) {
    throw ConfigError("", "sharding", "ddp", "a sharded strategy (DDP is simulated by simulate_ddp)");
  }
  if (world_size < 1) throw ConfigError("", "world_size", std::to_string(world_size), "a rank count >= 1");
  if (o.accumulate < 1) throw ConfigError("", "accumulate", std::to_string(o.accumulate), "a step count >= 1");
  if (o.all_gather_limit < 0) {
    throw ConfigError("", "all_gather_limit", std::to_string(o.all_gather_limit), "a count >= 0 (0: no limit)");
  }
  const StatePrecision& p = o.precision;
  if (p.param_bytes < 1 || p.grad_bytes < 1 || p.optimizer_bytes < 0) {
    throw ConfigError("", "precision", fmt::format("{}+{}+{}", p.param_bytes, p.grad_bytes, p.optimizer_bytes),
                      "parameter and gradient bytes >= 1, optimizer bytes >= 0");
  }
  if ((o.strategy == Sharding::Zero1 || o.strategy == Sharding::Zero2) && o.reduce_bucket_bytes.count < p.grad_bytes) {
    throw ConfigError("", "reduce_bucket_bytes", std::to_string(o.reduce_bucket_bytes.count),
                      fmt::format("at least one gradient element ({} B)", p.grad_bytes));
  }
  if (o.unit_policy == UnitPolicy::MinParams && o.min_unit_params < 1) {
    throw ConfigError("", "min_unit_params", std::to_string(o.min_unit_params), "a parameter count >= 1");
  }
  if (o.strategy == Sharding::FsdpHybridShard && (o.ranks_per_node < 1 || world_size % o.ranks_per_node != 0)) {
    throw ConfigError("", "ranks_per_node", std::to_string(o.ranks_per_node),
                      fmt::format("a divisor of the world size {} (HYBRID_SHARD's shard group)", world_size));
  }
  if (o.offload_optimizer) {
    const std::string s(to_string(o.strategy));
    if (o.strategy != Sharding::Zero1 && o.strategy != Sharding::Zero2 && o.strategy != Sharding::Zero3) {
      throw ConfigError("", "offload_optimizer", s, "zero1, zero2 or zero3 (DeepSpeed's offload_optimizer; FSDP's CPU offload also moves the parameters, which collsim does not model)");
    }
    if (o.host_link.bandwidth.bytes_per_s <= 0) {
      throw ConfigError("", "offload_optimizer", s, "a topology with a GPU-to-host (PCIe) path to offload over");
    }
    if (o.host_link.memory.bytes_per_s <= 0) {
      throw ConfigError("", "offload_optimizer", s,
                        "a topology whose cpu nodes give memory_bandwidth (the offloaded optimizer runs at the host's DRAM rate)");
    }
    if (w.optimizer.time || w.optimizer.memory_bytes_per_param <= 0) {
      throw ConfigError("", "offload_optimizer", s,
                        fmt::format("a workload whose optimizer gives memory_bytes_per_param, the bytes the CPU moves per "
                                    "parameter ({} gives {})",
                                    w.name, w.optimizer.time ? "a measured GPU time" : "none"));
    }
  }
  if (w.parameter_count() == 0) {
    throw ConfigError("", "sharding", std::string(to_string(o.strategy)), fmt::format("a workload with parameters ({} has none)", w.name));
  }
}

// Largest sum of unsharded bytes alive at one instant (a free at t happens before an
// allocation at t: the caching allocator reuses the block).
Bytes peak_residency(const ShardedProgram& sp, const StreamTimeline& tl) {
  std::map<Time, std::int64_t> frees, allocs;
  for (const Residency& r : sp.residency) {
    allocs[tl.comm[r.gather].start] += r.bytes.count;
    frees[r.freed_by ? tl.compute[*r.freed_by].end : tl.end] += r.bytes.count;
  }
  std::map<Time, std::pair<std::int64_t, std::int64_t>> events;  // time -> (freed, allocated)
  for (const auto& [t, b] : frees) events[t].first += b;
  for (const auto& [t, b] : allocs) events[t].second += b;
  std::int64_t live = 0, peak = 0;
  for (const auto& [t, e] : events) {
    live -= e.first;
    live += e.second;
    peak = std::max(peak, live);
  }
  return Bytes{peak};
}

}  // namespace

ShardedResult simulate_sharded(const Workload& w, const ComputeModel& cm, const GroupCostFn& cost,
                               const ShardingOptions& o, int world_size) {
  check_sharding(w, o, world_size);
  ShardedResult r;
  const bool zero12 = o.strategy == Sharding::Zero1 || o.strategy == Sharding::Zero2;
  if (!zero12) {
    r.units = make_units(w, o);
    if (r.units.empty()) {
      throw ConfigError("", "sharding", std::string(to_string(o.strategy)), "a unit policy that yields at least one unit");
    }
  }
  ShardedProgram sp = build_sharded_program(w, cm, cost, o, world_size, r.units);
  assign_launch_costs(sp.program, o.host);
  StreamOptions so;
  so.comm_concurrency = 1;  // one NCCL stream: collectives run in issue order
  r.timeline = play_streams(sp.program, so);
  r.host_launch = r.timeline.host.total;
  r.program = std::move(sp.program);

  for (std::size_t u = 0; u < r.units.size(); ++u) {
    const UnitComms& c = sp.units[u];
    UnitTiming ut;
    ut.unit = u;
    if (c.forward_gather) {
      ut.forward_gather_start = r.timeline.comm[*c.forward_gather].start;
      ut.forward_gather_end = r.timeline.comm[*c.forward_gather].end;
    }
    if (c.backward_gather) {
      ut.backward_gather_start = r.timeline.comm[*c.backward_gather].start;
      ut.backward_gather_end = r.timeline.comm[*c.backward_gather].end;
    }
    if (c.reduce) {
      ut.reduce_start = r.timeline.comm[*c.reduce].start;
      ut.reduce_end = r.timeline.comm[*c.reduce_last].end;
    }
    r.unit_timings.push_back(ut);
  }
  for (const BucketComms& b : sp.buckets) {
    GradientBucket gb;
    gb.params = b.params;
    gb.numel = b.numel;
    const auto& after = r.program.comm[b.reduce].after_compute;
    gb.ready = after.empty() ? Time{} : r.timeline.compute[after.front()].end;
    gb.reduce_start = r.timeline.comm[b.reduce].start;
    gb.reduce_end = r.timeline.comm[b.reduce].end;
    r.buckets.push_back(std::move(gb));
  }

  const StreamTotals totals = stream_totals(r.program, r.timeline);
  r.forward = totals.compute("forward");
  r.backward = totals.compute("backward");
  r.optimizer = totals.compute("optimizer");
  r.comm_total = totals.comm_total;
  for (std::size_t i = 0; i < r.program.comm.size(); ++i) {
    if (r.program.comm[i].category == "offload") r.offload_copies += r.timeline.comm[i].end - r.timeline.comm[i].start;
  }
  r.comm_busy = totals.comm_busy;
  r.iteration = totals.end;
  r.exposed_comm = totals.exposed_comm;
  r.host_wait = totals.host_wait;
  r.overlap_percent = totals.overlap_percent;
  r.gathered_elements = sp.gathered_elements;
  r.reduced_elements = sp.reduced_elements;
  r.peak_unsharded = zero12 ? Bytes{} : peak_residency(sp, r.timeline);
  return r;
}

}  // namespace collsim
