#include "sim/train/sharding.hpp"

#include "sim/core/name_table.hpp"

namespace collsim {

namespace {

constexpr auto kShardingNames = name_table<Sharding>({{Sharding::Ddp, "ddp"},
                                                      {Sharding::Zero1, "zero1"},
                                                      {Sharding::Zero2, "zero2"},
                                                      {Sharding::Zero3, "zero3"},
                                                      {Sharding::FsdpFullShard, "fsdp_full_shard"},
                                                      {Sharding::FsdpShardGradOp, "fsdp_shard_grad_op"},
                                                      {Sharding::FsdpHybridShard, "fsdp_hybrid_shard"}});

constexpr auto kFsdpNames = name_table<Sharding>({{Sharding::FsdpFullShard, "full_shard"},
                                                  {Sharding::FsdpShardGradOp, "shard_grad_op"},
                                                  {Sharding::FsdpHybridShard, "hybrid_shard"}});

constexpr auto kPrefetchNames = name_table<BackwardPrefetch>(
    {{BackwardPrefetch::Pre, "pre"}, {BackwardPrefetch::Post, "post"}, {BackwardPrefetch::None, "none"}});

constexpr auto kPrecisionNames = name_table<PrecisionPreset>({{PrecisionPreset::AdamMixed, "adam_mixed"},
                                                              {PrecisionPreset::AdamFp32, "adam_fp32"},
                                                              {PrecisionPreset::SgdMomentumFp32, "sgd_momentum_fp32"}});
// The spellings `collsim ddp --precision` took before plan files existed.
constexpr auto kPrecisionAliases = name_table<PrecisionPreset>({{PrecisionPreset::AdamMixed, "adam-mixed"},
                                                                {PrecisionPreset::AdamFp32, "adam-fp32"},
                                                                {PrecisionPreset::SgdMomentumFp32, "sgd-fp32"}});

}  // namespace

std::string_view to_string(Sharding s) { return kShardingNames.name(s); }
std::optional<Sharding> sharding_from(std::string_view s) { return kShardingNames.parse(s); }
std::vector<std::string> sharding_names() { return kShardingNames.names(); }

std::optional<Sharding> fsdp_sharding_from(std::string_view s) { return kFsdpNames.parse(s); }
std::vector<std::string> fsdp_sharding_names() { return kFsdpNames.names(); }

std::string_view to_string(BackwardPrefetch p) { return kPrefetchNames.name(p); }
std::optional<BackwardPrefetch> backward_prefetch_from(std::string_view s) { return kPrefetchNames.parse(s); }
std::vector<std::string> backward_prefetch_names() { return kPrefetchNames.names(); }

std::string_view to_string(PrecisionPreset p) { return kPrecisionNames.name(p); }
std::optional<PrecisionPreset> precision_preset_from(std::string_view s) {
  if (auto p = kPrecisionNames.parse(s)) return p;
  return kPrecisionAliases.parse(s);
}
std::vector<std::string> precision_preset_names() { return kPrecisionNames.names(); }

StatePrecision state_precision(PrecisionPreset p) {
  switch (p) {
    case PrecisionPreset::AdamMixed: return adam_mixed_precision();
    case PrecisionPreset::AdamFp32: return adam_fp32();
    case PrecisionPreset::SgdMomentumFp32: return sgd_momentum_fp32();
  }
  return adam_mixed_precision();
}

// ZeRO paper s. 3.1: fp16 parameters and gradients, fp32 master parameters, momentum and
// variance (4 + 4 + 4 = K = 12 bytes per element).
StatePrecision adam_mixed_precision() { return {2, 2, 12}; }
// fp32 training with Adam: parameters and gradients 4 bytes, momentum and variance 4 each.
StatePrecision adam_fp32() { return {4, 4, 8}; }
// fp32 SGD with momentum: one momentum buffer.
StatePrecision sgd_momentum_fp32() { return {4, 4, 4}; }

}  // namespace collsim
