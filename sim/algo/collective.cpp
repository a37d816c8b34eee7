#include "sim/algo/collective.hpp"

#include <array>
#include <utility>

namespace collsim {

namespace {
constexpr std::array<std::pair<CollectiveOp, std::string_view>, 6> kOps{{
    {CollectiveOp::AllReduce, "allreduce"},
    {CollectiveOp::ReduceScatter, "reducescatter"},
    {CollectiveOp::AllGather, "allgather"},
    {CollectiveOp::Broadcast, "broadcast"},
    {CollectiveOp::Reduce, "reduce"},
    {CollectiveOp::AllToAll, "alltoall"},
}};
}  // namespace

std::string_view to_string(CollectiveOp op) {
  for (const auto& [o, name] : kOps) {
    if (o == op) return name;
  }
  return "?";
}

std::optional<CollectiveOp> collective_op_from(std::string_view s) {
  for (const auto& [o, name] : kOps) {
    if (name == s) return o;
  }
  return std::nullopt;
}

std::vector<std::string> collective_op_names() {
  std::vector<std::string> out;
  for (const auto& [o, name] : kOps) out.emplace_back(name);
  return out;
}

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
