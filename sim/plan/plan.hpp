// A capacity plan as data: candidate clusters (a topology scaled to each world size, with
// prices), workloads with their global batch, and training strategies (DDP bucket sizes,
// ZeRO stages, FSDP variants, gradient accumulation, Megatron-style layout searches). Prices in the plan's currency per
// GPU-hour or per GPU, power in watts, sizes in bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/coll/calibration.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/algo/registry.hpp"
#include "sim/plan/plan_reliability.hpp"
#include "sim/topo/topology.hpp"
#include "sim/train/llm_search.hpp"
#include "sim/train/sharding.hpp"

namespace collsim {

// What one GPU costs per hour: the sum of the components the plan states.
struct GpuPrice {
  std::optional<double> per_gpu_hour;        // rental price per GPU-hour
  std::optional<double> purchase_per_gpu;    // purchase price per GPU (server share included)
  std::optional<double> amortization_years;  // required with purchase_per_gpu
  std::optional<double> power_watts;         // power per GPU, its share of the server (W)
  std::optional<double> per_kwh;             // electricity price, required with power_watts
  std::optional<double> pue;                 // datacenter PUE multiplying the power (default 1)

  // Currency units per GPU-hour: rental + purchase / (years x 8760 h) + W/1000 x PUE x per-kWh.
  [[nodiscard]] double hourly() const;
  [[nodiscard]] std::string describe() const;  // "2.50/GPU-h rental + ..."
};

// What the cluster's network gear costs per hour, bought and spread over some years: NICs,
// switches (InfiniBand/Ethernet; NVSwitches are part of the server), and cables (every
// physical link with a NIC or a switch at both ends), counted on the topology at each world
// size.
struct NetworkPrice {
  double per_nic = 0, per_switch = 0, per_cable = 0;
  double amortization_years = 1;

  struct Gear {
    std::int64_t nics = 0, switches = 0, cables = 0;
  };
  [[nodiscard]] static Gear count(const Topology& topo);
  // Currency units per hour for `gear`.
  [[nodiscard]] double hourly(const Gear& gear) const;
  [[nodiscard]] std::string describe() const;
};

struct PlanCandidate {
  std::string name;
  std::string description;
  nlohmann::json topology;   // a topology document (from a file or inline)
  std::string topology_source;  // file name, or "<plan>#/candidates/i/topology"
  bool scales_hosts = false;  // a cluster generator: hosts = world / gpus_per_host
  int gpus_per_host = 0;      // ranks of one host (scales_hosts), else 0
  int max_ranks = 0;          // fixed topology: its rank count; else 0
  std::vector<int> world_sizes;  // ascending
  // NCCL_ALGO / NCCL_PROTO-style lists (sim/coll/selection.hpp): NCCL's choice by default,
  // the ring under the ideal protocol on CPU ranks (resolve_comm_spec).
  std::string algorithm = "auto";
  std::string protocol = "auto";
  // "nccl_env": NCCL's knobs as on the real run ("NCCL_ALGO=Tree NCCL_MAX_NCHANNELS=8";
  // sim/coll/nccl_env.hpp); NCCL_ALGO / NCCL_PROTO set `algorithm` / `protocol`.
  NcclEnv nccl_env;
  std::string nccl_env_text;  // as written, for the reports
  // "calibration": a calibration file (validate --calibrate; path relative to the plan):
  // its link classes on every world size's topology, its NCCL constants under the knobs,
  // its DDP slowdown on DDP rows. calibration_path: the resolved path, for the reports.
  std::optional<Calibration> calibration;
  std::string calibration_path;
  std::string gpu_model;      // of rank 0 (device catalogue name)
  GpuPrice price;
  std::optional<NetworkPrice> network_price;  // "price": {"network": {...}}
};

struct PlanStrategyVariant {
  std::string strategy;  // the plan's strategy name
  std::string label;     // e.g. "ddp b25 k1", "fsdp_full_shard k2"
  ShardingOptions sharding;     // strategy (Ddp for DDP) and its options, accumulate included
  std::size_t strategy_index = 0;  // into the plan's /strategies
  Bytes bucket_cap{0};          // DDP bucket_cap_mb as PyTorch turns it into bytes (0 otherwise)
  bool gradient_as_bucket_view = false;  // DDP
  // kind "megatron": the layouts searched (TP x PP x DP x EP, micro-batch, interleaving,
  // recompute, SP, ZeRO-1) at each world size; its row is the best layout found. gpus,
  // gpus_per_host and global_batch are the row's.
  std::optional<LlmSearchSpace> megatron;
};

struct PlanWorkload {
  std::string name;
  std::string path;      // resolved workload file
  std::int64_t global_batch = 0;  // samples per optimizer step, all ranks together
  std::vector<std::string> strategies;  // strategy names this workload runs (plan order)
  // Which kinds run it: DDP/ZeRO/FSDP need the file's parameter list, megatron its
  // transformer shape (a file holding only the shape serves megatron alone).
  bool listed = false, megatron = false;
};

inline constexpr std::int64_t kMaxGlobalBatch = std::int64_t{1} << 30;

struct Plan {
  std::string name;
  std::string description;
  std::string source;   // the plan file
  std::string currency = "USD";
  std::vector<PlanCandidate> candidates;
  std::vector<PlanWorkload> workloads;
  std::vector<PlanStrategyVariant> variants;  // every strategy expanded, plan order
  std::vector<std::string> strategy_names;
  std::optional<PlanStragglers> stragglers;  // slow GPUs in every step
  std::optional<PlanFailures> failures;      // interruptions over the run: rank on time-to-train

  // The variants of one named strategy, in plan order.
  [[nodiscard]] std::vector<const PlanStrategyVariant*> variants_of(const std::string& strategy) const;
};

// Reads a plan file strictly: every bad or unknown field is a ConfigError naming the file,
// the JSON pointer, the value and what was expected. Topologies are generated once at the
// smallest world size to check them; workload files are checked to exist and parse.
[[nodiscard]] Plan load_plan_file(const std::string& path);
[[nodiscard]] Plan parse_plan(const nlohmann::json& doc, const std::string& source, const std::string& base_dir);
// `plan --failures FILE`: a JSON file holding one "failures" object, which replaces the plan's.
[[nodiscard]] PlanFailures load_failures_file(const std::string& path);

// The candidate's topology at `world` ranks (hosts substituted, or the first ranks kept).
[[nodiscard]] Topology plan_topology(const PlanCandidate& c, int world);

}  // namespace collsim
