#include "sim/algo/direct.hpp"

#include <array>
#include <cstdint>
#include <vector>

#include "sim/algo/schedule_builder.hpp"

namespace collsim {

namespace {

void all_to_all(Schedule& s) {
  const int n = s.ranks();
  const auto pairs = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n - 1);
  s.expect(pairs, 0);
  const std::vector<Bytes> per_peer = split_evenly(s.collective().size, n);
  // chunk of (i -> j), j != i: i * (n - 1) + (j < i ? j : j - 1)
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j) s.add_chunk(ChunkSpec{per_peer[static_cast<std::size_t>(j)], i, j});
    }
  }
  s.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const int chunk = i * (n - 1) + (j < i ? j : j - 1);
      s.add(Transfer{i, j, s.chunks()[static_cast<std::size_t>(chunk)].bytes, chunk, TransferKind::Copy}, {});
    }
  }
}

}  // namespace

Schedule direct_schedule(const Collective& c, const AlgorithmOptions&) {
  Schedule s(c, std::string(kDirectAlgorithm.name));
  const int n = c.ranks;
  if (c.op == CollectiveOp::AllToAll) {
    all_to_all(s);
    return s;
  }
  StepBuilder b(s);
  if (c.op == CollectiveOp::Broadcast || c.op == CollectiveOp::Reduce) {
    const bool bcast = c.op == CollectiveOp::Broadcast;
    s.add_chunk(bcast ? ChunkSpec{c.size, c.root, ChunkSpec::kEveryRank} : ChunkSpec{c.size, ChunkSpec::kEveryRank, c.root});
    for (int r = 0; r < n; ++r) {
      if (r == c.root) continue;
      if (bcast) {
        b.send(c.root, r, 0, TransferKind::Copy);
      } else {
        b.send(r, c.root, 0, TransferKind::Reduce);
      }
    }
    b.end_step();
    return s;
  }
  // Every rank sends to every other once per phase: refuse a quadratic schedule that cannot
  // fit before queueing it (each transfer of the second phase depends on the first's).
  const auto pairs = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n - 1);
  const std::uint64_t phases = c.op == CollectiveOp::AllReduce ? 2 : 1;
  s.expect(phases * pairs, (phases - 1) * pairs);
  // Block j belongs to rank j.
  const std::vector<Bytes> blocks = split_evenly(c.size, n);
  for (int j = 0; j < n; ++j) {
    ChunkSpec spec{blocks[static_cast<std::size_t>(j)]};
    if (c.op == CollectiveOp::ReduceScatter) spec.destination = j;
    if (c.op == CollectiveOp::AllGather) spec.origin = j;
    s.add_chunk(spec);
  }
  if (c.op != CollectiveOp::AllGather) {
    for (int r = 0; r < n; ++r) {
      for (int j = 0; j < n; ++j) {
        if (j != r) b.send(r, j, j, TransferKind::Reduce);
      }
    }
    b.end_step();
  }
  if (c.op != CollectiveOp::ReduceScatter) {
    for (int j = 0; j < n; ++j) {
      for (int r = 0; r < n; ++r) {
        if (r != j) b.send(j, r, j, TransferKind::Copy);
      }
    }
    b.end_step();
  }
  return s;
}

namespace {
constexpr std::array kDirectOps{CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather,
                                CollectiveOp::Broadcast,  CollectiveOp::Reduce,        CollectiveOp::AllToAll};
}  // namespace

const AlgorithmInfo kDirectAlgorithm{
    .name = "direct",
    .description = "every rank exchanges with every rank at once (NCCL's point-to-point all-to-all)",
    .ops = kDirectOps,
    .build = direct_schedule,
    .nccl = NcclAlgorithm::PointToPoint,
};

}  // namespace collsim
