// Capacity plans: plan-file parsing and its errors, the micro-batch split and compute
// rescaling, prices, strong-scaling efficiency and the Pareto set on hand-made rows.
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/plan/plan.hpp"
#include "sim/plan/plan_batch.hpp"
#include "sim/plan/plan_eval.hpp"
#include "sim/train/goodput.hpp"

namespace collsim {
namespace {

const std::string kSrc = COLLSIM_SOURCE_DIR;

// A minimal valid plan: 2 DGX H100 hosts on one IB switch, BERT-large DDP.
nlohmann::json minimal_plan() {
  return nlohmann::json::parse(R"({
    "name": "t",
    "candidates": [{"name": "c", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
                    "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"}}},
                    "world_sizes": [8, 16], "price": {"per_gpu_hour": 2.0}}],
    "workloads": [{"file": "workloads/bert-large.json", "global_batch": 256}],
    "strategies": [{"name": "ddp", "kind": "ddp", "bucket_mb": [25, 50], "accumulate": [1, 2]}]
  })");
}

std::string plan_error_of(const nlohmann::json& doc) {
  try {
    (void)parse_plan(doc, "p.json", kSrc);
  } catch (const ConfigError& e) {
    return std::string(e.field()) + " | " + e.value() + " | " + e.expected();
  }
  return "no error";
}

PlanRow row(std::size_t variant, int world, std::int64_t step_ps, double cost, PlanStatus s = PlanStatus::Ok) {
  PlanRow r;
  r.variant = variant;
  r.world = world;
  r.step = Time{step_ps};
  r.cost_per_million = cost;
  r.status = s;
  return r;
}

}  // namespace

TEST_CASE("micro-batch = global / (world x accumulate), whole samples only", "[plan]") {
  // 4096 / (64 x 4) = 16; 4096 / (1024 x 4) = 1; 1024 / (1024 x 4) = 0.25 -> invalid;
  // 1000 / (64 x 1) = 15.6 -> invalid.
  CHECK(micro_batch(4096, 64, 4) == 16);
  CHECK(micro_batch(4096, 1024, 4) == 1);
  CHECK_FALSE(micro_batch(1024, 1024, 4).has_value());
  CHECK_FALSE(micro_batch(1000, 64, 1).has_value());
}

TEST_CASE("compute scales linearly from batch_per_gpu to the micro-batch", "[plan]") {
  Workload w;
  w.batch_per_gpu = 8;
  Layer l;
  l.compute.forward_time = Time{1000};
  l.compute.backward_time = Time{2001};
  l.compute.forward_flops = 8e9;
  w.layers.push_back(l);
  const Workload s = with_micro_batch(w, 2);
  // Factor 2/8 = 0.25: 1000 -> 250 ps, 2001 -> 500.25 -> 500 ps (rounded), 8e9 -> 2e9.
  CHECK(s.batch_per_gpu == 2);
  CHECK(s.layers[0].compute.forward_time->ps == 250);
  CHECK(s.layers[0].compute.backward_time->ps == 500);
  CHECK(s.layers[0].compute.forward_flops == Approx(2e9));
}

TEST_CASE("GPU-hour price sums rental, amortised purchase and power", "[plan]") {
  GpuPrice p;
  p.purchase_per_gpu = 48000;
  p.amortization_years = 4;
  p.power_watts = 1275;
  p.per_kwh = 0.10;
  p.pue = 1.3;
  // 48000 / (4 x 8760) = 1.369863; 1.275 kW x 1.3 x 0.10 = 0.16575; sum 1.535613.
  CHECK(p.hourly() == Approx(1.535613).epsilon(1e-6));
  p.per_gpu_hour = 1.0;  // + rental
  CHECK(p.hourly() == Approx(2.535613).epsilon(1e-6));
}

TEST_CASE("network gear is counted on the topology at each size and spread over its years", "[plan]") {
  nlohmann::json doc = minimal_plan();
  doc["candidates"][0]["price"]["network"] = {{"per_nic", 1500}, {"per_switch", 20000}, {"per_cable", 300}, {"amortization_years", 4}};
  const Plan p = parse_plan(doc, "p.json", kSrc);
  REQUIRE(p.candidates[0].network_price);
  // 2 DGX H100 hosts on one star switch: 8 NICs per host, each cabled to the switch.
  const NetworkPrice::Gear g = NetworkPrice::count(plan_topology(p.candidates[0], 16));
  CHECK(g.nics == 16);
  CHECK(g.switches == 1);
  CHECK(g.cables == 16);
  // (16 x 1500 + 20000 + 16 x 300) / (4 x 8760 h) = 48800 / 35040 = 1.392694 per hour.
  CHECK(p.candidates[0].network_price->hourly(g) == Approx(48800.0 / 35040.0));
  // One host: 8 NICs, still one switch.
  CHECK(NetworkPrice::count(plan_topology(p.candidates[0], 8)).nics == 8);
  // The rows' cost per hour adds it to the GPUs' (2.0 per GPU-hour here).
  const PlanResult r = evaluate_plan(p, 1);
  for (const PlanRow& row : r.rows) {
    const NetworkPrice::Gear gear = NetworkPrice::count(plan_topology(p.candidates[0], row.world));
    CHECK(row.cost_per_hour == Approx(2.0 * row.world + p.candidates[0].network_price->hourly(gear)));
  }
  doc["candidates"][0]["price"]["network"].erase("amortization_years");
  CHECK(plan_error_of(doc) == "/candidates/0/price/network/amortization_years |  | this field, which is required (it is missing)");
}

TEST_CASE("plan parsing expands strategies and scales the cluster generator", "[plan]") {
  const Plan p = parse_plan(minimal_plan(), "p.json", kSrc);
  REQUIRE(p.candidates.size() == 1);
  // One DGX H100 host has 8 GPU ranks; 16 GPUs = 2 hosts.
  CHECK(p.candidates[0].gpus_per_host == 8);
  CHECK(p.candidates[0].gpu_model == "H100");
  CHECK(plan_topology(p.candidates[0], 16).rank_count() == 16);
  // 2 bucket sizes x 2 accumulation counts = 4 variants, bucket-major.
  REQUIRE(p.variants.size() == 4);
  CHECK(p.variants[0].label == "ddp b25 k1");
  CHECK(p.variants[1].label == "ddp b25 k2");
  CHECK(p.variants[3].label == "ddp b50 k2");
  CHECK(p.workloads[0].name == "bert-large");
}

TEST_CASE("plan errors name the JSON pointer, the value and the expectation", "[plan]") {
  auto doc = minimal_plan();
  doc["strategies"][0]["kind"] = "zero4";
  CHECK(plan_error_of(doc) == "/strategies/0/kind | \"zero4\" | one of: ddp, zero, fsdp, megatron");

  doc = minimal_plan();
  doc["candidates"][0]["world_sizes"] = {8, 12};
  // 12 is not a whole number of 8-GPU hosts.
  CHECK(plan_error_of(doc) == "/candidates/0/world_sizes/1 | 12 | a multiple of the 8 ranks of one host of this cluster");

  doc = minimal_plan();
  doc["candidates"][0]["price"] = nlohmann::json::object({{"purchase_per_gpu", 30000}});
  CHECK(plan_error_of(doc).starts_with("/candidates/0/price/amortization_years | missing"));

  doc = minimal_plan();
  doc["candidates"][0]["price"] = nlohmann::json::object();
  CHECK(plan_error_of(doc).starts_with("/candidates/0/price | {} | at least one of"));

  doc = minimal_plan();
  doc["workloads"][0]["strategies"] = {"fsdp"};
  CHECK(plan_error_of(doc).starts_with("/workloads/0/strategies | \"fsdp\" | names from /strategies"));

  doc = minimal_plan();
  doc["workloads"][0]["global_batch"] = 0;
  CHECK(plan_error_of(doc).starts_with("/workloads/0/global_batch | 0 |"));

  doc = minimal_plan();
  doc["extra"] = 1;
  CHECK(plan_error_of(doc).starts_with("/extra | "));
}

TEST_CASE("strong-scaling efficiency and the Pareto set on hand-made rows", "[plan]") {
  // Variant 0 at 8, 16, 32 GPUs: 100, 60, 40 ms. Efficiency vs 8 GPUs = T8 x 8 / (T x N):
  // 16 -> 800/960 = 0.8333; 32 -> 800/1280 = 0.625. Variant 1 at 8 (batch invalid) and
  // 16: its base is 16 -> 1.0.
  std::vector<PlanRow> rows{row(0, 8, 100, 10.0), row(0, 16, 60, 12.0), row(0, 32, 40, 16.0),
                            row(1, 8, 0, 0, PlanStatus::BatchInvalid), row(1, 16, 50, 12.0, PlanStatus::DoesNotFit),
                            row(2, 16, 70, 12.5)};
  finish_plan_rows(rows);
  CHECK(rows[0].scaling_efficiency == Approx(1.0));
  CHECK(rows[1].scaling_efficiency == Approx(800.0 / 960.0));
  CHECK(rows[2].scaling_efficiency == Approx(0.625));
  CHECK(rows[2].efficiency_base == 8);
  CHECK(rows[4].efficiency_base == 16);
  CHECK(rows[3].efficiency_base == 0);
  // Pareto among Ok rows: (100, 10), (60, 12), (40, 16) trade off; (70, 12.5) is slower and
  // dearer than (60, 12); the row that does not fit (50, 12) would dominate (60, 12) but is
  // excluded.
  CHECK(rows[0].pareto);
  CHECK(rows[1].pareto);
  CHECK(rows[2].pareto);
  CHECK_FALSE(rows[3].pareto);
  CHECK_FALSE(rows[4].pareto);
  CHECK_FALSE(rows[5].pareto);
}

TEST_CASE("a run with failures per row: the job's MTBF, the checkpoint of the model states, the closed form", "[plan]") {
  // 16 GPUs on 2 hosts, 2 links per GPU: 16 / 1000 h + 2 / 500 h + 32 / 4000 h = 0.028 per
  // hour, a job MTBF of 35.714 h. 1e9 parameters x (2 + 12) B = 14 GB at 7 GB/s: 2 s.
  PlanFailures f;
  f.mtbf_gpu_s = 1000 * 3600.0;
  f.mtbf_host_s = 500 * 3600.0;
  f.mtbf_link_s = 4000 * 3600.0;
  f.links_per_gpu = 2;
  f.storage_bandwidth = Bandwidth{7e9};
  f.restart_s = 300;
  f.steps = 100'000;
  const PlanRun run = plan_run(f, 1.0, 16, 8, 1'000'000'000, 14);
  CHECK(run.mtbf_s == Approx(3600 / 0.028));
  CHECK(run.checkpoint == Bytes{14'000'000'000});
  CHECK(run.checkpoint_s == Approx(2.0));
  // At its interval the wall time is expected_wall_s's, and no other interval does better.
  RunModel m;
  m.step_s = 1;
  m.steps = 100'000;
  m.failure_rate = 0.028 / 3600;
  m.checkpoint_s = 2;
  m.restart_s = 300;
  m.restore_s = 2;
  m.interval_s = run.interval_s;
  REQUIRE(run.wall_s);
  CHECK(*run.wall_s == Approx(expected_wall_s(m)).epsilon(1e-12));
  CHECK(run.goodput == Approx(100'000 / *run.wall_s));
  CHECK(run.interruptions == Approx(m.failure_rate * *run.wall_s));
  for (double k : {0.5, 0.8, 1.25, 2.0}) {
    m.interval_s = run.interval_s * k;
    CHECK(expected_wall_s(m) >= *run.wall_s);
  }
  CHECK(run.interval_s == Approx(daly_interval_s(2, run.mtbf_s)).epsilon(0.1));
  // Interruptions every few seconds against a 10-minute restart: the run never ends.
  f.mtbf_gpu_s = 16.0;
  CHECK_FALSE(plan_run(f, 1.0, 16, 8, 1'000'000'000, 14).wall_s);
}

TEST_CASE("with failures the Pareto set is on the run's time and cost, and a run that never ends is not in it", "[plan]") {
  // A: faster per step, but its run takes 10 h for 1,000 per hour; B: 8 h at 100 per hour;
  // C never ends.
  std::vector<PlanRow> rows{row(0, 16, 40, 16.0), row(0, 8, 60, 12.0), row(1, 8, 30, 10.0)};
  const double walls[] = {36000, 28800};
  const double hourly[] = {1000, 100, 50};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].cost_per_hour = hourly[i];
    rows[i].run = PlanRun{};
    if (i < 2) rows[i].run->wall_s = walls[i];
  }
  finish_plan_rows(rows);
  CHECK_FALSE(rows[0].pareto);
  CHECK(rows[1].pareto);
  CHECK_FALSE(rows[2].pareto);
  CHECK(*rows[1].run_cost() == Approx(800));
  CHECK_FALSE(rows[2].run_cost());
}

}  // namespace collsim

namespace collsim {

TEST_CASE("evaluating a DDP plan: every combination, in plan order, same rows for any thread count", "[plan]") {
  const Plan p = parse_plan(minimal_plan(), "p.json", kSrc);
  const PlanResult one = evaluate_plan(p, 1);
  const PlanResult two = evaluate_plan(p, 2);
  // 1 candidate x 1 workload x 4 variants x 2 world sizes = 8 rows, variant-major then world.
  REQUIRE(one.rows.size() == 8);
  REQUIRE(two.rows.size() == 8);
  for (std::size_t i = 0; i < one.rows.size(); ++i) {
    CHECK(one.rows[i].variant == two.rows[i].variant);
    CHECK(one.rows[i].world == two.rows[i].world);
    CHECK(one.rows[i].step == two.rows[i].step);
    CHECK(one.rows[i].memory.total == two.rows[i].memory.total);
  }
  const PlanRow& r = one.rows[1];  // ddp b25 k1 at 16 GPUs
  CHECK(r.variant == 0);
  CHECK(r.world == 16);
  // 256 samples / (16 GPUs x 1 step) = 16 per GPU.
  CHECK(r.micro_batch == 16);
  REQUIRE(r.step.ps > 0);
  // samples/s = 256 / step; cost per hour = 16 GPUs x 2.0; per million samples = that x
  // step in hours / 256 x 1e6.
  const double step_s = static_cast<double>(r.step.ps) / 1e12;
  CHECK(r.samples_per_s == Approx(256 / step_s));
  CHECK(r.cost_per_hour == Approx(32.0));
  CHECK(r.cost_per_million == Approx(32.0 * step_s / 3600 / 256 * 1e6));
  // With 2 accumulation steps at 8 GPUs: 256 / (8 x 2) = 16 per micro-step.
  CHECK(one.rows[2].micro_batch == 16);
  // Efficiency of the 16-GPU row against its 8-GPU base: T8 x 8 / (T16 x 16).
  CHECK(r.efficiency_base == 8);
  CHECK(r.scaling_efficiency ==
        Approx(static_cast<double>(one.rows[0].step.ps) * 8 / (static_cast<double>(r.step.ps) * 16)));
}

}  // namespace collsim

namespace collsim {

TEST_CASE("Llama 2 7B in a plan: DDP does not fit on 80 GiB, ZeRO-2 and FSDP shard it over 16 GPUs", "[plan]") {
  auto doc = minimal_plan();
  doc["candidates"][0]["world_sizes"] = {16};
  doc["workloads"][0] = {{"file", "workloads/llama2-7b.json"}, {"global_batch", 16}};
  doc["strategies"] = nlohmann::json::parse(R"([
    {"name": "ddp", "kind": "ddp", "activation_checkpointing": true},
    {"name": "zero", "kind": "zero", "stages": [2], "activation_checkpointing": true},
    {"name": "fsdp", "kind": "fsdp", "sharding": ["full_shard", "hybrid_shard"], "activation_checkpointing": true}])");
  const Plan p = parse_plan(doc, "p.json", kSrc);
  const PlanResult r = evaluate_plan(p, 2);
  REQUIRE(r.rows.size() == 4);  // ddp, zero2, full_shard, hybrid_shard at 16 GPUs
  const std::int64_t psi = 6'738'415'616;  // Llama 2 7B parameters (workloads/llama2-7b.json)
  for (const auto& row : r.rows) {
    CHECK(row.micro_batch == 1);  // 16 samples / 16 GPUs
    CHECK(row.step.ps > 0);
  }
  // DDP, Adam mixed precision: 2 + 2 + 12 = 16 bytes per parameter on every GPU,
  // 6.738e9 x 16 = 107.8 GB > 80 GiB = 85.9 GB before buckets and activations.
  CHECK(r.rows[0].memory.optimizer.count == psi * 12);
  CHECK(r.rows[0].status == PlanStatus::DoesNotFit);
  CHECK(r.rows[0].memory.margin_bytes < 0);
  // ZeRO-2: optimizer state and gradients sharded over 16 ranks, parameters replicated:
  // 2 psi + (2 + 12) psi / 16 = 13.48 + 5.90 GB (plus buffers and activations) -> fits.
  CHECK(r.rows[1].memory.parameters.count == psi * 2);
  CHECK(r.rows[1].memory.optimizer.count == psi * 12 / 16);
  CHECK(r.rows[1].status == PlanStatus::Ok);
  // FULL_SHARD over all 16; HYBRID_SHARD over one 8-GPU node: states psi x 16 / 16 vs / 8.
  CHECK(r.rows[2].memory.optimizer.count == psi * 12 / 16);
  CHECK(r.rows[3].memory.optimizer.count == psi * 12 / 8);
  CHECK(r.rows[2].status == PlanStatus::Ok);
  CHECK(r.rows[3].status == PlanStatus::Ok);
  // FSDP holds gathered units at the peak (at least one decoder layer's bf16 parameters).
  CHECK(r.rows[2].memory.unsharded.count > 0);
  // Only fitting rows can be Pareto-best.
  CHECK_FALSE(r.rows[0].pareto);
}

}  // namespace collsim
