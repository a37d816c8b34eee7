// How a data-parallel job shards its model states: DDP, ZeRO stages 1-3 (DeepSpeed) and
// FSDP's sharding strategies, with FSDP's prefetch and rate-limit options and the
// precision of parameters, gradients and optimizer state. Sizes in bytes per element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/name_table.hpp"
#include "sim/core/units.hpp"
#include "sim/train/dtype.hpp"
#include "sim/train/host_costs.hpp"

namespace collsim {

enum class Sharding : std::uint8_t {
  Ddp,              // replicated; gradients all-reduced per bucket (sim/train/ddp_timeline.hpp)
  Zero1,            // optimizer state sharded; grads reduce-scattered at the end, params all-gathered after the step
  Zero2,            // + gradients reduce-scattered per bucket during backward
  Zero3,            // + parameters sharded: all-gathered per unit in forward and again in backward
  FsdpFullShard,    // FSDP FULL_SHARD (ZeRO-3 semantics, FSDP units and prefetch options)
  FsdpShardGradOp,  // FSDP SHARD_GRAD_OP: all-gather before forward, kept through backward
  FsdpHybridShard,  // FSDP HYBRID_SHARD: FULL_SHARD inside a node, gradient shards all-reduced across nodes
};
template <>
inline constexpr auto kEnumNames<Sharding> =
    names_in_order<Sharding>({"ddp", "zero1", "zero2", "zero3", "fsdp_full_shard", "fsdp_shard_grad_op", "fsdp_hybrid_shard"});

// FSDP's own names of its strategies (torch ShardingStrategy, lower case), as plan files
// list them: "full_shard", "shard_grad_op", "hybrid_shard".
[[nodiscard]] std::optional<Sharding> fsdp_sharding_from(std::string_view s);
[[nodiscard]] std::vector<std::string> fsdp_sharding_names();

// FSDP BackwardPrefetch: BACKWARD_PRE (default) issues unit i-1's all-gather before unit
// i's gradient compute, BACKWARD_POST after it, None only when unit i-1's backward starts.
enum class BackwardPrefetch : std::uint8_t { Pre, Post, None };
template <>
inline constexpr auto kEnumNames<BackwardPrefetch> = names_in_order<BackwardPrefetch>({"pre", "post", "none"});

// Bytes per parameter element of each model state. The ZeRO paper's mixed-precision Adam
// is 2 + 2 + K with K = 12 (fp32 master weights, momentum, variance).
struct StatePrecision {
  std::int64_t param_bytes = 2;      // the copy used by compute and all-gathered
  std::int64_t grad_bytes = 2;       // gradients, reduce-scattered / all-reduced in this size
  std::int64_t optimizer_bytes = 12; // K: master copy + optimizer moments
};

// Adam mixed precision (2, 2, 12), Adam fp32 (4, 4, 8), SGD with momentum fp32 (4, 4, 4).
[[nodiscard]] StatePrecision adam_mixed_precision();
[[nodiscard]] StatePrecision adam_fp32();
[[nodiscard]] StatePrecision sgd_momentum_fp32();

// The named precisions, one vocabulary for the command line and plan files:
// "adam_mixed", "adam_fp32", "sgd_momentum_fp32"; the command line's older spellings
// "adam-mixed", "adam-fp32" and "sgd-fp32" are accepted as aliases.
enum class PrecisionPreset : std::uint8_t { AdamMixed, AdamFp32, SgdMomentumFp32 };
template <>
inline constexpr auto kEnumNames<PrecisionPreset> =
    names_in_order<PrecisionPreset>({"adam_mixed", "adam_fp32", "sgd_momentum_fp32"});
[[nodiscard]] std::optional<PrecisionPreset> precision_preset_from(std::string_view s);  // a name or an alias
[[nodiscard]] StatePrecision state_precision(PrecisionPreset p);

// How workload layers group into FSDP units (one flat parameter each).
enum class UnitPolicy : std::uint8_t {
  Blocks,     // transformer_auto_wrap_policy-like: layers whose names share the prefix up to the
              // first all-digit path component ("model.layers.7.") form one unit; the rest is the root unit
  MinParams,  // size_based_auto_wrap_policy-like: consecutive layers until >= min_unit_params
};

struct ShardingOptions {
  Sharding strategy = Sharding::Ddp;
  StatePrecision precision = adam_mixed_precision();
  // ZeRO-1/2 gradient buckets (DeepSpeed reduce_bucket_size, elements x grad_bytes).
  Bytes reduce_bucket_bytes{500'000'000LL * 2};
  UnitPolicy unit_policy = UnitPolicy::Blocks;
  std::int64_t min_unit_params = 100'000'000;  // torch size_based_auto_wrap_policy default 1e8
  BackwardPrefetch backward_prefetch = BackwardPrefetch::Pre;
  bool forward_prefetch = false;
  int all_gather_limit = 2;        // limit_all_gathers=True: at most 2 in flight; 0 = no limit
  int ranks_per_node = 8;          // HYBRID_SHARD shard group size
  int accumulate = 1;              // gradient accumulation micro-steps per optimizer step
  bool activation_checkpointing = false;
  HostCosts host;                  // CPU launch costs (none by default; host_costs.hpp)
  // DeepSpeed's offload_optimizer to the CPU (ZeRO-Offload), ZeRO-1/2/3 only: each rank's
  // gradient shard goes to host memory as it is reduced, the CPU runs the optimizer on it
  // at the rank's share of its socket's DRAM (the workload's optimizer bytes per parameter),
  // and the updated 16-bit shard comes back before the parameters are gathered.
  bool offload_optimizer = false;
  HostLink host_link;              // the rank's PCIe and DRAM shares (host_link.hpp)
};

}  // namespace collsim
