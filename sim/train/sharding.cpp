#include "sim/train/sharding.hpp"

#include "sim/core/name_table.hpp"

namespace collsim {

namespace {

constexpr auto kFsdpNames = name_table<Sharding>({{Sharding::FsdpFullShard, "full_shard"},
                                                  {Sharding::FsdpShardGradOp, "shard_grad_op"},
                                                  {Sharding::FsdpHybridShard, "hybrid_shard"}});

// The spellings `collsim ddp --precision` took before plan files existed.
constexpr auto kPrecisionAliases = name_table<PrecisionPreset>({{PrecisionPreset::AdamMixed, "adam-mixed"},
                                                                {PrecisionPreset::AdamFp32, "adam-fp32"},
                                                                {PrecisionPreset::SgdMomentumFp32, "sgd-fp32"}});

}  // namespace

std::optional<Sharding> fsdp_sharding_from(std::string_view s) { return kFsdpNames.parse(s); }
std::vector<std::string> fsdp_sharding_names() { return kFsdpNames.names(); }

std::optional<PrecisionPreset> precision_preset_from(std::string_view s) {
  if (auto p = enum_from<PrecisionPreset>(s)) return p;
  return kPrecisionAliases.parse(s);
}

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
