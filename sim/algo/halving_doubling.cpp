#include "sim/algo/halving_doubling.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "sim/algo/power_of_two_fold.hpp"

namespace collsim {

Schedule halving_doubling_allreduce(const Collective& c, const AlgorithmOptions&) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument("rhd implements allreduce only");
  Schedule s(c, std::string(kHalvingDoublingAlgorithm.name));
  const PowerOfTwoFold fold(c.ranks);
  const int p = fold.p;
  for (Bytes b : split_evenly(c.size, p)) s.add_chunk(ChunkSpec{b});
  StepBuilder b(s);
  fold.fold_in(b, p);
  // Participant q owns blocks [lo[q], lo[q] + width).
  std::vector<int> lo(static_cast<std::size_t>(p), 0);
  for (int d = p / 2; d >= 1; d /= 2) {
    for (int q = 0; q < p; ++q) {
      const bool upper = (q & d) != 0;  // keeps the upper half, sends the lower
      const int send_lo = lo[static_cast<std::size_t>(q)] + (upper ? 0 : d);
      for (int blk = send_lo; blk < send_lo + d; ++blk) b.send(fold.rank(q), fold.rank(q ^ d), blk, TransferKind::Reduce);
    }
    for (int q = 0; q < p; ++q) {
      if ((q & d) != 0) lo[static_cast<std::size_t>(q)] += d;
    }
    b.end_step();
  }
  for (int d = 1; d < p; d *= 2) {
    for (int q = 0; q < p; ++q) {
      const int from = lo[static_cast<std::size_t>(q)];
      for (int blk = from; blk < from + d; ++blk) b.send(fold.rank(q), fold.rank(q ^ d), blk, TransferKind::Copy);
    }
    for (int q = 0; q < p; ++q) {
      lo[static_cast<std::size_t>(q)] = std::min(lo[static_cast<std::size_t>(q)], lo[static_cast<std::size_t>(q ^ d)]);
    }
    b.end_step();
  }
  fold.fold_out(b, p);
  return s;
}

const AlgorithmInfo kHalvingDoublingAlgorithm{
    .name = "rhd",
    .description = "Rabenseifner: recursive halving reduce-scatter + recursive doubling all-gather",
    .ops = kAllReduceOnly,
    .build = halving_doubling_allreduce,
};

}  // namespace collsim
