#include "sim/cli/ddp_options.hpp"

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/selection.hpp"
#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/train/workload_path.hpp"

namespace collsim::cli {

void add_ddp_options(CLI::App* cmd, DdpArgs& a) {
  cmd->add_option("--workload", a.workload, "Workload JSON file, or a shipped name: resnet50, bert-base, bert-large, gpt2-medium")
      ->required();
  cmd->add_option("--device", a.device, "GPU for compute: V100, A100, H100, H200, B200 (default: the topology's GPU model)");
  cmd->add_option("--efficiency", a.efficiency, "Fraction of peak FLOP/s layers reach (default: the workload's)");
  cmd->add_option("--algo", a.algo,
                  "Algorithm for the step's collectives: a name, a list, ^list or auto (NCCL's choice per collective; "
                  "ring with --backend gloo or CPU ranks)")
      ->capture_default_str();
  cmd->add_option("--protocol", a.protocol,
                  "Protocol: ideal (alpha-beta), ll, ll128, simple, a list or auto (NCCL's choice per size; ideal with "
                  "--backend gloo or CPU ranks)")
      ->capture_default_str();
  cmd->add_option("--backend", a.backend, "nccl (one collective at a time) or gloo (two at once)")->capture_default_str();
  cmd->add_option("--first-bucket-mb", a.first_bucket_mb, "Cap of the first rebuilt bucket, MiB")->capture_default_str();
  cmd->add_flag("--gradient-as-bucket-view", a.gradient_as_bucket_view, "Grads are bucket views: no copy-out");
  cmd->add_flag("--no-overlap", a.no_overlap, "Launch every all-reduce only after backward ends");
  cmd->add_option("--accumulate", a.accumulate, "K: K-1 no_sync micro-steps, then one synced")->capture_default_str();
  cmd->add_option("--hook", a.hook, "Comm hook: none, fp16, bf16, powersgd:R")->capture_default_str();
  cmd->add_option("--iteration", a.iteration, "0 (construction buckets) or steady (rebuilt buckets)")->capture_default_str();
  cmd->add_flag("--find-unused-parameters", a.find_unused_parameters, "DDP find_unused_parameters=True");
  cmd->add_option("--graph-walk", a.graph_walk, "CPU cost of the find_unused_parameters graph walk per step")
      ->capture_default_str();
  cmd->add_flag("--static-graph", a.static_graph, "DDP static_graph=True");
  cmd->add_flag("--no-broadcast-buffers", a.no_broadcast_buffers, "DDP broadcast_buffers=False");
  cmd->add_option("--comm-slowdown", a.comm_slowdown,
                  "Compute runs at 1/(1+S) speed while a collective runs (default 0, or the --calibration file's \"ddp\" section)");
}

void check_algorithm(const std::string& algo) {
  if (!is_algorithm(algo) || !supports(algo, CollectiveOp::AllReduce)) {
    throw ConfigError("--algo", "", fmt::format("\"{}\"", algo),
                      fmt::format("an all-reduce algorithm, one of: {}", fmt::join(algorithm_names(), ", ")));
  }
}

CommSpec comm_spec_option(const DdpArgs& a, const std::optional<ProtocolModel>& model) {
  CommSpec spec;
  spec.algorithms = a.algo;
  spec.protocols = a.protocol;
  if (model) spec.model = *model;
  try {
    (void)parse_protocol_list(a.protocol);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("--protocol", "", fmt::format("\"{}\"", a.protocol),
                      fmt::format("ideal, ll, ll128, simple, a list, ^list or auto ({})", e.what()));
  }
  try {
    check_comm_spec(spec, CollectiveOp::AllReduce);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("--algo", "", fmt::format("\"{}\"", a.algo), e.what());
  }
  return spec;
}

Bytes bucket_cap_option(const std::string& flag, double mb) {
  if (!(mb > 0) || mb > 1e7) throw ConfigError(flag, "", fmt::format("{}", mb), "a size in MiB > 0 (e.g. 25)");
  return bucket_cap_from_mb(mb);
}

DdpOptions make_ddp_options(const DdpArgs& a) {
  DdpOptions o;
  o.buckets.first_bucket_cap = bucket_cap_option("--first-bucket-mb", a.first_bucket_mb);
  o.buckets.find_unused_parameters = a.find_unused_parameters;
  o.buckets.static_graph = a.static_graph;
  o.gradient_as_bucket_view = a.gradient_as_bucket_view;
  o.overlap = !a.no_overlap;
  // Each micro-step is simulated task by task: keep the program to a sane size.
  if (a.accumulate < 1 || a.accumulate > 1000) {
    throw ConfigError("--accumulate", "", std::to_string(a.accumulate), "a micro-step count from 1 to 1000");
  }
  o.accumulate = a.accumulate;
  if (a.hook == "none") {
    o.hook = CommHook::None;
  } else if (a.hook == "fp16") {
    o.hook = CommHook::Fp16;
  } else if (a.hook == "bf16") {
    o.hook = CommHook::Bf16;
  } else if (a.hook.starts_with("powersgd:")) {
    o.hook = CommHook::PowerSgd;
    const std::string r = a.hook.substr(9);
    if (r.empty() || r.size() > 6 || r.find_first_not_of("0123456789") != std::string::npos || std::stoi(r) < 1) {
      throw ConfigError("--hook", "", fmt::format("\"{}\"", a.hook), "powersgd:R with a rank R >= 1 (e.g. powersgd:4)");
    }
    o.powersgd_rank = std::stoi(r);
  } else {
    throw ConfigError("--hook", "", fmt::format("\"{}\"", a.hook), "one of: none, fp16, bf16, powersgd:R");
  }
  if (a.iteration != "0" && a.iteration != "steady") {
    throw ConfigError("--iteration", "", fmt::format("\"{}\"", a.iteration), "0 or steady");
  }
  o.first_iteration = a.iteration == "0";
  try {
    o.graph_walk = parse_time(a.graph_walk, kMaxTaskTime);
  } catch (const UnitError& e) {
    throw ConfigError("--graph-walk", "", e.value(), e.expected());
  }
  o.broadcast_buffers = !a.no_broadcast_buffers;
  if (a.backend == "nccl") {
    o.backend = DdpBackend::Nccl;
  } else if (a.backend == "gloo") {
    o.backend = DdpBackend::Gloo;
  } else {
    throw ConfigError("--backend", "", fmt::format("\"{}\"", a.backend), "nccl or gloo");
  }
  const double slowdown = a.comm_slowdown.value_or(0.0);
  if (!(slowdown >= 0) || slowdown > 100) {
    throw ConfigError("--comm-slowdown", "", fmt::format("{}", slowdown), "a slowdown from 0 to 100 (0.1 = 10 % slower)");
  }
  o.compute_slowdown = slowdown;
  return o;
}

Workload load_workload_option(const std::string& name) { return load_workload_file(resolve_workload_path(name)); }

ComputeModel compute_model_option(const DdpArgs& a, const Workload& w, const Topology& t) {
  std::string name = a.device;
  if (name.empty() && !t.ranks.empty()) name = t.nodes[t.ranks.front()].model;
  if (name.empty()) {
    throw ConfigError("--device", "", "missing", fmt::format("a GPU ({}); the topology names no GPU model",
                                                             fmt::join(device_names(), ", ")));
  }
  const auto d = find_device(name);
  if (!d) {
    throw ConfigError(a.device.empty() ? t.source : "--device", a.device.empty() ? "GPU model" : "",
                      fmt::format("\"{}\"", name), fmt::format("one of: {}", fmt::join(device_names(), ", ")));
  }
  ComputeModel cm = make_compute_model(w, *d);
  if (a.efficiency) {
    if (!(*a.efficiency > 0) || *a.efficiency > 1) {
      throw ConfigError("--efficiency", "", fmt::format("{}", *a.efficiency), "a fraction in (0, 1]");
    }
    cm.efficiency = *a.efficiency;
  }
  return cm;
}

}  // namespace collsim::cli
