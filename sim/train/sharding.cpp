#include "sim/train/sharding.hpp"

#include <array>

namespace collsim {

namespace {
struct ShardingName {
  Sharding sharding;
  std::string_view name;
};
constexpr std::array<ShardingName, 7> kNames{{{Sharding::Ddp, "ddp"},
                                              {Sharding::Zero1, "zero1"},
                                              {Sharding::Zero2, "zero2"},
                                              {Sharding::Zero3, "zero3"},
                                              {Sharding::FsdpFullShard, "fsdp_full_shard"},
                                              {Sharding::FsdpShardGradOp, "fsdp_shard_grad_op"},
                                              {Sharding::FsdpHybridShard, "fsdp_hybrid_shard"}}};
}  // namespace

std::string_view to_string(Sharding s) { return kNames[static_cast<std::size_t>(s)].name; }

std::optional<Sharding> sharding_from(std::string_view s) {
  for (const auto& n : kNames) {
    if (n.name == s) return n.sharding;
  }
  return std::nullopt;
}

std::vector<std::string> sharding_names() {
  std::vector<std::string> out;
  for (const auto& n : kNames) out.emplace_back(n.name);
  return out;
}

// ZeRO paper s. 3.1: fp16 parameters and gradients, fp32 master parameters, momentum and
// variance (4 + 4 + 4 = K = 12 bytes per element).
StatePrecision adam_mixed_precision() { return {2, 2, 12}; }
// fp32 training with Adam: parameters and gradients 4 bytes, momentum and variance 4 each.
StatePrecision adam_fp32() { return {4, 4, 8}; }
// fp32 SGD with momentum: one momentum buffer.
StatePrecision sgd_momentum_fp32() { return {4, 4, 4}; }

}  // namespace collsim
