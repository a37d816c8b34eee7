#include "sim/cli/nccl_options.hpp"

#include <fmt/format.h>

#include "sim/coll/selection.hpp"
#include "sim/core/error.hpp"
#include "sim/core/text.hpp"

namespace collsim {

void add_nccl_knob_options(CLI::App* cmd, NcclKnobArgs& a) {
  cmd->add_option("--nccl-env", a.env,
                  "NCCL environment as on a real run: \"NCCL_ALGO=Ring NCCL_PROTO=Simple NCCL_MIN_NCHANNELS=24 "
                  "NCCL_MAX_NCHANNELS=8 NCCL_NVLS_ENABLE=0 NCCL_CROSS_NIC=1\"");
  cmd->add_option("--nccl-algo", a.algo, "NCCL_ALGO: Ring, Tree, NVLS, CollNet, a list or ^list (replaces --algo)");
  cmd->add_option("--nccl-proto", a.proto, "NCCL_PROTO: LL, LL128, Simple, a list or ^list (replaces --protocol)");
  cmd->add_option("--min-channels", a.min_channels,
                  "NCCL_MIN_NCHANNELS: run at least this many channels (copies of the searched ones), 0 to 64");
  cmd->add_option("--max-channels", a.max_channels, "NCCL_MAX_NCHANNELS: run at most this many channels, 1 to 64");
  cmd->add_option("--nvls", a.nvls, "NCCL_NVLS_ENABLE: on or off (on: where the system supports it)");
  cmd->add_option("--cross-nic", a.cross_nic,
                  "NCCL_CROSS_NIC: 0 a channel leaves a host by the NIC it entered by, 1 by any NIC, 2 (default) 0 "
                  "then 1");
}

NcclEnv resolve_nccl_knobs(const NcclKnobArgs& a, std::string& algo, std::string& protocol) {
  NcclEnv env = parse_nccl_env(a.env, "--nccl-env");
  NcclEnv single;
  if (!a.algo.empty()) single.algo = nccl_algo_list(a.algo, "--nccl-algo");
  if (!a.proto.empty()) single.proto = nccl_proto_list(a.proto, "--nccl-proto");
  // The numeric options go through the variable's own parser (its range, its message).
  if (a.min_channels != -1) set_nccl_variable(single, "NCCL_MIN_NCHANNELS", std::to_string(a.min_channels), "--min-channels");
  if (a.max_channels != -1) set_nccl_variable(single, "NCCL_MAX_NCHANNELS", std::to_string(a.max_channels), "--max-channels");
  if (!a.nvls.empty()) {
    if (a.nvls != "on" && a.nvls != "off") throw ConfigError("--nvls", "", in_quotes(a.nvls), "on or off");
    single.nvls = a.nvls == "on";
  }
  if (a.cross_nic != -1) set_nccl_variable(single, "NCCL_CROSS_NIC", std::to_string(a.cross_nic), "--cross-nic");
  env = merge_nccl_env(env, single, "--nccl-env");
  if (env.algo) {
    if (!is_auto(algo)) {
      throw ConfigError("--algo", "", in_quotes(algo), fmt::format("auto beside NCCL_ALGO={} (give one of them)", *env.algo));
    }
    algo = *env.algo;
  }
  if (env.proto) {
    if (!is_auto(protocol)) {
      throw ConfigError("--protocol", "", in_quotes(protocol),
                        fmt::format("auto beside NCCL_PROTO={} (give one of them)", *env.proto));
    }
    protocol = *env.proto;
  }
  return env;
}

}  // namespace collsim
