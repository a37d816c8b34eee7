// NCCL's knobs on the command line, by their names: --nccl-env "NCCL_ALGO=Ring
// NCCL_MIN_NCHANNELS=24 ...", or one option each (--nccl-algo, --nccl-proto,
// --min-channels, --max-channels, --nvls on|off, --cross-nic 0|1|2). Every command that
// runs a collective takes them (collective, ddp, sweep, validate, llm, topo nccl).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "sim/coll/nccl_env.hpp"

namespace collsim {

struct NcclKnobArgs {
  std::string env;
  std::string algo;
  std::string proto;
  int min_channels = -1;
  int max_channels = -1;
  std::string nvls;
  int cross_nic = -1;
};

void add_nccl_knob_options(CLI::App* cmd, NcclKnobArgs& a);

// Every knob parsed and merged (the single options over --nccl-env; the same knob twice
// with different values is an error). NCCL_ALGO and NCCL_PROTO replace `algo` and
// `protocol`, which must then be "auto" (given both ways is an error). Throws ConfigError
// naming the option, variable, value and what was expected.
[[nodiscard]] NcclEnv resolve_nccl_knobs(const NcclKnobArgs& a, std::string& algo, std::string& protocol);

}  // namespace collsim
