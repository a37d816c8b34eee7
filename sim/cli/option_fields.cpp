#include "sim/cli/option_fields.hpp"

#include <array>
#include <utility>

namespace collsim::cli {

namespace {

// Field of DdpOptions, ShardingOptions, CommSpec, StragglerSpec, simulate_elastic, simulate_sharded's
// arguments or the calibration fit -> the flag of `collsim ddp`, `sweep` or `validate` that sets it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 19> kFlags{{
    {"accumulate", "--accumulate"},
    {"hook", "--hook"},
    {"bucket_cap", "--bucket-mb"},
    {"first_bucket_cap", "--first-bucket-mb"},
    {"sharding", "--sharding"},
    {"world_size", "--ranks"},
    {"all_gather_limit", "--all-gather-limit"},
    {"precision", "--precision"},
    {"reduce_bucket_bytes", "--reduce-bucket-mb"},
    {"min_unit_params", "--min-unit-params"},
    {"ranks_per_node", "--ranks-per-node"},
    {"backward_prefetch", "--backward-prefetch"},
    {"algorithms", "--algo"},
    {"protocols", "--protocol"},
    {"measurements", "--measured"},
    {"speeds", "--rank-speed"},
    {"jitter_sigma", "--jitter"},
    {"steps", "--steps"},
    {"membership", "--membership"},
}};

}  // namespace

std::optional<std::string_view> flag_for_field(std::string_view field) {
  for (const auto& [f, flag] : kFlags) {
    if (f == field) return flag;
  }
  return std::nullopt;
}

ConfigError with_flag(const ConfigError& e) {
  if (!e.source().empty()) return e;
  const auto flag = flag_for_field(e.field());
  if (!flag) return e;
  return ConfigError(std::string(*flag), "", e.value(), e.expected());
}

}  // namespace collsim::cli
