// NCCL's environment knobs, by their names, as a user would set them on a real run:
// NCCL_ALGO, NCCL_PROTO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS, NCCL_NVLS_ENABLE,
// NCCL_CROSS_NIC, NCCL_P2P_DISABLE, NCCL_P2P_LEVEL and NCCL_NET_GDR_LEVEL (NCCL's docs,
// "Environment Variables"; src/graph/connect.cc, tuning.cc, search.cc, paths.cc). A knob
// that is not set leaves NCCL's default.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/coll/nccl/channel_search.hpp"
#include "sim/coll/protocol_model.hpp"

namespace collsim {

struct NcclEnv {
  std::optional<std::string> algo;   // NCCL_ALGO, in collsim's names ("ring,tree", "^nvls")
  std::optional<std::string> proto;  // NCCL_PROTO, in collsim's names ("ll128,simple")
  std::optional<int> min_channels;   // NCCL_MIN_NCHANNELS
  std::optional<int> max_channels;   // NCCL_MAX_NCHANNELS
  std::optional<bool> nvls;          // NCCL_NVLS_ENABLE
  std::optional<int> cross_nic;      // NCCL_CROSS_NIC: 0, 1 or 2
  std::optional<bool> p2p_disable;   // NCCL_P2P_DISABLE (1: no P2P, over NVLink either)
  std::optional<PathType> p2p_level; // NCCL_P2P_LEVEL
  std::optional<PathType> gdr_level; // NCCL_NET_GDR_LEVEL

  [[nodiscard]] bool empty() const;
};

// Whether collsim models the variable `name` (one of the knobs above).
[[nodiscard]] bool is_nccl_knob(std::string_view name);

// Parses "NCCL_ALGO=Ring NCCL_MIN_NCHANNELS=24 ..." (whitespace-separated NAME=VALUE
// pairs). Throws ConfigError naming `option`, the variable, its value and what was
// expected: unknown variables, values out of range, a variable given twice.
[[nodiscard]] NcclEnv parse_nccl_env(std::string_view text, std::string_view option);

// Sets one variable (NCCL_MIN_NCHANNELS, ...) from its text as NCCL reads it; ConfigError
// naming `option`, the variable, the value and the range for a bad one.
void set_nccl_variable(NcclEnv& env, const std::string& name, std::string_view value, std::string_view option);

// One variable's value as NCCL reads it; `option` names where it came from in errors.
[[nodiscard]] std::string nccl_algo_list(std::string_view value, std::string_view option);
[[nodiscard]] std::string nccl_proto_list(std::string_view value, std::string_view option);

// `b` over `a`: a knob set in both must agree (else ConfigError naming `option`).
[[nodiscard]] NcclEnv merge_nccl_env(const NcclEnv& a, const NcclEnv& b, std::string_view option);

// Whether `env` sets the knob of the variable `name`.
[[nodiscard]] bool sets_knob(const NcclEnv& env, std::string_view name);

// `over` on top of `base`: each knob `over` sets replaces `base`'s (a command's knobs over
// the ones a log shows its run was launched with).
[[nodiscard]] NcclEnv overlay_nccl_env(const NcclEnv& base, const NcclEnv& over);

// The knobs a protocol model carries (channel counts, NVLS, cross-NIC, transports); NCCL_ALGO and
// NCCL_PROTO become the caller's candidate lists instead.
void apply_nccl_env(const NcclEnv& env, ProtocolModel& model);

// The channel search's options under the model's knobs (NCCL_CROSS_NIC, the transports).
[[nodiscard]] NcclSearchOptions nccl_search_options(const ProtocolModel& model);

// The channels NCCL runs after its search found `searched`: NCCL_MAX_NCHANNELS keeps the
// first ones, NCCL_MIN_NCHANNELS then copies them round robin (connect.cc).
[[nodiscard]] int nccl_run_channels(int searched, const ProtocolModel& model);

}  // namespace collsim
