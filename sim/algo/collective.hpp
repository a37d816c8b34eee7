// What a collective is: the operation, the rank count, the root, and the per-rank
// buffer size in bytes (nccl-tests' "size" column).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/name_table.hpp"
#include "sim/core/units.hpp"

namespace collsim {

enum class CollectiveOp { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce, AllToAll };
template <>
inline constexpr auto kEnumNames<CollectiveOp> =
    names_in_order<CollectiveOp>({"allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall"});

struct Collective {
  CollectiveOp op = CollectiveOp::AllReduce;
  int ranks = 1;
  int root = 0;
  Bytes size;  // nccl-tests size: all-reduce/broadcast/reduce buffer, or the gathered total
};

// The size nccl-tests actually runs for a requested size: all-gather, reduce-scatter and
// all-to-all divide it by the rank count and round each rank's part down to a multiple of
// 16 bytes (reference/nccl-model.md s. 6); the others run it as is.
[[nodiscard]] Bytes nccl_tests_size(CollectiveOp op, int ranks, Bytes requested);

// nccl-tests' bus-bandwidth factor: busbw = algbw x factor (reference/nccl-model.md s. 6).
[[nodiscard]] double busbw_factor(CollectiveOp op, int ranks);

}  // namespace collsim
