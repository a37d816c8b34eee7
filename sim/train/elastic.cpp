#include "sim/train/elastic.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace {

constexpr int kMaxElasticSteps = 1'000'000;

void check_changes(int steps, int initial_ranks, int max_ranks, const std::vector<MembershipChange>& changes) {
  if (steps < 2 || steps > kMaxElasticSteps) {
    throw ConfigError("", "steps", std::to_string(steps), fmt::format("2 to {} steps (a run across a change)", kMaxElasticSteps));
  }
  int previous_step = 0, ranks = initial_ranks;
  for (const auto& c : changes) {
    const std::string value = fmt::format("{}:{}", c.step, c.ranks);
    if (c.step <= previous_step || c.step >= steps) {
      throw ConfigError("", "membership", value,
                        fmt::format("a step from {} to {} (after the previous change, before the last step)",
                                    previous_step + 1, steps - 1));
    }
    if (c.ranks < 1 || c.ranks > max_ranks) {
      throw ConfigError("", "membership", value, fmt::format("a rank count from 1 to {} (the topology's ranks)", max_ranks));
    }
    if (c.ranks == ranks) {
      throw ConfigError("", "membership", value, fmt::format("a rank count other than {} (the job's ranks before it)", ranks));
    }
    previous_step = c.step;
    ranks = c.ranks;
  }
}

// The replicated state goes out from rank 0 (coalesced into buckets of
// kDdpBroadcastBucket, as DDP's constructor does) so that the new members start from the
// same state; the sharded state moves to its new owners, each rank receiving its shard
// from all the others (an all-to-all whose per-rank buffer is the shard).
void price_state(const ModelState& state, int ranks, const CollectiveCostFn& cost, ElasticRebuild& r) {
  r.state_bytes = state.replicated;
  for (Bytes left = state.replicated; left.count > 0; left = left - std::min(left, kDdpBroadcastBucket)) {
    r.state_broadcast = r.state_broadcast + cost(CollectiveOp::Broadcast, std::min(left, kDdpBroadcastBucket));
    ++r.broadcasts;
  }
  r.reshard_bytes = state.sharded;
  if (state.sharded.count > 0) {
    const int group = state.shard_group > 0 ? std::min(state.shard_group, ranks) : ranks;
    r.reshard_per_rank = Bytes{(state.sharded.count + group - 1) / group};
    r.reshard = cost(CollectiveOp::AllToAll, r.reshard_per_rank);
  }
}

}  // namespace

ModelState ddp_model_state(const Workload& w) {
  ModelState s;
  s.replicated = w.parameter_bytes();
  for (const auto& b : w.buffers) s.replicated += Bytes{b.numel * element_size(b.dtype)};
  return s;
}

ModelState sharded_model_state(const Workload& w, const ShardingOptions& o) {
  ModelState s;
  for (const auto& b : w.buffers) s.replicated += Bytes{b.numel * element_size(b.dtype)};
  const std::int64_t params = w.parameter_count();
  const StatePrecision& p = o.precision;
  if (o.strategy == Sharding::Zero1 || o.strategy == Sharding::Zero2) {
    s.replicated += Bytes{params * p.param_bytes};
    s.sharded = Bytes{params * p.optimizer_bytes};
  } else {
    s.sharded = Bytes{params * (p.param_bytes + p.optimizer_bytes)};
  }
  if (o.strategy == Sharding::FsdpHybridShard) s.shard_group = o.ranks_per_node;
  return s;
}

ElasticResult simulate_elastic(const ModelState& state, int steps, int initial_ranks, int max_ranks,
                               const std::vector<MembershipChange>& changes, const RebuildCosts& costs,
                               const MembershipFn& at) {
  check_changes(steps, initial_ranks, max_ranks, changes);
  ElasticResult out;
  int largest = initial_ranks;
  int first = 0, ranks = initial_ranks;
  MembershipModel model = at(ranks);
  for (std::size_t i = 0; i <= changes.size(); ++i) {
    const int end = i < changes.size() ? changes[i].step : steps;
    ElasticPhase phase{first, end - 1, ranks, model.step, model.proofs};
    out.steps_time = out.steps_time + phase.step.iteration * (end - first);
    out.phases.push_back(std::move(phase));
    if (i == changes.size()) break;
    const MembershipChange& c = changes[i];
    model = at(c.ranks);
    ElasticRebuild r;
    r.step = c.step;
    r.from_ranks = ranks;
    r.to_ranks = c.ranks;
    r.rendezvous_given = costs.rendezvous.has_value();
    r.rendezvous = costs.rendezvous ? *costs.rendezvous : (c.ranks < largest ? kRendezvousLastCall : Time{});
    r.comm_init = costs.comm_init;
    price_state(state, c.ranks, model.cost, r);
    r.total = r.rendezvous + r.comm_init.value_or(Time{}) + r.state_broadcast + r.reshard;
    out.rebuild_time = out.rebuild_time + r.total;
    out.rebuilds.push_back(r);
    largest = std::max(largest, c.ranks);
    first = c.step;
    ranks = c.ranks;
  }
  out.total = out.steps_time + out.rebuild_time;
  return out;
}

}  // namespace collsim
