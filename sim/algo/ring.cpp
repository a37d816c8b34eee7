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

// 128-bit products for the division below (a GCC and clang extension, hence __extension__).
__extension__ typedef unsigned __int128 Wide;

// x / d by a multiply and a shift (Lemire, Kaser and Kurz, "Faster remainder by direct
// computation", 2019): exact for x and d below 2^32; larger ones divide.

class Divider {
 public:
  Divider() = default;
  explicit Divider(std::uint64_t d) : d_(d), m_(d > 1 && d < (std::uint64_t{1} << 32) ? ~std::uint64_t{0} / d + 1 : 0) {}
  std::uint64_t operator()(std::uint64_t x) const {
    if (m_ != 0 && x < (std::uint64_t{1} << 32)) {
      return static_cast<std::uint64_t>((static_cast<Wide>(m_) * x) >> 64);
    }
    return x / d_;
  }

 private:
  std::uint64_t d_ = 1;
  std::uint64_t m_ = 0;
};

// ring_blocks' DAG computed on demand, id for id: transfer (u, k, p) has id
// (u * steps + k) * n + p and the same fields and dependencies as there.
class RingBlocksDag final : public GeneratedSchedule {
 public:
  RingBlocksDag(const Collective& c, std::vector<std::vector<int>> rings, const AlgorithmOptions& opt)
      : GeneratedSchedule(c, std::string(kRingAlgorithm.name)), rings_(std::move(rings)), n_(c.ranks) {
    const int k_channels = std::max(1, opt.channels);
    const std::vector<Bytes> pieces = split_evenly(c.size, n_);
    slices_ = slice_count(split_evenly(pieces.front(), k_channels).front(), opt);
    units_ = k_channels * slices_;
    unit_bytes_.reserve(static_cast<std::size_t>(n_) * static_cast<std::size_t>(units_));
    for (int r = 0; r < n_; ++r) {
      for (Bytes ch : split_evenly(pieces[static_cast<std::size_t>(r)], k_channels)) {
        for (Bytes sl : split_evenly(ch, slices_)) unit_bytes_.push_back(sl);
      }
    }
    // Each unit's channel facts, so a transfer costs no division for them.
    units_info_.reserve(static_cast<std::size_t>(units_));
    for (int u = 0; u < units_; ++u) {
      const int ch = u / slices_;
      units_info_.push_back(Unit{static_cast<std::uint32_t>(static_cast<std::size_t>(ch) % rings_.size()),
                                 channel_tag(ch), u % slices_ != 0});
    }
    const bool reduce = c.op != CollectiveOp::AllGather;
    const bool gather = c.op != CollectiveOp::ReduceScatter;
    rs_steps_ = reduce && n_ > 1 ? n_ - 1 : 0;
    steps_ = n_ > 1 ? rs_steps_ + (gather ? n_ - 1 : 0) : 0;
    by_n_ = Divider(static_cast<std::uint64_t>(n_));
    by_steps_ = Divider(static_cast<std::uint64_t>(std::max(1, steps_)));
  }

  [[nodiscard]] std::uint64_t size() const override { return at(units_, 0, 0); }
  // Position p of ring r sends to position p + 1 of it.
  [[nodiscard]] std::uint64_t route_slots() const override { return rings_.size() * static_cast<std::uint64_t>(n_); }

  [[nodiscard]] Transfer transfer(std::uint64_t id, std::uint64_t& route_slot) const override {
    const Pos x = pos(id);
    const std::size_t r = ring_index(x.u);
    const std::vector<int>& ring = rings_[r];
    route_slot = r * static_cast<std::uint64_t>(n_) + static_cast<std::uint64_t>(x.p);
    const bool rs = x.k < rs_steps_;
    int block = rs ? x.p - x.k - 1 : x.p - (x.k - rs_steps_);  // in (-n, n): k < n - 1 in either half
    if (block < 0) block += n_;
    const int owner = ring[static_cast<std::size_t>(block)];
    return Transfer{ring[static_cast<std::size_t>(x.p)],
                    ring[static_cast<std::size_t>(x.p + 1 == n_ ? 0 : x.p + 1)],
                    unit_bytes_[static_cast<std::size_t>(owner) * static_cast<std::size_t>(units_) + static_cast<std::size_t>(x.u)],
                    x.u * n_ + owner,
                    rs ? TransferKind::Reduce : TransferKind::Copy,
                    TransferLeg::EndToEnd,
                    pipelined(x.u),
                    units_info_[static_cast<std::size_t>(x.u)].tag};
  }

  [[nodiscard]] std::uint32_t indegree(std::uint64_t id) const override {
    const Pos x = pos(id);
    return (x.k > 0 ? 2U : 0U) + (pipelined(x.u) && x.k == 0 ? 1U : 0U);
  }

  std::size_t dependents(std::uint64_t id, Dependents& out) const override {
    const Pos x = pos(id);
    std::size_t m = 0;
    if (x.k + 1 < steps_) {
      // Both wait for two transfers of step k; the one at position 0 comes first.
      const int q = x.p + 1 == n_ ? 0 : x.p + 1;
      out[m++] = {at(x.u, x.k + 1, std::min(x.p, q)), 2};
      out[m++] = {at(x.u, x.k + 1, std::max(x.p, q)), 2};
    } else if (x.u + 1 < units_ && pipelined(x.u + 1)) {
      out[m++] = {at(x.u + 1, 0, x.p), 1};  // the next slice's first step, same rank
    }
    return m;
  }

  [[nodiscard]] std::vector<std::uint64_t> roots() const override {
    std::vector<std::uint64_t> r;
    if (steps_ == 0) return r;
    for (int u = 0; u < units_; ++u) {
      if (pipelined(u)) continue;
      for (int p = 0; p < n_; ++p) r.push_back(at(u, 0, p));
    }
    return r;
  }

 private:
  struct Pos {
    int u, k, p;
  };
  [[nodiscard]] Pos pos(std::uint64_t id) const {
    const std::uint64_t uk = by_n_(id);
    const std::uint64_t u = by_steps_(uk);
    return Pos{static_cast<int>(u), static_cast<int>(uk - u * static_cast<std::uint64_t>(steps_)),
               static_cast<int>(id - uk * static_cast<std::uint64_t>(n_))};
  }
  [[nodiscard]] std::uint64_t at(int u, int k, int p) const {
    return (static_cast<std::uint64_t>(u) * static_cast<std::uint64_t>(steps_) + static_cast<std::uint64_t>(k)) *
               static_cast<std::uint64_t>(n_) + static_cast<std::uint64_t>(p);
  }
  [[nodiscard]] bool pipelined(int u) const { return units_info_[static_cast<std::size_t>(u)].pipelined; }
  [[nodiscard]] std::size_t ring_index(int u) const { return units_info_[static_cast<std::size_t>(u)].ring; }

  std::vector<std::vector<int>> rings_;
  int n_ = 0;
  int slices_ = 1;
  int units_ = 1;
  int rs_steps_ = 0;
  int steps_ = 0;
  Divider by_n_, by_steps_;
  std::vector<Bytes> unit_bytes_;  // [rank * units + unit]
  struct Unit {
    std::uint32_t ring;   // index into rings_
    std::uint8_t tag;     // its channel's tag
    bool pipelined;       // not its channel's first slice
  };
  std::vector<Unit> units_info_;
};

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

std::unique_ptr<GeneratedSchedule> generated_ring(const Collective& c, const AlgorithmOptions& opt) {
  if (c.op != CollectiveOp::AllReduce && c.op != CollectiveOp::ReduceScatter && c.op != CollectiveOp::AllGather) {
    return nullptr;  // the chains (broadcast, reduce) are small: stored
  }
  return std::make_unique<RingBlocksDag>(c, channel_rings(c, opt), opt);
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
    .phased = phased_ring,
    .generated = generated_ring,
    .nccl = NcclAlgorithm::Ring,
};

}  // namespace collsim
