#include "sim/algo/pat.hpp"

#include <array>
#include <bit>
#include <stdexcept>

#include "sim/algo/schedule_builder.hpp"

namespace collsim {

namespace {

int wrap(int r, int n) { return ((r % n) + n) % n; }

// ceil(log2 n): the dimensions, so that 2^dims >= n.
int dimensions(int n) { return static_cast<int>(std::bit_width(static_cast<unsigned>(n - 1))); }

// The schedule's size: the transfers, a join per sender and step (all-gather's pacing) or
// per step (reduce-scatter's barrier), and up to three dependencies per transfer (its block's
// arrival, the pacing join, the joins' own).
struct PatSize {
  std::uint64_t transfers;
  std::uint64_t deps;
};
PatSize pat_size(int n) {
  const std::uint64_t moves = pat_transfers(n);
  const auto joins = static_cast<std::uint64_t>(n + 1) * static_cast<std::uint64_t>(dimensions(n));
  return PatSize{moves + joins, moves * 3};
}

// One dimension of the pattern: every rank's blocks to its peer 2^d away.
void pat_dimension(StepBuilder& b, int n, int d, bool gather) {
  const int dist = 1 << d;
  for (int q = 0; q < n; ++q) {
    for (int t = 0; t + dist < n; t += 2 * dist) {
      if (gather) {
        b.send(q, wrap(q - dist, n), wrap(q + t, n), TransferKind::Copy);
      } else {
        b.send(q, wrap(q + dist, n), wrap(q + dist + t, n), TransferKind::Reduce);
      }
    }
  }
  b.end_step();
}

}  // namespace

std::uint64_t pat_transfers(int ranks) {
  return ranks < 2 ? 0 : static_cast<std::uint64_t>(ranks) * static_cast<std::uint64_t>(ranks - 1);
}

bool pat_schedule_fits(int ranks) {
  const PatSize size = pat_size(ranks);
  return schedule_bytes(size.transfers, size.deps) <= max_schedule_bytes();
}

Schedule pat_schedule(const Collective& c, const AlgorithmOptions&) {
  if (c.op != CollectiveOp::AllGather && c.op != CollectiveOp::ReduceScatter) {
    throw std::invalid_argument("pat implements allgather and reducescatter only");
  }
  const bool gather = c.op == CollectiveOp::AllGather;
  Schedule s(c, std::string(kPatAlgorithm.name));
  const int n = c.ranks;
  // Block j belongs to rank j: its origin (all-gather) or its destination (reduce-scatter).
  const std::vector<Bytes> blocks = split_evenly(c.size, n);
  for (int j = 0; j < n; ++j) {
    ChunkSpec spec{blocks[static_cast<std::size_t>(j)]};
    if (gather) {
      spec.origin = j;
    } else {
      spec.destination = j;
    }
    s.add_chunk(spec);
  }
  if (n == 1) return s;
  const int dims = dimensions(n);
  // Each transfer waits for the one that brought its block (all-gather) or for the step
  // before (reduce-scatter, through one join per step).
  const PatSize size = pat_size(n);
  s.expect(size.transfers, size.deps);
  StepBuilder b(s);
  if (gather) {
    b.pace_senders();  // a rank works through its dimensions in order
    for (int d = dims - 1; d >= 0; --d) pat_dimension(b, n, d, true);
  } else {
    for (int d = 0; d < dims; ++d) {
      pat_dimension(b, n, d, false);
      if (d + 1 < dims) b.barrier();
    }
  }
  return s;
}

namespace {
constexpr std::array kPatOps{CollectiveOp::AllGather, CollectiveOp::ReduceScatter};
}  // namespace

const AlgorithmInfo kPatAlgorithm{
    .name = "pat",
    .description = "NCCL's PAT: all-gather / reduce-scatter in log2 n Bruck-style dimensions (one GPU per host)",
    .ops = kPatOps,
    .build = pat_schedule,
    .nccl = NcclAlgorithm::Pat,
};

}  // namespace collsim
