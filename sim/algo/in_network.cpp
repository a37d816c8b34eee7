#include "sim/algo/in_network.hpp"

#include <stdexcept>

#include "sim/algo/schedule_builder.hpp"

namespace collsim {

Schedule in_network_allreduce(const Collective& c, const std::string& name, const AlgorithmOptions&) {
  if (c.op != CollectiveOp::AllReduce) throw std::invalid_argument(name + " implements allreduce only");
  Schedule s(c, name);
  const int n = c.ranks;
  for (Bytes b : split_evenly(c.size, n)) s.add_chunk(ChunkSpec{b});
  StepBuilder b(s);
  for (int r = 0; r < n; ++r) {
    for (int j = 0; j < n; ++j) {
      if (j != r) b.send(r, j, j, TransferKind::Reduce, TransferLeg::ToSwitch);
    }
  }
  b.end_step();
  for (int j = 0; j < n; ++j) {
    for (int r = 0; r < n; ++r) {
      if (r != j) b.send(j, r, j, TransferKind::Copy, TransferLeg::FromSwitch);
    }
  }
  b.end_step();
  return s;
}

}  // namespace collsim
