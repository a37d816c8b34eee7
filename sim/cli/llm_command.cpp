// `collsim llm`: one optimizer step of a transformer under a TP x PP x DP layout on a
// topology (a cluster generator grows to the layout's GPU count), NCCL's collectives played
// by the flow engine for every process group.
#include <cmath>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/commands.hpp"
#include "sim/cli/nccl_options.hpp"
#include "sim/coll/comm_spec.hpp"
#include "sim/coll/group_collective_cost.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/coll/calibration.hpp"
#include "sim/report/llm_report.hpp"
#include "sim/report/llm_search_report.hpp"
#include "sim/report/llm_trace.hpp"
#include "sim/topo/loader.hpp"
#include "sim/train/device_catalogue.hpp"
#include "sim/train/host_link.hpp"
#include "sim/train/llm_model.hpp"
#include "sim/train/llm_search.hpp"

namespace collsim::cli {

namespace {

struct LlmArgs {
  std::string model, topology, format = "table", trace;
  int tp = 1, pp = 1;
  std::optional<int> dp;
  int virtual_stages = 1;
  std::optional<int> ep;
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 0;
  std::string schedule = "1f1b", recompute, offload = "none", order = "tp-dp-pp";
  std::string algorithms = "auto", protocols = "auto";
  NcclKnobArgs nccl;
  std::string calibration;
  bool sequence_parallel = false, distributed_optimizer = false, overlap_grad_reduce = false, overlap_offload = false;
  bool no_grad_accumulation_fusion = false;
  bool search = false, no_sequence_parallel = false, no_distributed_optimizer = false;
  std::optional<int> gpus;
  std::size_t top = 10;
  std::optional<double> price;
};

// The topology with at least `world` ranks: a cluster generator gets enough hosts, any
// other topology must have them; then cut to the first `world`, whole hosts only (the
// layouts' groups need the same ranks on every host). `world_flag` / `world_text`: the
// option that set `world`, for the error.
Topology topology_for(const std::string& option, int world, const char* world_flag, const std::string& world_text) {
  if (option.empty()) throw ConfigError("--topology", "", "(missing)", "a topology file or a shipped topology's name");
  const std::string path = resolve_shipped_file(option, "topologies");
  nlohmann::json doc = read_json_file(path);
  Topology t = load_topology_json(doc, path);
  const bool cluster = doc.is_object() && doc.contains("generator") && doc["generator"].is_object() &&
                       doc["generator"].value("kind", "") == "cluster" && doc["generator"].contains("hosts");
  if (t.rank_count() < world && cluster) {
    const int hosts = doc["generator"]["hosts"].get<int>();
    const int per_host = std::max(1, t.rank_count() / std::max(1, hosts));
    doc["generator"]["hosts"] = (world + per_host - 1) / per_host;
    t = load_topology_json(doc, path);
  }
  if (t.rank_count() < world) {
    throw ConfigError("--topology", "", path,
                      fmt::format("a topology with at least tp x pp x dp = {} ranks (it has {}), or a cluster generator", world,
                                  t.rank_count()));
  }
  const int per_host = ranks_per_node(t);
  if (world > per_host && world % per_host != 0) {
    throw ConfigError(world_flag, "", world_text,
                      fmt::format("a GPU count that fills whole hosts: up to {} or a multiple of it ({} has {} GPUs per host)",
                                  per_host, t.name, per_host));
  }
  t.ranks.resize(static_cast<std::size_t>(world));
  return t;
}

template <typename E>
E enum_option(const char* flag, const std::string& text) {
  if (const auto e = enum_from<E>(text)) return *e;
  throw ConfigError(flag, "", text, fmt::format("one of {}", fmt::join(enum_names<E>(), ", ")));
}

TransformerShape::Recompute recompute_option(const std::string& text) {
  return enum_option<TransformerShape::Recompute>("--recompute", text);
}

// The job's topology, device and collective costs for `world` GPUs.
struct LlmJob {
  Topology topo;
  DeviceSpec device;
  std::unique_ptr<LinkGraph> graph;
  CommSpec spec;
  std::unique_ptr<GroupCollectiveCost> cost;
  GroupsCostFn fn;
  int per_host = 1;
};

std::unique_ptr<LlmJob> llm_job(const LlmArgs& a, int world, const char* world_flag, const std::string& world_text) {
  auto job = std::make_unique<LlmJob>();
  std::string algorithms = a.algorithms, protocols = a.protocols;
  const NcclEnv env = resolve_nccl_knobs(a.nccl, algorithms, protocols);
  CommSpec spec{algorithms, protocols};
  job->topo = topology_for(a.topology, world, world_flag, world_text);
  // A calibration (validate --calibrate): its link classes on the topology, its NCCL
  // constants under the knobs.
  std::optional<Calibration> cal;
  if (!a.calibration.empty()) {
    cal = load_calibration_file(a.calibration);
    apply_calibration(job->topo, *cal);
  }
  spec.model = calibrated_protocol_model(cal, env);
  const NodeIndex first = job->topo.ranks.front();
  const std::optional<DeviceSpec> device = find_device(job->topo.nodes[first].model);
  if (!device) {
    throw ConfigError(job->topo.name, "/nodes", job->topo.nodes[first].id,
                      "a GPU model the device catalogue knows (its peak FLOP/s and HBM), for rank 0");
  }
  job->device = *device;
  job->graph = std::make_unique<LinkGraph>(job->topo);
  job->spec = resolve_comm_spec(spec, job->topo, true);
  job->per_host = ranks_per_node(job->topo);
  job->cost = std::make_unique<GroupCollectiveCost>(*job->graph, job->spec, 1);
  GroupCollectiveCost* cost = job->cost.get();
  job->fn = [cost](CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups) {
    return cost->time_groups(op, bytes, groups);
  };
  return job;
}

void check_overlap_offload(const LlmArgs& a) {
  if (a.overlap_offload && a.offload != "optimizer") {
    throw ConfigError("--overlap-cpu-optimizer-d2h-h2d", "", "", "--offload optimizer with it (it overlaps the offload's parts)");
  }
}

void run_search(const LlmArgs& a, LlmModel model, OutputFormat format, ReportOutput& output) {
  if (!a.gpus) throw ConfigError("--gpus", "", "(missing)", "the GPU count to search layouts for (with --search)");
  if (a.price && !(*a.price > 0 && *a.price < 1e6)) {
    throw ConfigError("--price-per-gpu-hour", "", std::to_string(*a.price), "a price above 0 and below 10^6");
  }
  const auto job = llm_job(a, *a.gpus, "--gpus", std::to_string(*a.gpus));
  model = with_device_efficiency(std::move(model), job->device);
  LlmSearchSpace space;
  space.gpus = *a.gpus;
  space.gpus_per_host = job->per_host;
  space.global_batch = a.global_batch;
  space.order = enum_option<PlacementOrder>("--order", a.order);
  if (!a.recompute.empty()) space.recomputes = {recompute_option(a.recompute)};
  if (a.sequence_parallel && a.no_sequence_parallel) {
    throw ConfigError("--no-sequence-parallel", "", "", "not both --sequence-parallel and --no-sequence-parallel");
  }
  if (a.distributed_optimizer && a.no_distributed_optimizer) {
    throw ConfigError("--no-distributed-optimizer", "", "", "not both --distributed-optimizer and --no-distributed-optimizer");
  }
  if (a.sequence_parallel) space.sequence_parallel = {true};
  if (a.no_sequence_parallel) space.sequence_parallel = {false};
  if (a.distributed_optimizer) space.distributed_optimizer = {true};
  if (a.no_distributed_optimizer) space.distributed_optimizer = {false};
  if (a.ep) space.expert_parallel = {*a.ep};
  if (a.offload != "none" && a.offload != "optimizer") throw ConfigError("--offload", "", a.offload, "none or optimizer");
  const std::optional<HostLink> host_link = host_link_of(*job->graph, 0);
  if (a.offload == "optimizer") {
    if (!host_link) {
      throw ConfigError("--offload", "", a.offload,
                        fmt::format("a topology with a GPU-to-host (PCIe) path to offload over ({} has none)", job->topo.source));
    }
    if (host_link->memory.bytes_per_s <= 0) {
      throw ConfigError("--offload", "", a.offload,
                        fmt::format("a topology whose cpu nodes give memory_bandwidth, the DRAM rate the offloaded Adam "
                                    "runs at ({} gives none for the CPU nearest rank 0)",
                                    job->topo.source));
    }
    space.offload = {false, true};
  }
  check_overlap_offload(a);
  space.overlap_offload = a.overlap_offload;
  space.gradient_accumulation_fusion = !a.no_grad_accumulation_fusion;
  LlmSearchReport rep;
  rep.model = model.name;
  rep.topology = job->topo.name;
  rep.device = job->device.name;
  rep.collectives = job->spec.label();
  rep.gpus = *a.gpus;
  rep.global_batch = a.global_batch;
  rep.sequence = model.shape.sequence;
  rep.price_per_gpu_hour = a.price;
  rep.top = a.top;
  rep.result = search_llm_layouts(model, space, job->device, job->fn, host_link);
  if (rep.result.evaluated == 0 && rep.result.pruned > 0) {
    // Layouts the batch takes exist, but none holds its model state.
    throw ConfigError("--gpus", "", std::to_string(*a.gpus),
                      fmt::format("enough GPUs for {}'s model state: each of the {} layouts the batch takes holds more "
                                  "weights, gradients and optimizer state than a {}'s {} of HBM{} (more GPUs, or "
                                  "--offload optimizer)",
                                  model.name, rep.result.pruned, job->device.name, to_string(job->device.hbm_capacity),
                                  space.distributed_optimizer == std::vector<bool>{false} ? " (--no-distributed-optimizer rules out ZeRO-1)" : ""));
  }
  if (rep.result.evaluated == 0 && rep.result.unpriced > 0) {
    throw ConfigError("--gpus", "", std::to_string(*a.gpus),
                      fmt::format("a GPU count whose layouts' collectives collsim can play: each of the {} layouts the "
                                  "batch takes has a collective past the schedule size limit",
                                  rep.result.unpriced));
  }
  if (rep.result.evaluated == 0) {
    throw ConfigError("--global-batch", "", std::to_string(a.global_batch),
                      fmt::format("a batch that some layout of {} GPUs can take (dp x micro-batch dividing it)", *a.gpus));
  }
  output.put(format, llm_search_report_views(rep));
}

void run_llm(const LlmArgs& a, ReportOutput& output) {
  const OutputFormat format = parse_format_option(a.format);
  LlmModel model = load_llm_model(resolve_shipped_file(a.model, "workloads"));
  if (a.search) {
    if (!a.trace.empty()) throw ConfigError("--trace", "", a.trace, "no --trace with --search (trace one layout)");
    run_search(a, std::move(model), format, output);
    return;
  }
  LlmTraining tr;
  tr.layout.tp = a.tp;
  tr.layout.pp = a.pp;
  tr.layout.virtual_stages = a.virtual_stages;
  tr.layout.ep = a.ep.value_or(1);
  tr.layout.order = enum_option<PlacementOrder>("--order", a.order);
  tr.schedule = enum_option<PipelineKind>("--schedule", a.schedule);
  tr.micro_batch = a.micro_batch;
  tr.global_batch = a.global_batch;
  tr.recompute = recompute_option(a.recompute.empty() ? "none" : a.recompute);
  tr.sequence_parallel = a.sequence_parallel;
  tr.distributed_optimizer = a.distributed_optimizer;
  if (a.offload != "none" && a.offload != "optimizer") throw ConfigError("--offload", "", a.offload, "none or optimizer");
  tr.offload_optimizer = a.offload == "optimizer";
  check_overlap_offload(a);
  tr.overlap_offload = a.overlap_offload;
  tr.gradient_accumulation_fusion = !a.no_grad_accumulation_fusion;
  tr.overlap_grad_reduce = a.overlap_grad_reduce;
  if (!a.dp) throw ConfigError("--dp", "", "(missing)", "the data-parallel degree (GPUs = tp x pp x dp)");
  tr.layout.dp = *a.dp;
  const std::int64_t world = std::int64_t{a.tp} * a.pp * *a.dp;
  if (world > 1 << 20) throw ConfigError("--dp", "", std::to_string(world), "tp x pp x dp at most 1048576 GPUs");
  const auto job = llm_job(a, static_cast<int>(world), "--dp", fmt::format("{} (tp x pp x dp = {})", *a.dp, world));
  model = with_device_efficiency(std::move(model), job->device);
  LlmReport rep;
  rep.model = model.name;
  rep.topology = job->topo.name;
  rep.device = job->device.name;
  rep.collectives = job->spec.label();
  rep.spec = model;
  rep.training = tr;
  rep.step = evaluate_llm_step(model, tr, job->device, job->fn, host_link_of(*job->graph, 0), job->per_host);
  if (!a.trace.empty()) {
    std::ostringstream out;
    write_llm_trace(out, rep.step, tr, fmt::format("collsim llm {} {}", model.name, tr.layout.label()));
    write_file_atomically(a.trace, out.str(), "--trace");
  }
  output.put(format, llm_report_views(rep));
}

}  // namespace

void add_llm_command(CLI::App& app, ReportOutput& output) {
  auto a = std::make_shared<LlmArgs>();
  CLI::App* cmd = app.add_subcommand(
      "llm", "Predict one training step of a transformer under tensor, pipeline, data and expert parallelism (Megatron-style)");
  cmd->add_option("--model", a->model, "Model file with a \"transformer\" shape (or a shipped workload's name, e.g. llama2-70b)")
      ->required();
  cmd->add_option("--topology", a->topology, "Topology file or shipped name; a cluster generator grows to tp x pp x dp GPUs")
      ->required();
  cmd->add_option("--tp", a->tp, "Tensor-parallel degree (innermost: within a host)")->check(CLI::Range(1, 1 << 20))->capture_default_str();
  cmd->add_option("--pp", a->pp, "Pipeline-parallel degree (stages)")->check(CLI::Range(1, 1 << 20))->capture_default_str();
  cmd->add_option("--dp", a->dp, "Data-parallel degree (required without --search)")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--ep", a->ep, "Expert-parallel degree of an MoE model, within DP (default 1; with --search, the only one tried)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_flag("--search", a->search,
                "Search layouts (TP, PP, DP, EP, micro-batch, interleaving, recompute, SP, ZeRO-1) for --gpus GPUs; "
                "print the best by step time");
  cmd->add_flag("--no-sequence-parallel", a->no_sequence_parallel, "With --search: only layouts without SP (--sequence-parallel: only with)");
  cmd->add_flag("--no-distributed-optimizer", a->no_distributed_optimizer,
                "With --search: only layouts without ZeRO-1 (--distributed-optimizer: only with)");
  cmd->add_option("--gpus", a->gpus, "GPUs to search layouts for (with --search)")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--top", a->top, "Layouts --search prints")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--price-per-gpu-hour", a->price, "With --search: cost per step and per million tokens at this GPU-hour price");
  cmd->add_option("--virtual-stages", a->virtual_stages, "Model chunks per pipeline rank (interleaved schedule)")
      ->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--micro-batch", a->micro_batch, "Samples per micro-batch")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20))
      ->capture_default_str();
  cmd->add_option("--global-batch", a->global_batch, "Samples per optimizer step, all replicas")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30))->required();
  cmd->add_option("--schedule", a->schedule, "Pipeline schedule: gpipe, 1f1b or interleaved")->capture_default_str();
  cmd->add_option("--recompute", a->recompute, "Activation recomputation: none (default), selective or full; with --search, "
                  "the only one tried");
  cmd->add_flag("--sequence-parallel", a->sequence_parallel, "Megatron sequence parallelism (TP all-reduces become all-gather + reduce-scatter)");
  cmd->add_flag("--distributed-optimizer", a->distributed_optimizer, "Optimizer state split over DP (ZeRO-1): reduce-scatter, then all-gather");
  cmd->add_option("--offload", a->offload,
                  "none or optimizer (ZeRO-Offload: optimizer state and step in host memory); with --search, optimizer "
                  "tries layouts with and without it")
      ->capture_default_str();
  cmd->add_flag("--overlap-grad-reduce", a->overlap_grad_reduce, "Overlap the DP gradient reduction with the last backward");
  cmd->add_flag("--no-gradient-accumulation-fusion", a->no_grad_accumulation_fusion,
                "Add each micro-batch's weight gradients into the main gradients with a kernel of their own (Megatron-LM "
                "before 2022); by default the weight-gradient GEMMs accumulate in place");
  cmd->add_flag("--overlap-cpu-optimizer-d2h-h2d", a->overlap_offload,
                "With --offload optimizer: pipeline its gradient copies, CPU Adam and weight copies layer by layer "
                "(Megatron-Core's flag)");
  cmd->add_option("--order", a->order, "Rank placement: tp-dp-pp (Megatron) or tp-pp-dp")->capture_default_str();
  cmd->add_option("--algo", a->algorithms, "NCCL_ALGO-style list for every collective")->capture_default_str();
  cmd->add_option("--protocol", a->protocols, "NCCL_PROTO-style list")->capture_default_str();
  add_nccl_knob_options(cmd, a->nccl);
  cmd->add_option("--calibration", a->calibration,
                  "Calibration JSON (validate --calibrate): per-link-class efficiency and NCCL's constants");
  cmd->add_option("--format", a->format, "table, json or csv")->capture_default_str();
  cmd->add_option("--trace", a->trace,
                  "Also write the step as a Chrome trace event JSON file (Perfetto): per pipeline stage, its compute, "
                  "send and data-parallel streams");
  cmd->callback([a, &output] { run_llm(*a, output); });
}

}  // namespace collsim::cli
