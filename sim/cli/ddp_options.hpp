// Options shared by `collsim ddp` and `collsim sweep`: the DDP settings (buckets, hooks,
// backend, overlap), the device and the collective algorithm, and their validation.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/cli/nccl_options.hpp"
#include "sim/coll/calibration.hpp"
#include "sim/coll/comm_spec.hpp"
#include "sim/topo/topology.hpp"
#include "sim/train/ddp_timeline.hpp"

namespace collsim::cli {

struct DdpArgs {
  std::string workload;
  std::string device;
  std::optional<double> efficiency;
  std::string compute_precision;  // empty: the workload's compute.precision
  std::string algo = "auto";
  std::string protocol = "auto";
  NcclKnobArgs nccl;  // NCCL's knobs (nccl_options.hpp)
  std::string backend = "nccl";
  double first_bucket_mb = 1;
  bool gradient_as_bucket_view = false;
  bool no_overlap = false;
  int accumulate = 1;
  std::string hook = "none";
  std::string iteration = "steady";
  bool find_unused_parameters = false;
  std::string graph_walk = "0s";
  bool static_graph = false;
  bool no_broadcast_buffers = false;
  std::optional<double> comm_slowdown;  // unset: 0, or a --calibration file's "ddp" section
  std::string launch_overhead;    // per kernel; empty: the device's default (host_costs.hpp)
  std::string collective_launch;  // per collective; empty: the NCCL model's launch_overhead
  bool cuda_graph = false;
};

// Registers the shared options on `cmd`.
void add_ddp_options(CLI::App* cmd, DdpArgs& a);

// Checks the step's unused parameters (unused_parameters) up front; ConfigError names the
// flag that would fix it (--find-unused-parameters, --static-graph, --iteration) and the
// workload.
void check_unused_parameters(const DdpArgs& a, const Workload& w, const DdpOptions& o);

// Validated DdpOptions (bucket cap set by the caller); ConfigError names the flag.
[[nodiscard]] DdpOptions make_ddp_options(const DdpArgs& a);
// Checks --algo against the registry.
void check_algorithm(const std::string& algo);
// --algo and --protocol as a CommSpec (priced with the calibration's protocol constants if
// it has any, then the NCCL knobs), checked for all-reduce; ConfigError names the flag.
// "auto" is resolved later, per topology and backend (resolve_comm_spec).
[[nodiscard]] CommSpec comm_spec_option(const DdpArgs& a, const std::optional<Calibration>& cal = std::nullopt);
// A bucket_cap_mb value (MiB, may be fractional) to bytes as PyTorch does
// (bucket_cap_from_mb: int(mb * 1024 * 1024)), checked as bytes: at least 1 B, at most
// kMaxBucketMb MiB; nullopt outside. bucket_cap_option throws ConfigError naming `flag`.
inline constexpr double kMaxBucketMb = 1e7;
inline constexpr std::string_view kExpectedBucketMb = "a size in MiB > 0 (e.g. 25)";
[[nodiscard]] std::optional<Bytes> bucket_cap_bytes(double mb);
[[nodiscard]] Bytes bucket_cap_option(const std::string& flag, double mb);
// The same check while the command line is parsed (a --bucket-mb style option).
[[nodiscard]] CLI::Validator bucket_mb_check();
// --accumulate's upper bound: each micro-step is simulated task by task.
inline constexpr int kMaxAccumulate = 1000;
// The workload named by --workload (a file or a shipped name).
[[nodiscard]] Workload load_workload_option(const std::string& name);
// The host's launch costs for `cm`'s device (default_host_costs) with --launch-overhead,
// --collective-launch and --cuda-graph applied; NCCL's collectives launch in the comm
// spec's ProtocolModel::launch_overhead, Gloo's in one kernel launch. ConfigError names
// the flag (--cuda-graph on a device outside the GPU catalogue).
[[nodiscard]] HostCosts host_costs_option(const DdpArgs& a, const ComputeModel& cm, const CommSpec& comm);
// Whether each NCCL collective slows compute by its own SM and HBM share
// (interference.hpp): NCCL on a GPU of the catalogue, unless a uniform slowdown is given
// (--comm-slowdown, or `calibrated`: a --calibration file's "ddp" section).
[[nodiscard]] bool interference_applies(const DdpArgs& a, const ComputeModel& cm, bool calibrated);
// --device, or the GPU model of the topology's first rank.
[[nodiscard]] ComputeModel compute_model_option(const DdpArgs& a, const Workload& w, const Topology& t);

}  // namespace collsim::cli
