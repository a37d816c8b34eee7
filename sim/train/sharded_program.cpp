#include "sim/train/sharded_program.hpp"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

namespace collsim {

namespace {

std::int64_t round_up_numel(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

bool fsdp_family(Sharding s) {
  return s == Sharding::Zero3 || s == Sharding::FsdpFullShard || s == Sharding::FsdpShardGradOp ||
         s == Sharding::FsdpHybridShard;
}

// Issue model: the CPU runs ahead of the GPU, so every collective is enqueued on the one
// communication stream in program order at once, and each starts when the collectives
// before it have finished and the GPU events it waits on (`after_compute`) have happened.
class ShardedBuilder {
 public:
  ShardedBuilder(const Workload& w, const ComputeModel& cm, const GroupCostFn& cost, const ShardingOptions& o, int world,
          const std::vector<ShardUnit>& units)
      : w_(w), cm_(cm), cost_(cost), o_(o), units_(units) {
    hybrid_ = o.strategy == Sharding::FsdpHybridShard;
    shard_ = hybrid_ ? o.ranks_per_node : world;
    group_ = hybrid_ ? CommGroup::IntraNode : CommGroup::World;
    out_.units.resize(units.size());
    // Layer -> unit: every non-root unit owns its range, the root every other layer.
    unit_of_.assign(w.layers.size(), std::nullopt);
    std::optional<std::size_t> root;
    for (std::size_t u = 0; u < units.size(); ++u) {
      if (units[u].root) {
        root = u;
        continue;
      }
      for (std::size_t l = units[u].first_layer; l <= units[u].last_layer; ++l) unit_of_[l] = u;
    }
    for (auto& u : unit_of_) {
      if (!u) u = root;
    }
    root_ = root;
  }

  ShardedProgram build() {
    for (int m = 0; m < o_.accumulate; ++m) {
      step_ = o_.accumulate > 1 ? fmt::format("[{}] ", m) : "";
      last_ = m == o_.accumulate - 1;
      if (fsdp_family(o_.strategy)) {
        fsdp_micro_step();
      } else {
        zero12_micro_step();
      }
    }
    return std::move(out_);
  }

 private:
  // --- program primitives -----------------------------------------------------------
  std::size_t compute(std::string name, std::string category, Time work, std::vector<std::size_t> wait = {}) {
    out_.program.compute.push_back(ComputeTask{std::move(name), std::move(category), work, std::move(wait), {}, Time{}});
    return out_.program.compute.size() - 1;
  }

  std::optional<std::size_t> last_compute() const {
    if (out_.program.compute.empty()) return std::nullopt;
    return out_.program.compute.size() - 1;
  }

  std::size_t comm(std::string name, std::string category, CollectiveOp op, Bytes bytes, CommGroup group,
                   std::vector<std::size_t> after_compute) {
    return queue(std::move(name), std::move(category), cost_(op, bytes, group), bytes, std::move(after_compute));
  }

  // A task of the communication stream, in issue order.
  std::size_t queue(std::string name, std::string category, Time work, Bytes bytes, std::vector<std::size_t> after_compute) {
    CommTask t;
    t.name = std::move(name);
    t.category = std::move(category);
    t.work = work;
    t.bytes = bytes;
    t.issued_at_start = true;
    t.after_compute = std::move(after_compute);
    out_.program.comm.push_back(std::move(t));
    return out_.program.comm.size() - 1;
  }

  // ZeRO-Offload: a host copy over the rank's PCIe share, on the communication stream
  // (DeepSpeed copies the reduced gradients from its reduction stream).
  std::size_t host_copy(std::string name, std::int64_t bytes, std::vector<std::size_t> after_compute = {}) {
    const Time work = Time::from_seconds(static_cast<double>(bytes) / o_.host_link.bandwidth.bytes_per_s);
    return queue(std::move(name), "offload", work, Bytes{bytes}, std::move(after_compute));
  }

  // After a gradient reduction of `numel` elements: this rank's shard to host memory.
  void offload_gradients(const std::string& what, std::int64_t numel) {
    if (!o_.offload_optimizer) return;
    reduces_.push_back(host_copy(fmt::format("{}gradients to host {}", step_, what), numel / shard_ * o_.precision.grad_bytes));
  }

  // An all-gather under FSDP's rate limiter (_FreeEventQueue): with `limit` free events
  // pending, the CPU waits for the oldest before issuing, so the gather cannot start
  // before that unit has been freed.
  std::size_t gather(const std::string& what, std::size_t u, std::vector<std::size_t> after) {
    if (o_.all_gather_limit > 0 && static_cast<int>(frees_.size()) >= o_.all_gather_limit) {
      after.push_back(frees_.front());
      frees_.pop_front();
    }
    const std::int64_t numel = round_up_numel(units_[u].numel, shard_);
    const std::size_t c = comm(fmt::format("{}allgather {} {}", step_, what, units_[u].name), "allgather",
                               CollectiveOp::AllGather, Bytes{numel * o_.precision.param_bytes}, group_, std::move(after));
    out_.gathered_elements += static_cast<double>(numel);
    open_[u] = out_.residency.size();
    out_.residency.push_back(Residency{c, std::nullopt, Bytes{numel * o_.precision.param_bytes}});
    return c;
  }

  // Reshards unit u after compute task `t`: its free event joins the limiter's queue.
  void free_unit(std::size_t u, std::size_t t) {
    frees_.push_back(t);
    if (open_[u]) out_.residency[*open_[u]].freed_by = t;
    open_[u].reset();
  }

  // FSDP post-backward: reduce-scatter the unit's gradient (HYBRID: in the node, then
  // all-reduce the shard across nodes), once the gradient computation `t` is done.
  void reduce_unit(std::size_t u, std::size_t t) {
    const std::int64_t numel = round_up_numel(units_[u].numel, shard_);
    const auto rs = comm(fmt::format("{}reducescatter {}", step_, units_[u].name), "reducescatter",
                         CollectiveOp::ReduceScatter, Bytes{numel * o_.precision.grad_bytes}, group_, {t});
    out_.reduced_elements += static_cast<double>(numel);
    UnitComms& uc = out_.units[u];
    uc.reduce = rs;
    uc.reduce_last = rs;
    if (hybrid_) {
      const std::int64_t shard = numel / shard_;
      uc.reduce_last = comm(fmt::format("{}allreduce shard {}", step_, units_[u].name), "allreduce",
                            CollectiveOp::AllReduce, Bytes{shard * o_.precision.grad_bytes}, CommGroup::InterNode, {t});
      // An all-reduce moves its buffer twice (reduce-scatter + all-gather, ZeRO paper s. 7).
      out_.reduced_elements += static_cast<double>(shard);
      out_.gathered_elements += static_cast<double>(shard);
    }
    reduces_.push_back(*uc.reduce_last);
    offload_gradients(units_[u].name, numel);
  }

  void optimizer() {
    if (o_.offload_optimizer) {
      // The CPU updates the rank's shard (the workload's optimizer bytes per parameter
      // through DRAM), then the updated 16-bit shard comes back to the GPU.
      const std::int64_t shard = (w_.parameter_count() + shard_ - 1) / shard_;
      const Time cpu = Time::from_seconds(w_.optimizer.memory_bytes_per_param * static_cast<double>(shard) /
                                          o_.host_link.memory.bytes_per_s);
      const std::size_t t = compute(step_ + "optimizer on the CPU (shard)", "optimizer", cpu, reduces_);
      host_copy(step_ + "weights to GPU (shard)", shard * o_.precision.param_bytes, {t});
      return;
    }
    // Every rank updates its 1/N shard of the optimizer state.
    const Time full = cm_.optimizer(w_);
    compute(step_ + "optimizer (shard)", "optimizer", Time{(full.ps + shard_ - 1) / shard_}, reduces_);
  }

  // --- ZeRO-3 / FSDP --------------------------------------------------------------------
  void fsdp_micro_step() {
    const bool reshard_after_forward = o_.strategy != Sharding::FsdpShardGradOp;
    const bool backward_gathers = reshard_after_forward;
    open_.assign(units_.size(), std::nullopt);
    reduces_.clear();
    // FSDP's root pre-forward makes the all-gather stream wait for the compute stream (so
    // it does not run ahead of the previous step's optimizer).
    std::vector<std::size_t> first_after;
    if (auto t = last_compute()) first_after.push_back(*t);
    std::vector<std::optional<std::size_t>> fwd(units_.size());
    auto forward_gather = [&](std::size_t u) {
      fwd[u] = gather("fwd", u, first_after);
      first_after.clear();
      if (last_) out_.units[u].forward_gather = fwd[u];
    };
    if (root_) forward_gather(*root_);
    for (std::size_t l = 0; l < w_.layers.size(); ++l) {
      const auto u = unit_of_[l];
      std::vector<std::size_t> wait;
      if (u) {
        if (!fwd[*u]) forward_gather(*u);
        if (l == units_[*u].first_layer || units_[*u].root) wait.push_back(*fwd[*u]);
      }
      const auto t = compute(step_ + "fwd " + w_.layers[l].name, "forward", cm_.forward(w_.layers[l]), wait);
      if (u && !units_[*u].root && l == units_[*u].last_layer && reshard_after_forward) free_unit(*u, t);
    }

    // Backward order of the non-root units: reverse forward order.
    std::vector<std::size_t> order;
    for (std::size_t u = units_.size(); u-- > 0;) {
      if (!units_[u].root) order.push_back(u);
    }
    std::vector<std::size_t> rank_in_order(units_.size(), 0);
    for (std::size_t k = 0; k < order.size(); ++k) rank_in_order[order[k]] = k;
    std::vector<std::optional<std::size_t>> bwd(units_.size());
    auto backward_gather = [&](std::size_t u, std::vector<std::size_t> after) {
      bwd[u] = gather("bwd", u, std::move(after));
      if (last_) out_.units[u].backward_gather = bwd[u];
    };
    auto next_of = [&](std::size_t u) -> std::optional<std::size_t> {
      const std::size_t k = rank_in_order[u] + 1;
      return k < order.size() ? std::optional<std::size_t>(order[k]) : std::nullopt;
    };
    std::optional<std::size_t> root_last_layer;  // the root's last layer in backward order
    for (std::size_t l = 0; l < w_.layers.size() && root_; ++l) {
      if (unit_of_[l] == root_) {
        root_last_layer = l;
        break;
      }
    }
    std::optional<std::size_t> t;
    for (std::size_t l = w_.layers.size(); l-- > 0;) {
      const auto u = unit_of_[l];
      const bool block = u && !units_[*u].root;
      std::vector<std::size_t> wait;
      if (block && l == units_[*u].last_layer) {  // pre-backward hook
        if (backward_gathers) {
          if (!bwd[*u]) backward_gather(*u, {});
          const auto next = next_of(*u);
          if (o_.backward_prefetch == BackwardPrefetch::Pre && next && !bwd[*next]) backward_gather(*next, {});
          wait.push_back(*bwd[*u]);
        }
      }
      t = compute(step_ + "bwd " + w_.layers[l].name, "backward", cm_.backward(w_.layers[l]), wait);
      if (block && l == units_[*u].first_layer) {  // post-backward hook
        free_unit(*u, *t);
        const auto next = next_of(*u);
        // BACKWARD_POST prefetches after the current gradient computation, into the
        // memory just freed, and before the current reduce-scatter is issued.
        if (backward_gathers && o_.backward_prefetch == BackwardPrefetch::Post && next && !bwd[*next]) {
          backward_gather(*next, {*t});
        }
        reduce_unit(*u, *t);
      }
      if (root_last_layer && l == *root_last_layer) root_post_backward(*t);
    }
    if (root_ && !root_last_layer) {
      // A root with parameters but no layer: its gradients are final at the end of backward.
      if (!t) t = compute(step_ + "bwd (no layers)", "backward", Time{});
      root_post_backward(*t);
    }
    if (last_) optimizer();
  }

  // Gradient accumulation under FSDP is modelled without no_sync(): every micro-step
  // reduce-scatters its gradients (they accumulate in the shard), as DeepSpeed stage 3 does.
  void root_post_backward(std::size_t t) {
    free_unit(*root_, t);
    reduce_unit(*root_, t);
  }

  // --- ZeRO-1 / ZeRO-2 ------------------------------------------------------------------
  void zero12_micro_step() {
    for (const Layer& l : w_.layers) compute(step_ + "fwd " + l.name, "forward", cm_.forward(l));
    // ZeRO-1 keeps full gradients, so it reduces only at the optimizer step; ZeRO-2 keeps
    // only its gradient shard and reduces every micro-step, bucket by bucket in backward.
    const bool reduce = o_.strategy == Sharding::Zero2 || last_;
    const bool during_backward = o_.strategy == Sharding::Zero2;
    const std::int64_t cap = std::max<std::int64_t>(1, o_.reduce_bucket_bytes.count / o_.precision.grad_bytes);
    reduces_.clear();
    if (last_) out_.buckets.clear();
    // Buckets in ready order, each with the compute task whose end closes it.
    std::vector<std::pair<BucketComms, std::size_t>> closed;
    BucketComms open;
    std::vector<bool> seen(w_.parameters.size(), false);
    auto add = [&](std::size_t p, std::size_t t) {
      const std::int64_t n = w_.parameters[p].numel;
      // DeepSpeed: a gradient that would overflow the bucket first reduces the bucket.
      if (!open.params.empty() && open.numel + n > cap) {
        closed.emplace_back(std::move(open), t);
        open = BucketComms{};
      }
      open.params.push_back(p);
      open.numel += n;
      seen[p] = true;
    };
    for (std::size_t li = w_.layers.size(); li-- > 0;) {
      const Layer& l = w_.layers[li];
      const std::size_t t = compute(step_ + "bwd " + l.name, "backward", cm_.backward(l));
      if (!reduce) continue;
      for (std::size_t p : l.params) {
        if (!seen[p]) add(p, t);
      }
    }
    if (!reduce) return;
    const std::size_t end = *last_compute();
    // Parameters no layer lists are reduced with the rest at the end of backward.
    for (std::size_t p = 0; p < w_.parameters.size(); ++p) {
      if (!seen[p]) add(p, end);
    }
    if (!open.params.empty()) closed.emplace_back(std::move(open), end);
    for (std::size_t k = 0; k < closed.size(); ++k) {
      BucketComms& b = closed[k].first;
      const std::int64_t numel = round_up_numel(b.numel, shard_);
      b.reduce = comm(fmt::format("{}reducescatter bucket {}", step_, k), "reducescatter", CollectiveOp::ReduceScatter,
                      Bytes{numel * o_.precision.grad_bytes}, group_, {during_backward ? closed[k].second : end});
      out_.reduced_elements += static_cast<double>(numel);
      reduces_.push_back(b.reduce);
      offload_gradients(fmt::format("bucket {}", k), numel);
      if (last_) out_.buckets.push_back(std::move(b));
    }
    if (!last_) return;
    optimizer();
    // Every rank all-gathers the updated parameters, in chunks of the bucket size.
    const std::size_t opt = *last_compute();
    std::int64_t left = w_.parameter_count();
    for (int k = 0; left > 0; ++k) {
      const std::int64_t numel = round_up_numel(std::min(left, cap), shard_);
      left -= std::min(left, cap);
      comm(fmt::format("allgather parameters {}", k), "allgather", CollectiveOp::AllGather,
           Bytes{numel * o_.precision.param_bytes}, group_, {opt});
      out_.gathered_elements += static_cast<double>(numel);
    }
  }

  const Workload& w_;
  const ComputeModel& cm_;
  const GroupCostFn& cost_;
  const ShardingOptions& o_;
  const std::vector<ShardUnit>& units_;
  bool hybrid_ = false;
  int shard_ = 1;
  CommGroup group_ = CommGroup::World;
  std::vector<std::optional<std::size_t>> unit_of_;
  std::optional<std::size_t> root_;
  std::string step_;
  bool last_ = true;
  std::deque<std::size_t> frees_;                   // pending free events (compute tasks)
  std::vector<std::optional<std::size_t>> open_;    // unit -> its open Residency
  std::vector<std::size_t> reduces_;                // this micro-step's gradient collectives
  ShardedProgram out_;
};

}  // namespace

ShardedProgram build_sharded_program(const Workload& w, const ComputeModel& cm, const GroupCostFn& cost,
                                     const ShardingOptions& o, int world_size, const std::vector<ShardUnit>& units) {
  return ShardedBuilder(w, cm, cost, o, world_size, units).build();
}

}  // namespace collsim
