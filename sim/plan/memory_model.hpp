// Per-rank GPU memory of a data-parallel training job: parameters, gradients, optimizer
// state (sharded per the strategy), DDP buckets, FSDP units unsharded at the peak, and
// activations (per-sample bytes from the workload times the micro-batch, reduced by
// activation checkpointing), against the device's HBM capacity. Bytes throughout.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/units.hpp"
#include "sim/train/sharding.hpp"
#include "sim/train/workload.hpp"

namespace collsim {

struct MemoryInputs {
  std::int64_t parameters = 0;    // Ψ, parameter elements of the whole model
  int world_size = 1;             // N_d data-parallel ranks
  ShardingOptions sharding;
  Bytes ddp_bucket_cap{25 * 1024 * 1024};  // DDP only
  bool gradient_as_bucket_view = false;    // DDP only: buckets alias the gradients
  Bytes largest_unit;             // FSDP/ZeRO-3: largest unit's unsharded parameter bytes
  Bytes activations;              // activation bytes held at the peak (micro-batch applied)
  Bytes capacity;                 // HBM of one GPU (0: unknown, `fits` is then true)
};

struct MemoryEstimate {
  Bytes parameters, gradients, optimizer;  // model states per rank
  Bytes buckets;                           // DDP flat buckets (0 with gradient_as_bucket_view)
  Bytes unsharded;                         // FSDP/ZeRO-3 gathered units held at the peak
  Bytes activations;
  Bytes total;
  Bytes capacity;
  bool fits = true;
  std::int64_t margin_bytes = 0;           // capacity - total (negative: short by that much)
};

// ZeRO paper (Rajbhandari et al. 2020, Fig. 1) model-state formulas per strategy, plus the
// transient terms. DDP = ZeRO baseline; FSDP FULL_SHARD = stage 3; SHARD_GRAD_OP holds
// unsharded parameters through the step (stage 2 plus a full parameter copy at the peak);
// HYBRID_SHARD = stage 3 over ranks_per_node ranks.
[[nodiscard]] MemoryEstimate estimate_memory(const MemoryInputs& in);

// Activation bytes at the peak for `micro_batch` samples: the sum of each layer's
// activation_bytes_per_sample, or with checkpointing each unit's input plus the largest
// unit's full activations (recomputed during its backward).
[[nodiscard]] Bytes activation_bytes(const Workload& w, int micro_batch, bool checkpointing);

}  // namespace collsim
