#include "sim/algo/collective.hpp"

#include "sim/core/name_table.hpp"

namespace collsim {

Bytes nccl_tests_size(CollectiveOp op, int ranks, Bytes requested) {
  if (op != CollectiveOp::AllGather && op != CollectiveOp::ReduceScatter && op != CollectiveOp::AllToAll) return requested;
  const std::int64_t per_rank = requested.count / ranks / 16 * 16;
  return Bytes{per_rank * ranks};
}

double busbw_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::AllReduce: return ranks > 1 ? 2.0 * (n - 1) / n : 0.0;
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllGather:
    case CollectiveOp::AllToAll: return ranks > 1 ? (n - 1) / n : 0.0;
    case CollectiveOp::Broadcast:
    case CollectiveOp::Reduce: return 1.0;
  }
  return 1.0;
}

}  // namespace collsim
