#include "sim/algo/recursive_doubling.hpp"

#include <stdexcept>

#include "sim/algo/power_of_two_fold.hpp"

namespace collsim {

Schedule recursive_doubling_allreduce(const Collective& c, const AlgorithmOptions&) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument("rd implements allreduce only");
  Schedule s(c, std::string(kRecursiveDoublingAlgorithm.name));
  s.add_chunk(ChunkSpec{c.size});
  const PowerOfTwoFold fold(c.ranks);
  StepBuilder b(s);
  fold.fold_in(b, 1);
  for (int d = 1; d < fold.p; d *= 2) {
    for (int q = 0; q < fold.p; ++q) b.send(fold.rank(q), fold.rank(q ^ d), 0, TransferKind::Reduce);
    b.end_step();
  }
  fold.fold_out(b, 1);
  return s;
}

const AlgorithmInfo kRecursiveDoublingAlgorithm{
    .name = "rd",
    .description = "recursive doubling: log2 p exchanges of the whole buffer",
    .ops = kAllReduceOnly,
    .build = recursive_doubling_allreduce,
};

}  // namespace collsim
