#include "sim/plan/plan_fields.hpp"

#include <array>

#include <fmt/format.h>

namespace collsim {

namespace {

enum class Owner : std::uint8_t { Candidate, Strategy };

struct FieldKey {
  std::string_view field;  // of DdpOptions, ShardingOptions, CommSpec or simulate_sharded
  Owner owner;
  std::string_view key;    // in the candidate's or the strategy's object
};

constexpr std::array<FieldKey, 13> kKeys{{
    {"accumulate", Owner::Strategy, "accumulate"},
    {"bucket_cap", Owner::Strategy, "bucket_mb"},
    {"sharding", Owner::Strategy, "kind"},
    {"precision", Owner::Strategy, "precision"},
    {"reduce_bucket_bytes", Owner::Strategy, "reduce_bucket_mb"},
    {"min_unit_params", Owner::Strategy, "min_unit_params"},
    {"all_gather_limit", Owner::Strategy, "limit_all_gathers"},
    {"backward_prefetch", Owner::Strategy, "backward_prefetch"},
    {"offload_optimizer", Owner::Strategy, "offload_optimizer"},
    {"world_size", Owner::Candidate, "world_sizes"},
    {"ranks_per_node", Owner::Candidate, "topology"},  // a node is one host of the candidate's topology
    {"algorithms", Owner::Candidate, "algorithm"},
    {"protocols", Owner::Candidate, "protocol"},
}};

}  // namespace

std::optional<std::string> plan_field_pointer(std::string_view field, std::size_t candidate, std::size_t strategy) {
  for (const auto& k : kKeys) {
    if (k.field != field) continue;
    return k.owner == Owner::Candidate ? fmt::format("/candidates/{}/{}", candidate, k.key)
                                       : fmt::format("/strategies/{}/{}", strategy, k.key);
  }
  return std::nullopt;
}

ConfigError in_plan(const ConfigError& e, const std::string& source, std::size_t candidate, std::size_t strategy) {
  if (!e.source().empty()) return e;
  const auto pointer = plan_field_pointer(e.field(), candidate, strategy);
  if (!pointer) return e;
  return ConfigError(source, *pointer, e.value(), e.expected());
}

}  // namespace collsim
