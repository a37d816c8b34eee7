#include "sim/plan/memory_model.hpp"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace {

constexpr std::string_view kSource = "memory model";

// ceil(n / d): ZeRO partitions and FSDP flat parameters are padded so every rank holds an
// equal shard.
std::int64_t shard_of(std::int64_t n, std::int64_t d) { return (n + d - 1) / d; }

void check_inputs(const MemoryInputs& in) {
  if (in.parameters < 0) throw ConfigError(std::string(kSource), "parameters", std::to_string(in.parameters), "at least 0");
  if (in.world_size < 1) throw ConfigError(std::string(kSource), "world_size", std::to_string(in.world_size), "at least 1");
  const auto& p = in.sharding.precision;
  if (p.param_bytes < 1 || p.grad_bytes < 1 || p.optimizer_bytes < 0) {
    throw ConfigError(std::string(kSource), "precision", fmt::format("{}+{}+{}", p.param_bytes, p.grad_bytes, p.optimizer_bytes),
                      "parameter and gradient bytes >= 1, optimizer bytes >= 0");
  }
  if (in.sharding.strategy == Sharding::FsdpHybridShard && in.sharding.ranks_per_node < 1) {
    throw ConfigError(std::string(kSource), "ranks_per_node", std::to_string(in.sharding.ranks_per_node), "at least 1");
  }
  if (in.largest_unit.count < 0 || in.activations.count < 0 || in.capacity.count < 0) {
    throw ConfigError(std::string(kSource), "largest_unit/activations/capacity",
                      fmt::format("{}/{}/{}", in.largest_unit.count, in.activations.count, in.capacity.count), "bytes >= 0");
  }
}

}  // namespace

MemoryEstimate estimate_memory(const MemoryInputs& in) {
  check_inputs(in);
  const ShardingOptions& o = in.sharding;
  const StatePrecision& p = o.precision;
  const std::int64_t psi = in.parameters;
  const Sharding s = o.strategy;
  // Ranks a state is sharded over: all of them, or HYBRID_SHARD's node-local shard group
  // (FSDP pytorch-ddp.md s. 3.1: FULL_SHARD inside a node, replicated across nodes).
  const std::int64_t n = s == Sharding::FsdpHybridShard ? std::min(o.ranks_per_node, in.world_size) : in.world_size;
  const bool shard_opt = s != Sharding::Ddp;
  const bool shard_grad = s != Sharding::Ddp && s != Sharding::Zero1;
  const bool shard_param = shard_grad && s != Sharding::Zero2;

  // ZeRO paper Fig. 1 (pytorch-ddp.md s. 3.2): baseline (2+2+K)Ψ; P_os 4Ψ + KΨ/N_d;
  // P_os+g 2Ψ + (2+K)Ψ/N_d; P_os+g+p (2+2+K)Ψ/N_d, with 2, 2, K = p.param/grad/optimizer_bytes.
  MemoryEstimate e;
  e.parameters = Bytes{(shard_param ? shard_of(psi, n) : psi) * p.param_bytes};
  e.gradients = Bytes{(shard_grad ? shard_of(psi, n) : psi) * p.grad_bytes};
  e.optimizer = Bytes{(shard_opt ? shard_of(psi, n) : psi) * p.optimizer_bytes};
  // ZeRO-Offload keeps the optimizer state (master weights and moments) in host memory.
  if (o.offload_optimizer) e.optimizer = Bytes{};

  if (s == Sharding::Ddp) {
    // DDP allocates one flat bucket tensor per bucket, together covering every gradient
    // (pytorch-ddp.md s. 1.4), whatever the bucket cap: a second gradient copy, which
    // gradient_as_bucket_view removes (the .grad tensors become views into the buckets).
    e.buckets = in.gradient_as_bucket_view ? Bytes{} : Bytes{psi * p.grad_bytes};
  } else if (s == Sharding::Zero1 || s == Sharding::Zero2) {
    // DeepSpeed stage 1/2 reduce gradients through a constant-size buffer of
    // reduce_bucket_size (ZeRO paper s. 6.2 "constant size buffers"), capped by the gradients.
    e.buckets = Bytes{std::clamp<std::int64_t>(o.reduce_bucket_bytes.count, 0, psi * p.grad_bytes)};
  }

  if (shard_param) {
    // A unit's gradients exist unsharded from its backward until its reduce-scatter ends.
    const std::int64_t unit_elements = in.largest_unit.count / p.param_bytes;
    const std::int64_t unit_grads = unit_elements * p.grad_bytes;
    if (s == Sharding::FsdpShardGradOp) {
      // SHARD_GRAD_OP all-gathers once before forward and keeps every unit unsharded until
      // its backward ends: at the start of backward the whole model is unsharded.
      e.unsharded = Bytes{psi * p.param_bytes + unit_grads};
    } else {
      // FULL_SHARD / ZeRO-3: the unit computing plus the one prefetched ("peak = current
      // params + next params + current grads", FSDP BackwardPrefetch docs); the rate
      // limiter caps the gathered units at all_gather_limit (0 = no limiter: the one-ahead
      // prefetch still holds 2; a CPU running further ahead is not modelled).
      const std::int64_t alive = o.all_gather_limit > 0 ? o.all_gather_limit : 2;
      e.unsharded = Bytes{alive * in.largest_unit.count + unit_grads};
    }
  }

  e.activations = in.activations;
  e.total = e.parameters + e.gradients + e.optimizer + e.buckets + e.unsharded + e.activations;
  e.capacity = in.capacity;
  if (in.capacity.count > 0) {
    e.margin_bytes = in.capacity.count - e.total.count;
    e.fits = e.margin_bytes >= 0;
  }
  return e;
}

Bytes activation_bytes(const Workload& w, int micro_batch, bool checkpointing) {
  if (micro_batch < 1) throw ConfigError(w.source, "micro_batch", std::to_string(micro_batch), "at least 1");
  std::int64_t per_sample = 0;
  if (!checkpointing) {
    per_sample = w.activation_bytes_per_sample().count;
  } else {
    // Checkpointed blocks (runs of consecutive layers sharing a block prefix) keep only
    // their input (the first layer's checkpoint bytes); the block being recomputed in
    // backward holds its full activations again, so add the largest block's. Layers
    // outside every block are not checkpointed and keep their activations.
    std::int64_t largest_block = 0;
    std::size_t i = 0;
    while (i < w.layers.size()) {
      const std::string_view prefix = block_prefix(w.layers[i].name);
      if (prefix.empty()) {
        per_sample += w.layers[i].activation_bytes_per_sample.count;
        ++i;
        continue;
      }
      per_sample += w.layers[i].checkpoint_bytes_per_sample.count;
      std::int64_t block = 0;
      for (; i < w.layers.size() && block_prefix(w.layers[i].name) == prefix; ++i) {
        block += w.layers[i].activation_bytes_per_sample.count;
      }
      largest_block = std::max(largest_block, block);
    }
    per_sample += largest_block;
  }
  return Bytes{per_sample * micro_batch};
}

}  // namespace collsim
