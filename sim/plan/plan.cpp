#include "sim/plan/plan.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/algo/registry.hpp"
#include "sim/coll/comm_spec.hpp"
#include "sim/coll/selection.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/loader.hpp"
#include "sim/train/bucket_assignment.hpp"
#include "sim/train/device_catalogue.hpp"
#include "sim/train/llm_model.hpp"
#include "sim/train/workload.hpp"
#include "sim/train/workload_path.hpp"

namespace collsim {

namespace {

constexpr double kHoursPerYear = 8760;  // 365 x 24

NetworkPrice parse_network_price(const nlohmann::json& j, const std::string& source, const std::string& pointer) {
  JsonFields f(j, source, pointer);
  NetworkPrice n;
  constexpr double kMax = 1e12;
  n.per_nic = f.optional_number("per_nic", 0, kMax).value_or(0);
  n.per_switch = f.optional_number("per_switch", 0, kMax).value_or(0);
  n.per_cable = f.optional_number("per_cable", 0, kMax).value_or(0);
  n.amortization_years = f.number("amortization_years", 0.01, 100);
  f.finish();
  return n;
}

GpuPrice parse_price(const nlohmann::json& j, const std::string& source, const std::string& pointer,
                     std::optional<NetworkPrice>& network) {
  JsonFields f(j, source, pointer);
  if (const nlohmann::json* n = f.optional("network")) network = parse_network_price(*n, source, f.pointer("network"));
  GpuPrice p;
  constexpr double kMax = 1e12;
  p.per_gpu_hour = f.optional_number("per_gpu_hour", 0, kMax);
  p.purchase_per_gpu = f.optional_number("purchase_per_gpu", 0, kMax);
  p.amortization_years = f.optional_number("amortization_years", 0.01, 100);
  p.power_watts = f.optional_number("power_watts_per_gpu", 0, 1e6);
  p.per_kwh = f.optional_number("per_kwh", 0, kMax);
  p.pue = f.optional_number("pue", 1, 10);
  f.finish();
  if (!p.per_gpu_hour && !p.purchase_per_gpu && !p.power_watts) {
    throw ConfigError(source, pointer, brief(j), "at least one of per_gpu_hour, purchase_per_gpu (+ amortization_years), power_watts_per_gpu (+ per_kwh)");
  }
  if (p.purchase_per_gpu && !p.amortization_years) {
    f.fail("amortization_years", "missing", "the years over which purchase_per_gpu is spread (e.g. 4)");
  }
  if (p.power_watts && !p.per_kwh) f.fail("per_kwh", "missing", "the electricity price per kWh, needed with power_watts_per_gpu");
  if (p.pue && !p.power_watts) f.fail("pue", brief(*f.optional("pue")), "pue only together with power_watts_per_gpu");
  return p;
}

std::vector<int> parse_world_sizes(JsonFields& f) {
  const auto& arr = f.array("world_sizes");
  if (arr.empty()) f.fail("world_sizes", "[]", "at least one world size");
  std::vector<int> out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const auto& v = arr[i];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > (1 << 20)) {
      throw ConfigError(f.source(), fmt::format("{}/{}", f.pointer("world_sizes"), i), brief(v), "a world size from 1 to 1048576");
    }
    const int n = v.get<int>();
    if (!out.empty() && n <= out.back()) {
      throw ConfigError(f.source(), fmt::format("{}/{}", f.pointer("world_sizes"), i), brief(v), "world sizes in ascending order, no repeats");
    }
    out.push_back(n);
  }
  return out;
}

// The generator block of a topology document when it is a cluster whose host count the
// plan may set, else nullptr.
const nlohmann::json* scalable_generator(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("generator")) return nullptr;
  const auto& g = doc["generator"];
  if (!g.is_object() || !g.contains("kind") || !g["kind"].is_string()) return nullptr;
  const auto kind = g["kind"].get<std::string>();
  return kind == "cluster" || kind == "tcp_cluster" ? &g : nullptr;
}

Topology generate(const nlohmann::json& doc, const std::string& source, bool scales, int hosts) {
  if (!scales) return load_topology_json(doc, source);
  nlohmann::json copy = doc;
  copy["generator"]["hosts"] = hosts;
  return load_topology_json(copy, source);
}

PlanCandidate parse_candidate(const nlohmann::json& j, const std::string& source, const std::string& pointer,
                              const std::string& base_dir) {
  JsonFields f(j, source, pointer);
  PlanCandidate c;
  c.name = f.string("name");
  c.description = f.optional_string("description").value_or("");
  const auto& topo = f.required("topology");
  if (topo.is_string()) {
    const std::filesystem::path p = std::filesystem::path(base_dir) / topo.get<std::string>();
    if (!std::filesystem::exists(p)) {
      f.fail("topology", brief(topo), fmt::format("an existing topology file (looked for {})", p.string()));
    }
    c.topology = read_json_file(p.string());
    c.topology_source = p.string();
  } else if (topo.is_object()) {
    c.topology = topo;
    c.topology_source = fmt::format("{}#{}", source, f.pointer("topology"));
  } else {
    f.fail("topology", brief(topo), "a topology file path or an inline topology object (e.g. {\"generator\": {...}})");
  }
  c.world_sizes = parse_world_sizes(f);
  c.algorithm = f.optional_string("algorithm").value_or("auto");
  c.protocol = f.optional_string("protocol").value_or("auto");
  if (const auto env = f.optional_string("nccl_env")) {
    // NCCL's knobs; errors name the file and pointer, then the variable.
    c.nccl_env = parse_nccl_env(*env, fmt::format("{}: {}", source, f.pointer("nccl_env")));
    c.nccl_env_text = *env;
    auto take = [&](const std::optional<std::string>& knob, const char* key, std::string& into, const char* variable) {
      if (!knob) return;
      if (f.has(key)) f.fail(key, in_quotes(into), fmt::format("no \"{}\" beside {} in nccl_env", key, variable));
      into = *knob;
    };
    take(c.nccl_env.algo, "algorithm", c.algorithm, "NCCL_ALGO");
    take(c.nccl_env.proto, "protocol", c.protocol, "NCCL_PROTO");
    if (c.nccl_env.algo && !c.nccl_env.proto && !f.has("protocol")) c.protocol = "auto";  // NCCL_ALGO means NCCL's protocols
  }
  try {
    (void)parse_protocol_list(c.protocol);
  } catch (const std::invalid_argument& e) {
    f.fail("protocol", in_quotes(c.protocol), fmt::format("ideal, ll, ll128, simple, a list, ^list or auto ({})", e.what()));
  }
  try {
    check_comm_spec(CommSpec{c.algorithm, c.protocol}, CollectiveOp::AllReduce);
  } catch (const std::invalid_argument& e) {
    f.fail("algorithm", in_quotes(c.algorithm), e.what());
  }
  if (const auto cal = f.optional_string("calibration")) {
    const std::filesystem::path p = std::filesystem::path(base_dir) / *cal;
    if (!std::filesystem::is_regular_file(p)) {
      f.fail("calibration", in_quotes(*cal), fmt::format("an existing calibration file (looked for {})", p.string()));
    }
    c.calibration_path = p.string();
    c.calibration = load_calibration_file(c.calibration_path);  // its errors name that file
    if (c.calibration->protocol && c.protocol == "ideal") {
      f.fail("calibration", in_quotes(*cal),
             "a calibration without NCCL protocol constants under \"protocol\": \"ideal\" (they price NCCL's "
             "protocols only: set \"protocol\": \"auto\", or use a file with link classes alone)");
    }
  }
  c.price = parse_price(f.required("price"), source, f.pointer("price"), c.network_price);
  f.finish();

  c.scales_hosts = scalable_generator(c.topology) != nullptr;
  const Topology one = generate(c.topology, c.topology_source, c.scales_hosts, 1);
  if (one.ranks.empty()) f.fail("topology", c.topology_source, "a topology with at least one rank");
  if (c.scales_hosts) {
    c.gpus_per_host = one.rank_count();
  } else {
    c.max_ranks = one.rank_count();
  }
  for (std::size_t i = 0; i < c.world_sizes.size(); ++i) {
    const int n = c.world_sizes[i];
    if (c.scales_hosts && n % c.gpus_per_host != 0) {
      throw ConfigError(source, fmt::format("{}/{}", f.pointer("world_sizes"), i), std::to_string(n),
                        fmt::format("a multiple of the {} ranks of one host of this cluster", c.gpus_per_host));
    }
    if (!c.scales_hosts && n > c.max_ranks) {
      throw ConfigError(source, fmt::format("{}/{}", f.pointer("world_sizes"), i), std::to_string(n),
                        fmt::format("at most the topology's {} ranks (a cluster generator scales with the world size)", c.max_ranks));
    }
  }
  // Check the topology at the smallest size (errors carry the topology's own pointers).
  const Topology first = plan_topology(c, c.world_sizes.front());
  c.gpu_model = first.nodes[first.ranks.front()].model;
  if (c.gpu_model.empty() || !find_device(c.gpu_model)) {
    f.fail("topology", fmt::format("GPU model \"{}\"", c.gpu_model),
           fmt::format("a topology whose ranks are GPUs of a catalogued model ({})", fmt::join(device_names(), ", ")));
  }
  return c;
}

ShardingOptions base_options(JsonFields& f, Sharding s) {
  ShardingOptions o;
  o.strategy = s;
  const auto prec = f.optional_string("precision").value_or(std::string(to_string(PrecisionPreset::AdamMixed)));
  const auto preset = precision_preset_from(prec);
  if (!preset) {
    f.fail("precision", in_quotes(prec), fmt::format("one of: {}", fmt::join(enum_names<PrecisionPreset>(), ", ")));
  }
  o.precision = state_precision(*preset);
  o.activation_checkpointing = f.boolean("activation_checkpointing", false);
  return o;
}

std::vector<std::int64_t> int_list(JsonFields& f, std::string_view key, std::int64_t lo, std::int64_t hi,
                                   std::vector<std::int64_t> fallback) {
  const auto* v = f.optional(key);
  if (!v) return fallback;
  if (!v->is_array() || v->empty()) f.fail(key, brief(*v), fmt::format("a non-empty array of integers from {} to {}", lo, hi));
  std::vector<std::int64_t> out;
  for (const auto& e : *v) {
    if (!e.is_number_integer() || e.get<std::int64_t>() < lo || e.get<std::int64_t>() > hi) {
      f.fail(key, brief(*v), fmt::format("a non-empty array of integers from {} to {}", lo, hi));
    }
    out.push_back(e.get<std::int64_t>());
  }
  return out;
}

// kind "megatron": lists of the layout choices to search, each defaulting to all of them.
PlanStrategyVariant parse_megatron(JsonFields& f, const std::string& name) {
  LlmSearchSpace space;
  const auto ints = [&f](std::string_view key, std::int64_t hi) {
    std::vector<int> out;
    for (auto v : int_list(f, key, 1, hi, {})) out.push_back(static_cast<int>(v));
    return out;
  };
  space.tensor_parallel = ints("tp", 1 << 20);
  space.pipeline_parallel = ints("pp", 1 << 20);
  space.expert_parallel = ints("ep", 1 << 20);
  space.micro_batches = int_list(f, "micro_batch", 1, 1 << 20, space.micro_batches);
  const auto chunks = ints("virtual_stages", 4096);
  if (!chunks.empty()) {
    space.chunks.clear();
    for (int c : chunks) {
      if (c >= 2) space.chunks.push_back(c);  // 1 is plain 1F1B, always tried
    }
  }
  const auto strings = [&f](std::string_view key, const std::vector<std::string>& choices) {
    std::vector<std::string> out;
    const auto* v = f.optional(key);
    if (!v) return out;
    const std::string expected = fmt::format("a non-empty array of: {}", fmt::join(choices, ", "));
    if (!v->is_array() || v->empty()) f.fail(key, brief(*v), expected);
    for (const auto& e : *v) {
      if (!e.is_string() || std::find(choices.begin(), choices.end(), e.get<std::string>()) == choices.end()) {
        f.fail(key, brief(e), expected);
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  };
  const auto bools = [&f](std::string_view key, std::vector<bool>& into) {
    const auto* v = f.optional(key);
    if (!v) return;
    if (!v->is_array() || v->empty()) f.fail(key, brief(*v), "a non-empty array of booleans");
    into.clear();
    for (const auto& e : *v) {
      if (!e.is_boolean()) f.fail(key, brief(e), "a non-empty array of booleans");
      into.push_back(e.get<bool>());
    }
  };
  if (const auto rc = strings("recompute", enum_names<TransformerShape::Recompute>()); !rc.empty()) {
    space.recomputes.clear();
    for (const auto& r : rc) space.recomputes.push_back(*enum_from<TransformerShape::Recompute>(r));
  }
  bools("sequence_parallel", space.sequence_parallel);
  bools("distributed_optimizer", space.distributed_optimizer);
  bools("offload", space.offload);
  space.gradient_accumulation_fusion = f.boolean("gradient_accumulation_fusion", true);
  space.overlap_offload = f.boolean("overlap_cpu_optimizer_d2h_h2d", false);
  if (space.overlap_offload && std::find(space.offload.begin(), space.offload.end(), true) == space.offload.end()) {
    f.fail("overlap_cpu_optimizer_d2h_h2d", "true", "an offload list with true (it overlaps the offload's parts)");
  }
  const auto order = f.optional_string("order").value_or("tp-dp-pp");
  const auto placement = enum_from<PlacementOrder>(order);
  if (!placement) f.fail("order", in_quotes(order), "tp-dp-pp or tp-pp-dp");
  space.order = *placement;
  PlanStrategyVariant v;
  v.strategy = name;
  // The flags that are not searched name the row, so two megatron strategies that differ
  // only in them stay apart in the tables.
  v.label = fmt::format("megatron{}{}", space.gradient_accumulation_fusion ? "" : " unfused",
                        space.overlap_offload ? " overlap" : "");
  v.megatron = std::move(space);
  return v;
}

std::vector<PlanStrategyVariant> parse_strategy(const nlohmann::json& j, const std::string& source, const std::string& pointer,
                                                std::string& name) {
  JsonFields f(j, source, pointer);
  name = f.string("name");
  const auto kind = f.choice("kind", {"ddp", "zero", "fsdp", "megatron"});
  if (kind == "megatron") {
    std::vector<PlanStrategyVariant> one{parse_megatron(f, name)};
    f.finish();
    return one;
  }
  const auto accumulate = int_list(f, "accumulate", 1, 4096, {1});
  std::vector<PlanStrategyVariant> out;
  auto add = [&](ShardingOptions o, const std::string& what, Bytes bucket_cap, bool view) {
    for (auto k : accumulate) {
      PlanStrategyVariant v;
      v.strategy = name;
      v.sharding = o;
      v.sharding.accumulate = static_cast<int>(k);
      v.bucket_cap = bucket_cap;
      v.gradient_as_bucket_view = view;
      v.label = fmt::format("{} k{}", what, k);
      out.push_back(std::move(v));
    }
  };
  if (kind == "ddp") {
    const ShardingOptions o = base_options(f, Sharding::Ddp);
    const bool view = f.boolean("gradient_as_bucket_view", false);
    std::vector<double> mbs{25};
    if (const auto* v = f.optional("bucket_mb")) {
      mbs.clear();
      if (!v->is_array() || v->empty()) f.fail("bucket_mb", brief(*v), "a non-empty array of bucket_cap_mb values (MiB, > 0)");
      for (const auto& e : *v) {
        if (!e.is_number() || !(e.get<double>() > 0) || e.get<double>() > 65536) {
          f.fail("bucket_mb", brief(*v), "a non-empty array of bucket_cap_mb values (MiB, > 0 and <= 65536)");
        }
        mbs.push_back(e.get<double>());
      }
    }
    for (double mb : mbs) add(o, fmt::format("ddp b{}", mb), bucket_cap_from_mb(mb), view);
  } else if (kind == "zero") {
    ShardingOptions o = base_options(f, Sharding::Zero1);
    if (auto mb = f.optional_number("reduce_bucket_mb", 1e-3, 65536)) {
      o.reduce_bucket_bytes = bucket_cap_from_mb(*mb);
    }
    // ZeRO-Offload: each stage without it, with it, or both ([false, true]).
    std::vector<bool> offloads{false};
    if (const auto* v = f.optional("offload_optimizer")) {
      const std::string expected = "a non-empty array of booleans (false: the optimizer on the GPU, true: ZeRO-Offload)";
      if (!v->is_array() || v->empty()) f.fail("offload_optimizer", brief(*v), expected);
      offloads.clear();
      for (const auto& e : *v) {
        if (!e.is_boolean()) f.fail("offload_optimizer", brief(e), expected);
        offloads.push_back(e.get<bool>());
      }
    }
    for (auto s : int_list(f, "stages", 1, 3, {1, 2, 3})) {
      o.strategy = s == 1 ? Sharding::Zero1 : s == 2 ? Sharding::Zero2 : Sharding::Zero3;
      for (bool off : offloads) {
        o.offload_optimizer = off;
        add(o, fmt::format("zero{}{}", s, off ? " offload" : ""), Bytes{0}, false);
      }
    }
  } else {
    ShardingOptions o = base_options(f, Sharding::FsdpFullShard);
    const auto bp = f.optional_string("backward_prefetch").value_or(std::string(to_string(o.backward_prefetch)));
    const auto prefetch = enum_from<BackwardPrefetch>(bp);
    if (!prefetch) {
      f.fail("backward_prefetch", in_quotes(bp), fmt::format("one of: {}", fmt::join(enum_names<BackwardPrefetch>(), ", ")));
    }
    o.backward_prefetch = *prefetch;
    o.forward_prefetch = f.boolean("forward_prefetch", false);
    o.all_gather_limit = f.boolean("limit_all_gathers", true) ? 2 : 0;
    if (auto mp = f.optional_integer("min_unit_params", 1, std::int64_t{1} << 50)) {
      o.unit_policy = UnitPolicy::MinParams;
      o.min_unit_params = *mp;
    }
    std::vector<Sharding> variants{Sharding::FsdpFullShard};
    if (const auto* v = f.optional("sharding")) {
      variants.clear();
      const std::string expected = fmt::format("a non-empty array of: {}", fmt::join(fsdp_sharding_names(), ", "));
      if (!v->is_array() || v->empty()) f.fail("sharding", brief(*v), expected);
      for (const auto& e : *v) {
        if (!e.is_string()) f.fail("sharding", brief(*v), expected);
        const auto s = fsdp_sharding_from(e.get<std::string>());
        if (!s) f.fail("sharding", brief(e), expected);
        variants.push_back(*s);
      }
    }
    for (Sharding s : variants) {
      o.strategy = s;
      add(o, std::string(to_string(o.strategy)) + (o.activation_checkpointing ? " ckpt" : ""), Bytes{0}, false);
    }
  }
  f.finish();
  return out;
}

std::string resolve_relative(const std::string& base_dir, const std::string& value) {
  const std::filesystem::path p = std::filesystem::path(base_dir) / value;
  if (std::filesystem::exists(p)) return p.string();
  return resolve_workload_path(value);
}

}  // namespace

NetworkPrice::Gear NetworkPrice::count(const Topology& topo) {
  Gear g;
  const auto gear = [&topo](NodeIndex n) { return topo.nodes[n].kind == NodeKind::Nic || topo.nodes[n].kind == NodeKind::Switch; };
  for (const Node& n : topo.nodes) {
    g.nics += n.kind == NodeKind::Nic;
    g.switches += n.kind == NodeKind::Switch;
  }
  // Each cable is two directed links, one each way; a bundle of lanes is one cable per lane.
  std::int64_t directed = 0;
  for (const DirectedLink& l : topo.links) {
    if (gear(l.from) && gear(l.to)) directed += l.lanes;
  }
  g.cables = directed / 2;
  return g;
}

double NetworkPrice::hourly(const Gear& g) const {
  const double total = static_cast<double>(g.nics) * per_nic + static_cast<double>(g.switches) * per_switch +
                       static_cast<double>(g.cables) * per_cable;
  return total / (amortization_years * kHoursPerYear);
}

std::string NetworkPrice::describe() const {
  return fmt::format("network gear {:.6g} per NIC, {:.6g} per switch, {:.6g} per cable over {:.3g} years", per_nic, per_switch,
                     per_cable, amortization_years);
}

double GpuPrice::hourly() const {
  double h = per_gpu_hour.value_or(0);
  if (purchase_per_gpu) h += *purchase_per_gpu / (*amortization_years * kHoursPerYear);
  if (power_watts) h += *power_watts / 1000.0 * pue.value_or(1.0) * *per_kwh;
  return h;
}

std::string GpuPrice::describe() const {
  std::vector<std::string> parts;
  if (per_gpu_hour) parts.push_back(fmt::format("{:.4g} per GPU-hour rental", *per_gpu_hour));
  if (purchase_per_gpu) parts.push_back(fmt::format("{:.6g} per GPU over {:.3g} years", *purchase_per_gpu, *amortization_years));
  if (power_watts) {
    parts.push_back(fmt::format("{:.6g} W per GPU x PUE {:.3g} at {:.4g} per kWh", *power_watts, pue.value_or(1.0), *per_kwh));
  }
  return fmt::format("{} = {:.4f} per GPU-hour", fmt::join(parts, " + "), hourly());
}

std::vector<const PlanStrategyVariant*> Plan::variants_of(const std::string& strategy) const {
  std::vector<const PlanStrategyVariant*> out;
  for (const auto& v : variants) {
    if (v.strategy == strategy) out.push_back(&v);
  }
  return out;
}

Topology plan_topology(const PlanCandidate& c, int world) {
  Topology t = generate(c.topology, c.topology_source, c.scales_hosts, c.scales_hosts ? world / c.gpus_per_host : 0);
  t.ranks.resize(static_cast<std::size_t>(world));
  if (c.calibration) apply_calibration(t, *c.calibration);
  return t;
}

Plan parse_plan(const nlohmann::json& doc, const std::string& source, const std::string& base_dir) {
  JsonFields f(doc, source, "");
  Plan plan;
  plan.source = source;
  plan.name = f.string("name");
  plan.description = f.optional_string("description").value_or("");
  plan.currency = f.optional_string("currency").value_or("USD");
  const auto& strategies = f.array("strategies");
  if (strategies.empty()) f.fail("strategies", "[]", "at least one strategy");
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    std::string name;
    auto vs = parse_strategy(strategies[i], source, fmt::format("/strategies/{}", i), name);
    if (std::find(plan.strategy_names.begin(), plan.strategy_names.end(), name) != plan.strategy_names.end()) {
      throw ConfigError(source, fmt::format("/strategies/{}/name", i), in_quotes(name), "a strategy name used once");
    }
    plan.strategy_names.push_back(name);
    for (auto& v : vs) {
      v.strategy_index = i;
      plan.variants.push_back(std::move(v));
    }
  }
  const auto& workloads = f.array("workloads");
  if (workloads.empty()) f.fail("workloads", "[]", "at least one workload");
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    JsonFields wf(workloads[i], source, fmt::format("/workloads/{}", i));
    PlanWorkload w;
    const auto file = wf.string("file");
    w.path = resolve_relative(base_dir, file);
    if (!std::filesystem::exists(w.path)) {
      wf.fail("file", in_quotes(file), "a workload file (relative to the plan) or a shipped workload name");
    }
    const auto given_name = wf.optional_string("name");
    // 2^30 samples per optimizer step is far past any real run, and keeps every micro-batch
    // (global / (world x accumulate)) inside an int; 2^40 wrapped it from 2^31 samples per GPU.
    w.global_batch = wf.integer("global_batch", 1, kMaxGlobalBatch);
    if (const auto* s = wf.optional("strategies")) {
      if (!s->is_array() || s->empty()) wf.fail("strategies", brief(*s), "a non-empty array of strategy names");
      for (const auto& e : *s) {
        const bool known = e.is_string() && std::find(plan.strategy_names.begin(), plan.strategy_names.end(),
                                                      e.get<std::string>()) != plan.strategy_names.end();
        if (!known) wf.fail("strategies", brief(e), fmt::format("names from /strategies ({})", fmt::join(plan.strategy_names, ", ")));
        w.strategies.push_back(e.get<std::string>());
      }
    } else {
      w.strategies = plan.strategy_names;
    }
    for (const auto& name : w.strategies) {
      for (const auto* v : plan.variants_of(name)) (v->megatron ? w.megatron : w.listed) = true;
    }
    std::string loaded_name;  // each kind's reader checks the file
    if (w.listed) loaded_name = load_workload_file(w.path).name;
    if (w.megatron) loaded_name = load_llm_model(w.path).name;
    w.name = given_name.value_or(loaded_name);
    wf.finish();
    plan.workloads.push_back(std::move(w));
  }
  const auto& candidates = f.array("candidates");
  if (candidates.empty()) f.fail("candidates", "[]", "at least one candidate cluster");
  std::set<std::string> names;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    plan.candidates.push_back(parse_candidate(candidates[i], source, fmt::format("/candidates/{}", i), base_dir));
    if (!names.insert(plan.candidates.back().name).second) {
      throw ConfigError(source, fmt::format("/candidates/{}/name", i), in_quotes(plan.candidates.back().name),
                        "a candidate name used once");
    }
  }
  if (const auto* s = f.optional("stragglers")) plan.stragglers = parse_plan_stragglers(*s, source, "/stragglers");
  if (const auto* s = f.optional("failures")) plan.failures = parse_plan_failures(*s, source, "/failures");
  f.finish();
  return plan;
}

PlanFailures load_failures_file(const std::string& path) { return parse_plan_failures(read_json_file(path), path, ""); }

Plan load_plan_file(const std::string& path) {
  const auto doc = read_json_file(path);
  const auto dir = std::filesystem::path(path).parent_path().string();
  return parse_plan(doc, path, dir.empty() ? "." : dir);
}

}  // namespace collsim
