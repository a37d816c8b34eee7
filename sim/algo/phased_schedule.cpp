#include "sim/algo/phased_schedule.hpp"

#include <algorithm>
#include <numeric>

#include "sim/algo/hier_ring.hpp"
#include "sim/algo/host_groups.hpp"
#include "sim/algo/registry.hpp"
#include "sim/algo/ring.hpp"

namespace collsim {

namespace {

Bytes ceil_div(Bytes b, std::int64_t parts) { return Bytes{(b.count + parts - 1) / parts}; }

// Every rank of `order` sends `flows` transfers of `bytes` to the next one around the ring.
std::vector<Transfer> ring_step(const std::vector<int>& order, Bytes bytes, TransferKind kind, int flows = 1) {
  std::vector<Transfer> step;
  step.reserve(order.size() * static_cast<std::size_t>(flows));
  for (std::size_t p = 0; p < order.size(); ++p) {
    for (int f = 0; f < flows; ++f) step.push_back(Transfer{order[p], order[(p + 1) % order.size()], bytes, 0, kind});
  }
  return step;
}

}  // namespace

std::uint64_t PhasedSchedule::transfers() const {
  std::uint64_t n = 0;
  for (const auto& ph : phases) n += ph.step.size() * static_cast<std::uint64_t>(ph.repeats);
  return n;
}

std::optional<PhasedSchedule> phased_schedule(std::string_view algo, const Collective& c, const AlgorithmOptions& opt) {
  const AlgorithmInfo* info = find_algorithm(algo);
  if (info == nullptr || info->phased == nullptr) return std::nullopt;
  return info->phased(c, opt);
}

// Ring all-reduce: 2(N-1) identical steps; in each, every rank sends one flow per channel
// of ceil(S/N/K) bytes to the next rank (the full schedule's largest unit). Reduce-scatter
// and all-gather are its halves: N-1 such steps (ring_blocks' DAG, cut short). Only without
// pipelined slices: slices of consecutive steps overlap, which one step cannot show.
std::optional<PhasedSchedule> phased_ring(const Collective& c, const AlgorithmOptions& opt) {
  const bool all_reduce = c.op == CollectiveOp::AllReduce;
  if ((!all_reduce && c.op != CollectiveOp::ReduceScatter && c.op != CollectiveOp::AllGather) || c.ranks < 2) {
    return std::nullopt;
  }
  const TransferKind kind = c.op == CollectiveOp::AllGather ? TransferKind::Copy : TransferKind::Reduce;
  const int channels = std::max(1, opt.channels);
  const Bytes unit = ceil_div(ceil_div(c.size, c.ranks), channels);
  if (slice_count(unit, opt) != 1) return std::nullopt;
  // The all-gather continues the reduce-scatter's pattern without a barrier (a rank's
  // first all-gather step waits only for its own last reduce-scatter step): one phase.
  PhasedSchedule p{c, std::string(kRingAlgorithm.name), {}};
  std::vector<Transfer> step;
  if (opt.channel_orders.empty()) {
    std::vector<int> order = opt.ring_order;
    if (order.empty()) {
      order.resize(static_cast<std::size_t>(c.ranks));
      std::iota(order.begin(), order.end(), 0);
    }
    step = ring_step(order, unit, kind, channels);
  } else {
    // NCCL's channel graphs: every channel around its own ring.
    for (int ch = 0; ch < channels; ++ch) {
      const auto& order = opt.channel_orders[static_cast<std::size_t>(ch) % opt.channel_orders.size()];
      auto one = ring_step(order, unit, kind);
      for (Transfer& t : one) t.chunk = ch;  // the channel: its ring runs on its own
      step.insert(step.end(), one.begin(), one.end());
    }
  }
  p.phases.push_back({std::string(all_reduce ? "reduce-scatter + all-gather" : to_string(c.op)), std::move(step),
                      (all_reduce ? 2 : 1) * (c.ranks - 1)});
  return p;
}

// Hierarchical ring: reduce-scatter inside every host (G-1 steps of S/G), a ring
// all-reduce across hosts on every rail (2(H-1) steps of S/(G H)), all-gather inside
// every host (G-1 steps of S/G).
std::optional<PhasedSchedule> phased_hier_ring_allreduce(const Collective& c, const AlgorithmOptions& opt) {
  if (c.op != CollectiveOp::AllReduce || c.ranks < 2) return std::nullopt;
  const HostGroups g = group_by_host(c.ranks, opt.host_of_rank);
  if (!g.even()) return std::nullopt;
  const int hosts = g.hosts();
  const int local = static_cast<int>(g.ranks.front().size());
  PhasedSchedule p{c, std::string(kHierarchicalRingAlgorithm.name), {}};
  const Bytes shard = ceil_div(c.size, local);
  const Bytes piece = ceil_div(shard, hosts);
  if (local > 1) {
    std::vector<Transfer> intra;
    intra.reserve(static_cast<std::size_t>(c.ranks));
    for (const auto& members : g.ranks) {
      const auto step = ring_step(members, shard, TransferKind::Reduce);
      intra.insert(intra.end(), step.begin(), step.end());
    }
    p.phases.push_back({"intra-host reduce-scatter", intra, local - 1});
  }
  if (hosts > 1) {
    std::vector<Transfer> rails;
    rails.reserve(static_cast<std::size_t>(c.ranks));
    for (int i = 0; i < local; ++i) {
      std::vector<int> rail;
      rail.reserve(static_cast<std::size_t>(hosts));
      for (const auto& members : g.ranks) rail.push_back(members[static_cast<std::size_t>(i)]);
      const auto step = ring_step(rail, piece, TransferKind::Reduce);
      rails.insert(rails.end(), step.begin(), step.end());
    }
    p.phases.push_back({"inter-host ring per rail", rails, 2 * (hosts - 1)});
  }
  if (local > 1) {
    std::vector<Transfer> intra = p.phases.front().step;
    for (Transfer& t : intra) t.kind = TransferKind::Copy;
    p.phases.push_back({"intra-host all-gather", intra, local - 1});
  }
  return p;
}

}  // namespace collsim
