#include "sim/algo/ring.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace collsim {

namespace {

std::vector<int> ring_positions(const Collective& c, const std::vector<int>& order) {
  const int n = c.ranks;
  std::vector<int> ring(order.begin(), order.end());
  if (ring.empty()) {
    ring.resize(static_cast<std::size_t>(n));
    std::iota(ring.begin(), ring.end(), 0);
  }
  std::vector<int> sorted = ring;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i) {
    if (static_cast<int>(sorted.size()) != n || sorted[static_cast<std::size_t>(i)] != i) {
      throw std::invalid_argument(fmt::format("ring order must list each of the {} ranks once", n));
    }
  }
  return ring;
}

// Every channel's ring: its own order (NCCL's channel graphs), else the one ring order.
std::vector<std::vector<int>> channel_rings(const Collective& c, const AlgorithmOptions& opt) {
  std::vector<std::vector<int>> rings;
  if (opt.channel_orders.empty()) {
    rings.push_back(ring_positions(c, opt.ring_order));
  } else {
    for (const auto& order : opt.channel_orders) rings.push_back(ring_positions(c, order));
  }
  return rings;
}

// Reduce-scatter, all-gather or both around the ring, per (channel, slice) unit; unit u
// belongs to channel u / slices and runs around that channel's ring.
void ring_blocks(Schedule& s, const std::vector<std::vector<int>>& rings, const AlgorithmOptions& opt) {
  const Collective& c = s.collective();
  const int n = c.ranks;
  const int k_channels = std::max(1, opt.channels);
  const std::vector<Bytes> pieces = split_evenly(c.size, n);
  const int slices = slice_count(split_evenly(pieces.front(), k_channels).front(), opt);
  const int units = k_channels * slices;
  // chunk (unit u, rank r) = u * n + r
  std::vector<std::vector<Bytes>> unit_bytes(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    for (Bytes ch : split_evenly(pieces[static_cast<std::size_t>(r)], k_channels)) {
      for (Bytes sl : split_evenly(ch, slices)) unit_bytes[static_cast<std::size_t>(r)].push_back(sl);
    }
  }
  const bool reduce = c.op != CollectiveOp::AllGather;
  const bool gather = c.op != CollectiveOp::ReduceScatter;
  for (int u = 0; u < units; ++u) {
    for (int r = 0; r < n; ++r) {
      ChunkSpec spec{unit_bytes[static_cast<std::size_t>(r)][static_cast<std::size_t>(u)]};
      if (c.op == CollectiveOp::ReduceScatter) spec.destination = r;
      if (c.op == CollectiveOp::AllGather) spec.origin = r;
      s.add_chunk(spec);
    }
  }
  if (n == 1) return;
  const int rs_steps = reduce ? n - 1 : 0;
  const int steps = rs_steps + (gather ? n - 1 : 0);
  s.reserve(static_cast<std::size_t>(units) * static_cast<std::size_t>(steps) * static_cast<std::size_t>(n),
            static_cast<std::size_t>(units) * static_cast<std::size_t>(steps) * static_cast<std::size_t>(n) * 3);
  // Transfer (unit u, step k, position p) has id (u * steps + k) * n + p; position p
  // sends to p + 1. Reduce-scatter step k sends block (p - k - 1) mod n, so after n - 1
  // steps position q holds its own block q complete; all-gather step k' sends block
  // (p - k') mod n, which position p received the step before (or owns, at k' = 0).
  auto id = [n, steps](int u, int k, int p) {
    return static_cast<TransferId>((static_cast<std::int64_t>(u) * steps + k) * n + p);
  };
  std::vector<TransferId> deps;
  for (int u = 0; u < units; ++u) {
    const std::vector<int>& ring = rings[static_cast<std::size_t>(u / slices) % rings.size()];
    for (int k = 0; k < steps; ++k) {
      const bool rs = k < rs_steps;
      for (int p = 0; p < n; ++p) {
        const int block = rs ? ((p - k - 1) % n + n) % n : ((p - (k - rs_steps)) % n + n) % n;
        const int chunk = u * n + ring[static_cast<std::size_t>(block)];
        const bool pipelined = u % slices != 0;
        const Transfer t{ring[static_cast<std::size_t>(p)], ring[static_cast<std::size_t>((p + 1) % n)],
                         s.chunks()[static_cast<std::size_t>(chunk)].bytes, chunk,
                         rs ? TransferKind::Reduce : TransferKind::Copy, TransferLeg::EndToEnd, pipelined,
                         channel_tag(u / slices)};
        deps.clear();
        if (k > 0) {
          deps.push_back(id(u, k - 1, (p + n - 1) % n));
          deps.push_back(id(u, k - 1, p));
        }
        // A channel is one thread block sending in program order: slice l's first step
        // follows slice l-1's last step from the same rank.
        if (pipelined && k == 0) deps.push_back(id(u - 1, steps - 1, p));
        s.add(t, deps);
      }
    }
  }
}

// Broadcast (root first) or reduce (root last) along the ring as a pipelined chain.
void ring_chain(Schedule& s, const std::vector<std::vector<int>>& rings, const AlgorithmOptions& opt) {
  const Collective& c = s.collective();
  const int n = c.ranks;
  const bool bcast = c.op == CollectiveOp::Broadcast;
  std::vector<std::vector<int>> chains;
  for (const auto& ring : rings) {
    const auto at_root = std::find(ring.begin(), ring.end(), c.root) - ring.begin();
    std::vector<int> chain(ring.size());
    for (std::size_t i = 0; i < ring.size(); ++i) {
      // broadcast: root, root+1, ...; reduce: root+1, ..., root
      chain[i] = ring[(static_cast<std::size_t>(at_root) + i + (bcast ? 0 : 1)) % ring.size()];
    }
    chains.push_back(std::move(chain));
  }
  const int k_channels = std::max(1, opt.channels);
  const int slices = slice_count(split_evenly(c.size, k_channels).front(), opt);
  const int units = k_channels * slices;
  for (Bytes ch : split_evenly(c.size, k_channels)) {
    for (Bytes sl : split_evenly(ch, slices)) {
      s.add_chunk(bcast ? ChunkSpec{sl, c.root, ChunkSpec::kEveryRank} : ChunkSpec{sl, ChunkSpec::kEveryRank, c.root});
    }
  }
  if (n == 1) return;
  const int hops = n - 1;
  auto id = [hops](int u, int p) { return static_cast<TransferId>(static_cast<std::int64_t>(u) * hops + p); };
  std::vector<TransferId> deps;
  for (int u = 0; u < units; ++u) {
    const bool pipelined = u % slices != 0;
    const std::vector<int>& chain = chains[static_cast<std::size_t>(u / slices) % chains.size()];
    for (int p = 0; p < hops; ++p) {
      deps.clear();
      if (p > 0) deps.push_back(id(u, p - 1));
      if (pipelined) deps.push_back(id(u - 1, p));
      s.add(Transfer{chain[static_cast<std::size_t>(p)], chain[static_cast<std::size_t>(p + 1)],
                     s.chunks()[static_cast<std::size_t>(u)].bytes, u,
                     bcast ? TransferKind::Copy : TransferKind::Reduce, TransferLeg::EndToEnd, pipelined,
                     channel_tag(u / slices)},
            deps);
    }
  }
}

}  // namespace

Schedule ring_schedule(const Collective& c, const AlgorithmOptions& opt) {
  if (c.op == CollectiveOp::AllToAll) throw std::invalid_argument("ring does not implement alltoall");
  Schedule s(c, std::string(kRingAlgorithm.name));
  const std::vector<std::vector<int>> rings = channel_rings(c, opt);
  if (c.op == CollectiveOp::Broadcast || c.op == CollectiveOp::Reduce) {
    ring_chain(s, rings, opt);
  } else {
    ring_blocks(s, rings, opt);
  }
  return s;
}

namespace {
constexpr std::array kRingOps{CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather,
                              CollectiveOp::Broadcast, CollectiveOp::Reduce};
}  // namespace

const AlgorithmInfo kRingAlgorithm{
    .name = "ring",
    .description = "NCCL's ring over K channels, pipelined in slices; all-reduce = reduce-scatter + all-gather",
    .ops = kRingOps,
    .build = ring_schedule,
    .phased = phased_ring_allreduce,
    .nccl = NcclAlgorithm::Ring,
};

}  // namespace collsim
