#include "sim/cli/ddp_options.hpp"

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/selection.hpp"
#include "sim/core/error.hpp"
#include "sim/cli/validators.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/train/ddp_names.hpp"
#include "sim/train/workload_path.hpp"

namespace collsim::cli {

void add_ddp_options(CLI::App* cmd, DdpArgs& a) {
  cmd->add_option("--workload", a.workload, "Workload JSON file, or a shipped name: resnet50, bert-base, bert-large, gpt2-medium")
      ->required();
  cmd->add_option("--device", a.device, "GPU for compute: V100, A100, H100, H200, B200 (default: the topology's GPU model)");
  cmd->add_option("--efficiency", a.efficiency, "Fraction of peak FLOP/s layers reach (default: the workload's)")
      ->check(number_range(0, 1, true, "a fraction in (0, 1]"));
  cmd->add_option("--compute-precision", a.compute_precision,
                  "Precision of the layers' FLOPs: fp32, tf32, fp16 or bf16 (default: the workload's; mixed precision on "
                  "V100 is fp16, its bf16 runs at the fp32 rate)")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  cmd->add_option("--algo", a.algo,
                  "Algorithm for the step's collectives: a name, a list, ^list or auto (NCCL's choice per collective; "
                  "ring with --backend gloo or CPU ranks)")
      ->capture_default_str();
  cmd->add_option("--protocol", a.protocol,
                  "Protocol: ideal (alpha-beta), ll, ll128, simple, a list or auto (NCCL's choice per size; ideal with "
                  "--backend gloo or CPU ranks)")
      ->capture_default_str();
  add_nccl_knob_options(cmd, a.nccl);
  cmd->add_option("--backend", a.backend, "nccl (one collective at a time) or gloo (two at once)")
      ->check(CLI::IsMember(enum_names<DdpBackend>()))
      ->capture_default_str();
  cmd->add_option("--first-bucket-mb", a.first_bucket_mb, "Cap of the first rebuilt bucket, MiB")
      ->check(bucket_mb_check())
      ->capture_default_str();
  cmd->add_flag("--gradient-as-bucket-view", a.gradient_as_bucket_view, "Grads are bucket views: no copy-out");
  cmd->add_flag("--no-overlap", a.no_overlap, "Launch every all-reduce only after backward ends");
  // Each micro-step is simulated task by task: keep the program to a sane size.
  cmd->add_option("--accumulate", a.accumulate, "K: K-1 no_sync micro-steps, then one synced")
      ->check(CLI::Range(1, kMaxAccumulate))
      ->capture_default_str();
  cmd->add_option("--hook", a.hook, "Comm hook: none, fp16, bf16, powersgd:R, onebit:W (W full-precision warm-up steps)")
      ->check(vocabulary([](std::string_view s) { return comm_hook_from(s).has_value(); }, std::string(kExpectedCommHook)))
      ->capture_default_str();
  cmd->add_option("--iteration", a.iteration,
                  "0 (construction buckets), steady (rebuilt buckets; step 1) or a step number N >= 1 (rebuilt buckets, "
                  "the parameters the workload marks unused in step N)")
      ->check(vocabulary([](std::string_view s) { return iteration_step(s).has_value(); }, std::string(kExpectedIteration)))
      ->capture_default_str();
  cmd->add_flag("--find-unused-parameters", a.find_unused_parameters, "DDP find_unused_parameters=True");
  cmd->add_option("--graph-walk", a.graph_walk, "CPU cost of the find_unused_parameters graph walk per step")
      ->capture_default_str();
  cmd->add_flag("--static-graph", a.static_graph, "DDP static_graph=True");
  cmd->add_flag("--no-broadcast-buffers", a.no_broadcast_buffers, "DDP broadcast_buffers=False");
  cmd->add_option("--comm-slowdown", a.comm_slowdown,
                  "Compute runs at 1/(1+S) speed while any collective runs, replacing each NCCL collective's own SM and HBM "
                  "share (default: that share on a GPU, else 0; or the --calibration file's \"ddp\" section)")
      ->check(number_range(0, 100, false, "a slowdown from 0 to 100 (0.1 = 10 % slower)"));
  cmd->add_option("--launch-overhead", a.launch_overhead,
                  fmt::format("Host CPU time per kernel launch (layers, copies, optimizer), e.g. 4us (default: {} us on a GPU, "
                              "0 on CPU ranks)",
                              kKernelLaunchUs));
  cmd->add_option("--collective-launch", a.collective_launch,
                  "Host CPU time per collective launch, e.g. 5us (default: the NCCL model's launch_overhead; Gloo: "
                  "--launch-overhead)");
  cmd->add_flag("--cuda-graph", a.cuda_graph,
                "The step is a captured CUDA graph (static graph, NCCL): one graph launch replaces every kernel and "
                "collective launch");
}

namespace {

std::optional<Time> launch_flag(const char* flag, const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    return parse_time(text, kMaxLatency);
  } catch (const UnitError& e) {
    throw ConfigError(flag, "", e.value(), e.expected());
  }
}

}  // namespace

bool interference_applies(const DdpArgs& a, const ComputeModel& cm, bool calibrated) {
  return a.backend == "nccl" && !a.comm_slowdown && !calibrated && find_gpu(cm.device.name) != nullptr;
}

HostCosts host_costs_option(const DdpArgs& a, const ComputeModel& cm, const CommSpec& comm) {
  const bool nccl = a.backend == "nccl";
  HostCosts h = default_host_costs(cm.device, comm.model.launch_overhead);
  if (!nccl) h.collective_launch = h.kernel_launch;  // Gloo's enqueue: one kernel launch
  if (const auto k = launch_flag("--launch-overhead", a.launch_overhead)) {
    h.kernel_launch = *k;
    if (!nccl && a.collective_launch.empty()) h.collective_launch = *k;
  }
  if (const auto c = launch_flag("--collective-launch", a.collective_launch)) h.collective_launch = *c;
  if (a.cuda_graph && find_gpu(cm.device.name) == nullptr) {
    throw ConfigError("--cuda-graph", "", cm.device.name, "a GPU device (CUDA graphs capture GPU kernels)");
  }
  h.cuda_graph = a.cuda_graph;
  return h;
}

void check_unused_parameters(const DdpArgs& a, const Workload& w, const DdpOptions& o) {
  try {
    (void)unused_parameters(w, o);
  } catch (const ConfigError& e) {
    const std::string where = fmt::format(" (workload {})", a.workload);
    if (e.field() == "find_unused_parameters") throw ConfigError("--find-unused-parameters", "", "off", e.expected() + where);
    if (e.field() == "static_graph") throw ConfigError("--static-graph", "", "on", e.expected() + where);
    throw ConfigError("--iteration", "", a.iteration, e.expected() + where);
  }
}

void check_algorithm(const std::string& algo) {
  if (!is_algorithm(algo) || !supports(algo, CollectiveOp::AllReduce)) {
    throw ConfigError("--algo", "", in_quotes(algo),
                      fmt::format("an all-reduce algorithm, one of: {}", fmt::join(algorithm_names(), ", ")));
  }
}

CommSpec comm_spec_option(const DdpArgs& a, const std::optional<Calibration>& cal) {
  CommSpec spec;
  spec.algorithms = a.algo;
  spec.protocols = a.protocol;
  const NcclEnv env = resolve_nccl_knobs(a.nccl, spec.algorithms, spec.protocols);
  spec.model = calibrated_protocol_model(cal, env);
  try {
    (void)parse_protocol_list(spec.protocols);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("--protocol", "", in_quotes(spec.protocols),
                      fmt::format("ideal, ll, ll128, simple, a list, ^list or auto ({})", e.what()));
  }
  try {
    check_comm_spec(spec, CollectiveOp::AllReduce);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("--algo", "", in_quotes(spec.algorithms), e.what());
  }
  return spec;
}

std::optional<Bytes> bucket_cap_bytes(double mb) {
  if (!(mb > 0) || mb > kMaxBucketMb) return std::nullopt;  // in MiB first: the cast cannot overflow
  const Bytes cap = bucket_cap_from_mb(mb);
  if (cap < Bytes{1}) return std::nullopt;
  return cap;
}

CLI::Validator bucket_mb_check() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        char* end = nullptr;
        const double mb = std::strtod(input.c_str(), &end);
        if (!input.empty() && end == input.c_str() + input.size() && bucket_cap_bytes(mb)) return {};
        return fmt::format("got {}, expected {}", input, kExpectedBucketMb);
      },
      "");
}

Bytes bucket_cap_option(const std::string& flag, double mb) {
  const auto cap = bucket_cap_bytes(mb);
  if (!cap) throw ConfigError(flag, "", fmt::format("{}", mb), std::string(kExpectedBucketMb));
  return *cap;
}

DdpOptions make_ddp_options(const DdpArgs& a) {
  DdpOptions o;
  o.buckets.first_bucket_cap = bucket_cap_option("--first-bucket-mb", a.first_bucket_mb);
  o.buckets.find_unused_parameters = a.find_unused_parameters;
  o.buckets.static_graph = a.static_graph;
  o.gradient_as_bucket_view = a.gradient_as_bucket_view;
  o.overlap = !a.no_overlap;
  o.accumulate = a.accumulate;
  const auto hook = comm_hook_from(a.hook);  // checked while parsing (--hook's validator)
  if (!hook) throw ConfigError("--hook", "", in_quotes(a.hook), std::string(kExpectedCommHook));
  o.hook = hook->hook;
  o.powersgd_rank = hook->powersgd_rank;
  const auto step = iteration_step(a.iteration);  // checked while parsing
  if (!step) throw ConfigError("--iteration", "", in_quotes(a.iteration), std::string(kExpectedIteration));
  o.first_iteration = *step == 0;
  o.step = *step;
  try {
    o.graph_walk = parse_time(a.graph_walk, kMaxTaskTime);
  } catch (const UnitError& e) {
    throw ConfigError("--graph-walk", "", e.value(), e.expected());
  }
  o.broadcast_buffers = !a.no_broadcast_buffers;
  o.backend = enum_from<DdpBackend>(a.backend).value_or(DdpBackend::Nccl);  // checked while parsing
  o.compute_slowdown = a.comm_slowdown.value_or(0.0);
  o.host.cuda_graph = a.cuda_graph;
  try {
    check_cuda_graph(o);
  } catch (const ConfigError& e) {
    throw ConfigError("--cuda-graph", "", "", e.expected());
  }
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
                      in_quotes(name), fmt::format("one of: {}", fmt::join(device_names(), ", ")));
  }
  ComputeModel cm = make_compute_model(w, *d);
  if (a.efficiency) cm.efficiency = *a.efficiency;  // checked while parsing
  if (!a.compute_precision.empty()) cm.precision = a.compute_precision;
  return cm;
}

}  // namespace collsim::cli
