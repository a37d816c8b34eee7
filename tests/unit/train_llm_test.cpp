// Transformer shapes, parallel layouts, pipeline schedules and LLM steps, each expected value
// derived in a comment before it is checked. Collective costs are closed-form lambdas.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/train/host_link.hpp"
#include "sim/train/llm_model.hpp"
#include "sim/train/llm_search.hpp"
#include "sim/train/llm_step.hpp"
#include "sim/train/pipeline_schedule.hpp"
#include "sim/train/transformer.hpp"
#include "sim/train/workload.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {
namespace {

using Recompute = TransformerShape::Recompute;

Time ms(std::int64_t v) { return Time::from_ms(v); }

// GPT as Megatron-LM counts it: biases, learned positions, tied embeddings, FFN 4h, dropout.
TransformerShape gpt(std::int64_t layers, std::int64_t h, std::int64_t heads, std::int64_t vocab, std::int64_t seq) {
  return parse_transformer_shape({{"layers", layers}, {"hidden", h}, {"heads", heads}, {"vocab", vocab}, {"sequence", seq},
                                  {"learned_positions", true}, {"biases", true}},
                                 "test", "/transformer");
}

TEST_CASE("transformer parameters and FLOPs follow Megatron-LM's formulas", "[llm]") {
  const TransformerShape s = gpt(96, 12288, 96, 51200, 2048);
  // Narayanan et al. 2021 eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12lh)) = 12lh^2 + 13lh + (V+s)h;
  // collsim also counts the final layer norm (2h).
  const std::int64_t h = 12288, l = 96;
  CHECK(s.parameters() == 12 * l * h * h + 13 * l * h + (51200 + 2048) * h + 2 * h);
  // Appendix: 24 B s h^2 + 4 B s^2 h forward FLOPs per layer, i.e. 24h^2 + 4sh per token.
  CHECK(s.layer_forward_flops_per_token() == Approx(24.0 * h * h + 4.0 * 2048 * h));
  CHECK(s.logit_flops_per_token() == Approx(2.0 * h * 51200));
}

TEST_CASE("shipped transformer shapes count the parameters their lists hold", "[llm]") {
  // GPT-2 medium (tied, learned positions, biases), Llama 2 7B (SwiGLU, untied) and 70B
  // (grouped-query attention, 8 KV heads): the shape's formula against the real parameter list.
  for (const char* name : {"gpt2-medium", "llama2-7b", "llama2-70b"}) {
    const Workload w = load_workload_file(std::string(COLLSIM_SOURCE_DIR) + "/workloads/" + name + ".json");
    REQUIRE(w.transformer);
    INFO(name);
    CHECK(w.transformer->parameters() == w.parameter_count());
  }
}

TEST_CASE("activation bytes per layer follow Korthikanti et al. 2022", "[llm]") {
  const TransformerShape s = gpt(1, 4096, 32, 51200, 2048);
  const double sbh = 2048.0 * 4096, as2b = 32.0 * 2048 * 2048;
  CHECK(s.activation_bytes_per_token_hidden() == Approx(34));
  // No parallelism: s b h (34 + 5 a s / h).
  CHECK(s.layer_activation_bytes(1, 1, false, Recompute::None) == Approx(34 * sbh + 5 * as2b));
  // TP t = 8 without SP: s b h (10 + 24/t) + 5 a s^2 b / t.
  CHECK(s.layer_activation_bytes(1, 8, false, Recompute::None) == Approx(sbh * (10 + 24.0 / 8) + 5 * as2b / 8));
  // With SP everything splits: (34 s b h + 5 a s^2 b) / t; selective recompute drops the 5 a s^2 b.
  CHECK(s.layer_activation_bytes(1, 8, true, Recompute::None) == Approx((34 * sbh + 5 * as2b) / 8));
  CHECK(s.layer_activation_bytes(1, 8, true, Recompute::Selective) == Approx(34 * sbh / 8));
  // Full recompute keeps the layer input: 2 s b h (split by SP).
  CHECK(s.layer_activation_bytes(2, 8, false, Recompute::Full) == Approx(2 * 2 * sbh));
}

TEST_CASE("transformer shapes are checked", "[llm]") {
  const nlohmann::json base = {{"layers", 2}, {"hidden", 64}, {"heads", 4}, {"vocab", 128}, {"sequence", 32}};
  auto with = [&](const char* k, const nlohmann::json& v) {
    nlohmann::json j = base;
    j[k] = v;
    return j;
  };
  REQUIRE_THROWS_AS(parse_transformer_shape(with("heads", 5), "t", ""), ConfigError);     // not a divisor of hidden
  REQUIRE_THROWS_AS(parse_transformer_shape(with("kv_heads", 3), "t", ""), ConfigError);  // not a divisor of heads
  REQUIRE_THROWS_AS(parse_transformer_shape(with("top_k", 2), "t", ""), ConfigError);     // dense model
  REQUIRE_THROWS_AS(parse_transformer_shape(with("colour", 1), "t", ""), ConfigError);    // unknown key
  REQUIRE_THROWS_AS(parse_transformer_shape(with("layers", 100001), "t", ""), ConfigError);  // out of range
  nlohmann::json huge = with("layers", 1000);
  huge["hidden"] = 1 << 22;  // 1000 x 4 x 2^44 parameters: past 10^15
  REQUIRE_THROWS_AS(parse_transformer_shape(huge, "t", ""), ConfigError);
  REQUIRE_NOTHROW(parse_transformer_shape(base, "t", ""));
}

TEST_CASE("layout groups place TP innermost", "[llm]") {
  ParallelLayout l{2, 2, 2};
  // tp-dp-pp: rank = t + 2 (d + 2 p).
  CHECK(l.tp_groups() == std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(l.dp_groups(1) == std::vector<std::vector<int>>{{4, 6}, {5, 7}});
  CHECK(l.stage_pairs(0) == std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  l.order = PlacementOrder::TpPpDp;  // rank = t + 2 (p + 2 d)
  CHECK(l.dp_groups(0) == std::vector<std::vector<int>>{{0, 4}, {1, 5}});
  CHECK(l.stage_pairs(0) == std::vector<std::vector<int>>{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
}

PipelineCosts uniform(int pp, int v, int m, Time f, Time b) {
  PipelineCosts c;
  c.pp = pp;
  c.virtual_stages = v;
  c.micro_batches = m;
  c.forward.assign(static_cast<std::size_t>(pp * v), f);
  c.backward.assign(static_cast<std::size_t>(pp * v), b);
  c.p2p.assign(static_cast<std::size_t>(pp - 1), Time{});
  return c;
}

TEST_CASE("1F1B and GPipe leave the (p-1)/(m+p-1) bubble", "[llm]") {
  for (int p : {1, 2, 4, 8}) {
    for (int m : {1, 4, 8, 32}) {
      // With forward F and backward B on every stage and free sends, both schedules take
      // (m + p - 1)(F + B): every stage does m (F + B) of work and waits p - 1 slots.
      for (PipelineKind k : {PipelineKind::OneFOneB, PipelineKind::GPipe}) {
        const PipelineRun r = play_pipeline(k, uniform(p, 1, m, ms(1), ms(2)));
        CHECK(r.makespan == ms(3) * (m + p - 1));
        CHECK(r.bubble_fraction() == Approx(double(p - 1) / (m + p - 1)));
      }
      // Activations held on stage 0: 1F1B at most p micro-batches, GPipe all m.
      CHECK(play_pipeline(PipelineKind::OneFOneB, uniform(p, 1, m, ms(1), ms(2))).peak_in_flight[0] == std::min(p, m));
      CHECK(play_pipeline(PipelineKind::GPipe, uniform(p, 1, m, ms(1), ms(2))).peak_in_flight[0] == m);
    }
  }
}

TEST_CASE("interleaved 1F1B divides the bubble by the chunks", "[llm]") {
  // v chunks of F/v and B/v per rank: m (F + B) of work plus (p - 1)(F + B)/v of bubble
  // (Narayanan et al. 2021, section 2.2.2). p = 4, m = 8, v = 2, F = 2 ms, B = 4 ms:
  // 8 x 6 + 3 x 6 / 2 = 57 ms.
  const PipelineRun r = play_pipeline(PipelineKind::Interleaved, uniform(4, 2, 8, ms(1), ms(2)));
  CHECK(r.makespan == ms(57));
  REQUIRE_THROWS_AS(play_pipeline(PipelineKind::Interleaved, uniform(4, 2, 6, ms(1), ms(2))), std::invalid_argument);
}

TEST_CASE("sends that block their rank add to the steady state", "[llm]") {
  // p = 2, m = 1, F = 1, B = 2 ms, send 1 ms: F on rank 0 (0-1), send (1-2), F on rank 1
  // (2-3), B on rank 1 (3-5), send back (5-6), B on rank 0 (6-8).
  PipelineCosts c = uniform(2, 1, 1, ms(1), ms(2));
  c.p2p = {ms(1)};
  CHECK(play_pipeline(PipelineKind::OneFOneB, c).makespan == ms(8));
}

// A device with round numbers: 100 TFLOP/s fp16, 1 TB/s HBM, 80 GB, no SM count (no waves).
DeviceSpec round_device() {
  DeviceSpec d;
  d.name = "test";
  d.fp16_flops = 100e12;
  d.bf16_flops = 100e12;
  d.hbm_capacity = Bytes{80'000'000'000};
  d.hbm_bandwidth = Bandwidth::gb_per_s(1000);
  return d;
}

// Every collective 1 ms, every point-to-point 0 (they are 2-rank broadcasts).
Time one_ms(CollectiveOp op, Bytes, const std::vector<std::vector<int>>&) {
  return op == CollectiveOp::Broadcast ? Time{} : ms(1);
}

LlmModel small_model() {
  LlmModel m;
  m.name = "small";
  m.shape = gpt(8, 1024, 16, 1024, 512);
  m.precision = "fp16";
  m.efficiency = 1.0;
  return m;
}

TEST_CASE("TP all-reduces per layer: two in forward, two in backward", "[llm]") {
  LlmTraining tr;
  tr.layout = ParallelLayout{4, 1, 1};
  tr.global_batch = 2;
  const LlmStep none = evaluate_llm_step(small_model(), tr, round_device(), one_ms, std::nullopt, 8);
  // Megatron's f and g operators: attention and MLP each end in one all-reduce forward and
  // one backward: 4 per layer, 4 ms of TP time per layer per micro-batch at 1 ms each.
  CHECK(none.tp_collectives_per_layer == 4);
  CHECK(none.stages[0].tp_forward + none.stages[0].tp_backward == ms(4) * 8);
  tr.recompute = Recompute::Full;  // the forward's two again in backward
  CHECK(evaluate_llm_step(small_model(), tr, round_device(), one_ms, std::nullopt, 8).tp_collectives_per_layer == 6);
  tr.recompute = Recompute::None;
  tr.sequence_parallel = true;  // each all-reduce becomes an all-gather and a reduce-scatter
  CHECK(evaluate_llm_step(small_model(), tr, round_device(), one_ms, std::nullopt, 8).tp_collectives_per_layer == 8);
}

TEST_CASE("full recompute adds the recomputed layers' forward to the step", "[llm]") {
  LlmTraining tr;
  tr.global_batch = 4;  // 4 micro-batches of 1 on one GPU
  const LlmModel m = small_model();
  const LlmStep none = evaluate_llm_step(m, tr, round_device(), one_ms, std::nullopt, 8);
  tr.recompute = Recompute::Full;
  const LlmStep full = evaluate_llm_step(m, tr, round_device(), one_ms, std::nullopt, 8);
  // One layer's forward: 512 tokens x (24h^2 + 4sh) FLOPs at 100 TFLOP/s, plus its stored
  // activations written and read (2 x bytes) at 1 TB/s. Full recompute repeats it for all 8
  // layers of each of the 4 micro-batches; the optimizer and memory traffic do not change.
  const double flops = 512.0 * m.shape.layer_forward_flops_per_token();
  const double bytes = 2.0 * m.shape.layer_activation_bytes(1, 1, false, Recompute::None);
  const Time layer = Time::from_seconds(flops / 100e12) + Time::from_seconds(bytes / 1e12);
  CHECK(full.step - none.step == layer * (8 * 4));
  CHECK(full.hardware_flops - none.hardware_flops == Approx(4 * 8 * flops));
  CHECK(full.model_flops == none.model_flops);
}

TEST_CASE("model state per parameter is Megatron-LM's: 20 B under fp16, 18 B under bf16", "[llm]") {
  // Megatron-LM's distributed optimizer guide: fp16 parameters and gradients 20 B per
  // parameter without the distributed optimizer, 4 + 16/d with it; bf16 parameters with fp32
  // gradients 18 B, 6 + 12/d. One GPU's share of a 2-replica DP layout.
  LlmModel m = small_model();
  const auto params = static_cast<double>(m.shape.parameters());
  LlmTraining tr;
  tr.layout = ParallelLayout{1, 1, 2};
  tr.global_batch = 2;
  for (const char* precision : {"fp16", "bf16"}) {
    INFO(precision);
    m.precision = precision;
    const bool fp16 = m.precision == "fp16";
    for (bool zero : {false, true}) {
      INFO("distributed optimizer " << zero);
      tr.distributed_optimizer = zero;
      const LlmMemory mem = evaluate_llm_step(m, tr, round_device(), one_ms, std::nullopt, 8).stages[0].memory;
      // At the optimizer step: weights, gradients, the optimizer's state and its fp32 gradient copy.
      const double state = static_cast<double>((mem.weights + mem.gradients + mem.optimizer + mem.step_gradients).count);
      const double expected = fp16 ? (zero ? 4 + 16.0 / 2 : 20) : (zero ? 6 + 12.0 / 2 : 18);
      CHECK(state / params == Approx(expected).epsilon(1e-9));
      // The copy is made once the backward has freed the activations: the peak holds the larger.
      CHECK(mem.total() == mem.weights + mem.gradients + mem.optimizer + std::max(mem.activations + mem.logits, mem.step_gradients));
      CHECK((mem.step_gradients > Bytes{}) == fp16);
    }
  }
}

TEST_CASE("without gradient-accumulation fusion each backward adds its weight gradients into the main ones", "[llm]") {
  // Megatron-LM before 2022: DDP's hook runs main_grad.add_(grad) for every parameter after
  // every micro-batch's backward. fp16: the 2-byte gradient read, the 2-byte main gradient
  // read and written, 6 B per parameter at the HBM's 1000 GB/s; bf16 keeps fp32 main
  // gradients, 10 B. One GPU, 8 layers, 3 micro-batches, GPT's tied embeddings (the head
  // adds nothing of its own on one stage).
  for (const std::string precision : {"fp16", "bf16"}) {
    INFO(precision);
    LlmModel m = small_model();
    m.precision = precision;
    LlmTraining fused;
    fused.global_batch = 3;
    LlmTraining plain = fused;
    plain.gradient_accumulation_fusion = false;
    const LlmStep a = evaluate_llm_step(m, fused, round_device(), one_ms, std::nullopt, 8);
    const LlmStep b = evaluate_llm_step(m, plain, round_device(), one_ms, std::nullopt, 8);
    const double bytes = precision == "fp16" ? 6.0 : 10.0;
    const auto add = [&](std::int64_t params) { return Time::from_seconds(bytes * static_cast<double>(params) / 1000e9); };
    const TransformerShape& sh = m.shape;
    REQUIRE(sh.tied_embeddings);
    const Time per_micro_batch = add(sh.layer_parameters()) * sh.layers + add(sh.embedding_parameters());
    CHECK(b.pipeline - a.pipeline == per_micro_batch * 3);
    CHECK(b.step - a.step == per_micro_batch * 3);
    // Split over 2 tensor ranks, each adds half the parameters.
    fused.layout = plain.layout = ParallelLayout{2, 1, 1};
    const LlmStep c = evaluate_llm_step(m, fused, round_device(), one_ms, std::nullopt, 8);
    const LlmStep d = evaluate_llm_step(m, plain, round_device(), one_ms, std::nullopt, 8);
    const auto half = [&](std::int64_t params) { return Time::from_seconds(bytes * (static_cast<double>(params) / 2) / 1000e9); };
    CHECK(d.pipeline - c.pipeline == (half(sh.layer_parameters()) * sh.layers + half(sh.embedding_parameters())) * 3);
  }
}

TEST_CASE("optimizer offload: gradients down, Adam on the CPU at the DRAM rate, weights up", "[llm]") {
  LlmTraining tr;
  tr.global_batch = 1;
  tr.offload_optimizer = true;
  const LlmModel m = small_model();
  const HostLink host{Bandwidth::gb_per_s(16), Bandwidth::gb_per_s(50)};
  const LlmStep s = evaluate_llm_step(m, tr, round_device(), one_ms, host, 8);
  // fp16: 2-byte gradients down and 2-byte weights back over PCIe, for every parameter of
  // the one GPU; Adam streams its 30 B per parameter through the host's DRAM.
  const auto params = static_cast<double>(m.shape.parameters());
  CHECK(s.offload_down == Time::from_seconds(2.0 * params / 16e9));
  CHECK(s.offload_up == Time::from_seconds(2.0 * params / 16e9));
  CHECK(s.offload_cpu == Time::from_seconds(30.0 * params / 50e9));
  CHECK(s.offload == s.offload_down + s.offload_cpu + s.offload_up);
  CHECK(s.optimizer == Time{});
  CHECK(s.stages[0].memory.optimizer == Bytes{});
  // The offload stands where the GPU's optimizer step was.
  LlmTraining on_gpu = tr;
  on_gpu.offload_optimizer = false;
  const LlmStep g = evaluate_llm_step(m, on_gpu, round_device(), one_ms, host, 8);
  CHECK(g.offload == Time{});
  CHECK(g.optimizer > Time{});
  CHECK(s.step - s.offload == g.step - g.optimizer);
  // Half the DRAM rate: the CPU's Adam takes twice as long, the transfers as before.
  const LlmStep slow = evaluate_llm_step(m, tr, round_device(), one_ms, HostLink{host.bandwidth, Bandwidth::gb_per_s(25)}, 8);
  CHECK(slow.offload_cpu == Time::from_seconds(30.0 * params / 25e9));
  CHECK(slow.offload_down == s.offload_down);
  // Megatron-Core's --overlap-cpu-optimizer-d2h-h2d: pipelined over the rank's layers, the
  // slowest part throughout and the other two for one layer's share.
  LlmTraining overlapped = tr;
  overlapped.overlap_offload = true;
  const LlmStep o = evaluate_llm_step(m, overlapped, round_device(), one_ms, host, 8);
  CHECK(o.offload_cpu == s.offload_cpu);
  const Time others = s.offload_down + s.offload_up;
  CHECK(o.offload == s.offload_cpu + Time{others.ps / m.shape.layers});
  CHECK(s.step - o.step == s.offload - o.offload);
  on_gpu.overlap_offload = true;  // nothing to overlap
  REQUIRE_THROWS_AS(evaluate_llm_step(m, on_gpu, round_device(), one_ms, host, 8), ConfigError);
  REQUIRE_THROWS_AS(evaluate_llm_step(m, tr, round_device(), one_ms, std::nullopt, 8), ConfigError);
  // A host whose DRAM rate the topology does not give cannot run the CPU's Adam.
  REQUIRE_THROWS_WITH(evaluate_llm_step(m, tr, round_device(), one_ms, HostLink{host.bandwidth}, 8),
                      Catch::Contains("memory_bandwidth"));
}

TEST_CASE("the host link is the GPU's share of its PCIe path", "[llm]") {
  // Two GPUs behind one PCIe switch with a 32 GB/s uplink to the CPU: each gets 16 GB/s.
  const nlohmann::json doc = {
      {"name", "pcie-pair"},
      {"nodes", {{{"id", "h"}, {"kind", "host"}},
                 {{"id", "g0"}, {"kind", "gpu"}, {"model", "A100"}, {"host", "h"}},
                 {{"id", "g1"}, {"kind", "gpu"}, {"model", "A100"}, {"host", "h"}},
                 {{"id", "sw"}, {"kind", "pcie_switch"}, {"host", "h"}},
                 {{"id", "cpu"}, {"kind", "cpu"}, {"host", "h"}, {"memory_bandwidth", "100GB/s"}}}},
      {"links", {{{"endpoints", {"g0", "sw"}}, {"kind", "pcie"}, {"bandwidth", "32GB/s"}, {"latency", "1us"}},
                 {{"endpoints", {"g1", "sw"}}, {"kind", "pcie"}, {"bandwidth", "32GB/s"}, {"latency", "1us"}},
                 {{"endpoints", {"sw", "cpu"}}, {"kind", "pcie"}, {"bandwidth", "32GB/s"}, {"latency", "1us"}}}}};
  const Topology topo = load_topology_json(doc, "pcie-pair");
  LinkGraph graph(topo);
  const auto link = host_link_of(graph, 0);
  REQUIRE(link);
  CHECK(link->bandwidth.bytes_per_s == Approx(16e9));
  // Both GPUs' nearest CPU is the one socket: each gets half its DRAM rate.
  CHECK(link->memory.bytes_per_s == Approx(50e9));
}

TEST_CASE("the host's DRAM rate: each socket's datasheet figure, shared by the GPUs nearest it", "[llm]") {
  // DGX H100: two Xeon 8480C, 8 channels of DDR5-4800 each (307.2 GB/s); four GPUs a socket.
  const Topology dgx = load_topology_file(test::shipped_topology("dgx-h100.json"));
  int sockets = 0;
  for (const Node& n : dgx.nodes) {
    if (n.kind != NodeKind::Cpu) continue;
    ++sockets;
    CHECK(n.memory_bandwidth.bytes_per_s == Approx(307.2e9));
  }
  CHECK(sockets == 2);
  LinkGraph graph(dgx);
  for (int r : {0, 7}) {
    const auto link = host_link_of(graph, r);
    REQUIRE(link);
    CHECK(link->memory.bytes_per_s == Approx(307.2e9 / 4));
  }
  // DGX A100 (EPYC 7742: 8 x DDR4-3200) and DGX-1 (E5-2698 v4: 4 x DDR4-2400).
  CHECK(load_topology_file(test::shipped_topology("dgx-a100.json")).nodes[1].memory_bandwidth.bytes_per_s == Approx(204.8e9));
  CHECK(load_topology_file(test::shipped_topology("dgx1-v100.json")).nodes[1].memory_bandwidth.bytes_per_s == Approx(76.8e9));
}

TEST_CASE("memory_bandwidth: cpu nodes only, a bandwidth; refused with file, pointer, value and expectation", "[llm][topo]") {
  nlohmann::json doc = {
      {"nodes", {{{"id", "h"}, {"kind", "host"}},
                 {{"id", "g"}, {"kind", "gpu"}, {"model", "A100"}, {"host", "h"}},
                 {{"id", "c"}, {"kind", "cpu"}, {"host", "h"}, {"memory_bandwidth", "204.8GB/s"}}}},
      {"links", {{{"endpoints", {"g", "c"}}, {"kind", "pcie"}, {"bandwidth", "32GB/s"}, {"latency", "1us"}}}}};
  CHECK(load_topology_json(doc, "t.json").nodes[2].memory_bandwidth.bytes_per_s == Approx(204.8e9));
  const auto one_error = [&](const std::vector<std::string>& pieces) {
    const Diagnostics e = check_topology_json(doc, "t.json").errors;
    for (const auto& x : e) UNSCOPED_INFO(x.what());
    REQUIRE(e.size() == 1);
    for (const auto& p : pieces) CHECK_THAT(e.front().what(), Catch::Contains(p));
  };
  doc["nodes"][2]["memory_bandwidth"] = "fast";
  one_error({"t.json", "/nodes/2/memory_bandwidth", "got \"fast\"", "bandwidth"});
  doc["nodes"][2]["memory_bandwidth"] = 200;
  one_error({"/nodes/2/memory_bandwidth", "got 200"});
  doc["nodes"][2]["memory_bandwidth"] = "0GB/s";
  one_error({"/nodes/2/memory_bandwidth", "got \"0GB/s\""});
  doc["nodes"][2].erase("memory_bandwidth");
  doc["nodes"][1]["memory_bandwidth"] = "100GB/s";
  one_error({"/nodes/1/memory_bandwidth", "got \"100GB/s\"", "no memory_bandwidth except on a cpu node"});
}

TEST_CASE("layouts the model or batch cannot take are refused", "[llm]") {
  const LlmModel m = small_model();  // 16 heads, 8 layers
  auto refused = [&](LlmTraining tr) {
    REQUIRE_THROWS_AS(evaluate_llm_step(m, tr, round_device(), one_ms, std::nullopt, 8), ConfigError);
  };
  LlmTraining tr;
  tr.global_batch = 8;
  tr.layout = ParallelLayout{3, 1, 1};  // 16 heads over 3
  refused(tr);
  tr.layout = ParallelLayout{1, 3, 1};  // 8 layers over 3 stages
  refused(tr);
  tr.layout = ParallelLayout{1, 1, 3};  // 8 samples over 3 replicas
  refused(tr);
  tr.layout = ParallelLayout{1, 4, 1, 2};  // chunks without the interleaved schedule
  refused(tr);
  tr.schedule = PipelineKind::Interleaved;
  tr.global_batch = 6;  // 6 micro-batches, not a multiple of pp
  refused(tr);
  tr.global_batch = 8;
  REQUIRE_NOTHROW(evaluate_llm_step(m, tr, round_device(), one_ms, std::nullopt, 8));
  tr.layout = ParallelLayout{1, 2, 1, 2};  // interleaved on 2 stages: Megatron-LM refuses it
  refused(tr);
}

// A small MoE GPT: 8 layers, h 1024, 4 experts of FFN 4h, top-2.
LlmModel small_moe() {
  LlmModel m = small_model();
  m.shape.experts = 4;
  m.shape.top_k = 2;
  return m;
}

TEST_CASE("Mixtral 8x7B's shape counts its published 46.7B parameters, 12.9B active", "[llm][moe]") {
  const LlmModel m = load_llm_model(std::string(COLLSIM_SOURCE_DIR) + "/workloads/mixtral-8x7b.json");
  const TransformerShape& s = m.shape;
  // Per layer: Q and O 4096^2 each, K and V 4096 x 1024 (8 KV heads of 128), 8 SwiGLU
  // experts of 3 x 4096 x 14336, a 4096 x 8 router, two RMSNorms; untied 32000 x 4096
  // embedding and head, a final norm.
  const std::int64_t h = 4096, f = 14336, kv = 1024;
  const std::int64_t attention = 2 * h * h + 2 * h * kv, expert = 3 * h * f;
  CHECK(s.layer_expert_parameters() == 8 * expert);
  CHECK(s.parameters() == 32 * (attention + 8 * expert + 8 * h + 2 * h) + 2 * 32000 * h + h);
  CHECK(static_cast<double>(s.parameters()) == Approx(46.7e9).epsilon(0.002));
  const double active = 32.0 * static_cast<double>(s.layer_active_parameters()) + 2.0 * 32000 * h;
  CHECK(active == Approx(12.9e9).epsilon(0.01));
}

TEST_CASE("EP groups are neighbouring replicas; expert-DP groups hold the same experts", "[llm][moe]") {
  ParallelLayout l{1, 1, 8, 1, 4};
  CHECK(l.ep_groups(0) == std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(l.expert_dp_groups(0) == std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  // tp-dp-pp with tp 2: rank = t + 2 d; every tensor rank has its own groups.
  ParallelLayout t{2, 1, 4, 1, 2};
  CHECK(t.ep_groups(0) == std::vector<std::vector<int>>{{0, 2}, {4, 6}, {1, 3}, {5, 7}});
  CHECK(t.expert_dp_groups(0) == std::vector<std::vector<int>>{{0, 4}, {2, 6}, {1, 5}, {3, 7}});
  CHECK(t.label() == "tp2 pp1 dp4 ep2");
}

TEST_CASE("MoE all-to-alls: dispatch and combine in forward and in backward", "[llm][moe]") {
  LlmTraining tr;
  tr.layout = ParallelLayout{1, 1, 4, 1, 4};
  tr.global_batch = 4;  // one micro-batch of 1 per replica
  std::vector<std::pair<std::int64_t, std::size_t>> seen;  // all-to-all bytes and group size
  const GroupsCostFn a2a_ms = [&seen](CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups) {
    if (op != CollectiveOp::AllToAll) return Time{};
    seen.emplace_back(bytes.count, groups.front().size());
    return ms(1);
  };
  const LlmStep step = evaluate_llm_step(small_moe(), tr, round_device(), a2a_ms, std::nullopt, 8);
  // 4 per layer per micro-batch at 1 ms: 4 ms x 8 layers on the rank's one micro-batch.
  CHECK(step.ep_all_to_alls_per_layer == 4);
  CHECK(step.stages[0].ep_forward + step.stages[0].ep_backward == ms(4) * 8);
  // Each rank sends its 512 tokens twice (top-2) of h = 1024 in 16 bits, over its EP group of 4.
  REQUIRE(!seen.empty());
  CHECK(seen.front() == std::make_pair(std::int64_t{512 * 2 * 1024 * 2}, std::size_t{4}));
  // Full recompute runs the forward's two again: 8 more ms on the step.
  tr.recompute = Recompute::Full;
  const LlmStep full = evaluate_llm_step(small_moe(), tr, round_device(), a2a_ms, std::nullopt, 8);
  CHECK(full.ep_all_to_alls_per_layer == 6);
  CHECK(full.stages[0].recompute - step.stages[0].recompute >= ms(2) * 8);
  // Without EP every expert is local: no all-to-all.
  tr.layout.ep = 1;
  CHECK(evaluate_llm_step(small_moe(), tr, round_device(), a2a_ms, std::nullopt, 8).ep_all_to_alls_per_layer == 0);
}

TEST_CASE("EP splits the experts' weights, and their gradients reduce over expert-DP", "[llm][moe]") {
  const LlmModel m = small_moe();
  std::vector<std::pair<std::int64_t, std::size_t>> reduced;  // all-reduce bytes, group size
  const GroupsCostFn record = [&reduced](CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups) {
    if (op == CollectiveOp::AllReduce) reduced.emplace_back(bytes.count, groups.front().size());
    return Time{};
  };
  LlmTraining tr;
  tr.global_batch = 8;
  tr.layout = ParallelLayout{1, 1, 8, 1, 1};
  const LlmStep ep1 = evaluate_llm_step(m, tr, round_device(), record, std::nullopt, 8);
  tr.layout.ep = 4;
  reduced.clear();
  const LlmStep ep4 = evaluate_llm_step(m, tr, round_device(), record, std::nullopt, 8);
  // Each rank keeps 1 of the 4 experts: 3/4 of 8 layers' experts fewer, 2 B each.
  const std::int64_t experts = 8 * m.shape.layer_expert_parameters();
  CHECK(ep1.stages[0].memory.weights.count - ep4.stages[0].memory.weights.count == 2 * experts * 3 / 4);
  // fp16 gradients: the dense part over all 8 replicas, the rank's expert over the 2 that
  // hold it.
  const std::int64_t dense = m.shape.parameters() - experts;
  REQUIRE(reduced.size() == 2);
  CHECK(reduced[0] == std::make_pair(2 * dense, std::size_t{8}));
  CHECK(reduced[1] == std::make_pair(2 * experts / 4, std::size_t{2}));
  // ZeRO-1 gathers the updated 16-bit weights the same way; without EP the experts are
  // gathered with the rest, over all 8 replicas.
  std::vector<std::pair<std::int64_t, std::size_t>> gathered;
  const GroupsCostFn gathers = [&gathered](CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups) {
    if (op == CollectiveOp::AllGather) gathered.emplace_back(bytes.count, groups.front().size());
    return Time{};
  };
  tr.distributed_optimizer = true;
  (void)evaluate_llm_step(m, tr, round_device(), gathers, std::nullopt, 8);
  CHECK(gathered == std::vector<std::pair<std::int64_t, std::size_t>>{{2 * dense, 8}, {2 * experts / 4, 2}});
  gathered.clear();
  tr.layout.ep = 1;
  (void)evaluate_llm_step(m, tr, round_device(), gathers, std::nullopt, 8);
  CHECK(gathered == std::vector<std::pair<std::int64_t, std::size_t>>{{2 * (dense + experts), 8}});
}

TEST_CASE("expert parallelism the model or layout cannot take is refused", "[llm][moe]") {
  auto refused = [](const LlmModel& m, LlmTraining tr) {
    REQUIRE_THROWS_AS(evaluate_llm_step(m, tr, round_device(), one_ms, std::nullopt, 8), ConfigError);
  };
  LlmTraining tr;
  tr.global_batch = 8;
  tr.layout = ParallelLayout{1, 1, 8, 1, 3};  // ep 3 does not divide dp 8
  refused(small_moe(), tr);
  tr.layout = ParallelLayout{1, 1, 8, 1, 8};  // 8 > the 4 experts
  refused(small_moe(), tr);
  tr.layout = ParallelLayout{1, 1, 8, 1, 2};  // a dense model has no experts to split
  refused(small_model(), tr);
  tr.layout = ParallelLayout{2, 1, 4, 1, 2};  // MoE under TP needs SP (Megatron-Core)
  refused(small_moe(), tr);
  tr.sequence_parallel = true;
  REQUIRE_NOTHROW(evaluate_llm_step(small_moe(), tr, round_device(), one_ms, std::nullopt, 8));
}

}  // namespace
}  // namespace collsim

namespace collsim {
namespace {

TEST_CASE("the layout search ranks what fits by step time and prunes what cannot", "[llm]") {
  LlmModel m;
  m.name = "small";
  m.shape = parse_transformer_shape({{"layers", 8}, {"hidden", 1024}, {"heads", 16}, {"vocab", 1024}, {"sequence", 512}},
                                    "test", "/transformer");
  m.precision = "fp16";
  m.efficiency = 1.0;
  DeviceSpec d;
  d.name = "test";
  d.fp16_flops = 100e12;
  d.hbm_capacity = Bytes{80'000'000'000};
  d.hbm_bandwidth = Bandwidth::gb_per_s(1000);
  // Collectives cost 1 ms per participating rank beyond the first: bigger groups cost more.
  const GroupsCostFn cost = [](CollectiveOp, Bytes, const std::vector<std::vector<int>>& g) {
    return Time::from_ms(static_cast<std::int64_t>(g.front().size()) - 1);
  };
  LlmSearchSpace space;
  space.gpus = 16;
  space.gpus_per_host = 4;
  space.global_batch = 32;
  const LlmSearchResult r = search_llm_layouts(m, space, d, cost, std::nullopt);
  REQUIRE(r.evaluated > 100);
  CHECK(r.pruned == 0);
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const LlmCandidate& c = r.candidates[i];
    CHECK(c.training.layout.world() == 16);
    CHECK(c.training.layout.tp <= 4);  // TP never leaves a host
    CHECK(!c.step.tp_crosses_hosts);
    if (i > 0 && c.step.fits && r.candidates[i - 1].step.fits) CHECK(r.candidates[i - 1].step.step <= c.step.step);
  }
  // The ranking is the evaluation's: the best layout evaluated on its own gives its step.
  const LlmCandidate& best = r.candidates.front();
  CHECK(evaluate_llm_step(m, best.training, d, cost, std::nullopt, 4).step == best.step.step);
  // A GPU of 1 GB cannot hold 2 + 2 + 12 B for each of its ~110 M / (tp pp) parameters
  // unless split 16 ways: everything else is pruned before it is played.
  d.hbm_capacity = Bytes{1'000'000'000};
  const LlmSearchResult small = search_llm_layouts(m, space, d, cost, std::nullopt);
  CHECK(small.pruned > 0);
  for (const LlmCandidate& c : small.candidates) {
    const double per_gpu = static_cast<double>(m.shape.parameters()) / (c.training.layout.tp * c.training.layout.pp);
    const int zero = c.training.distributed_optimizer ? c.training.layout.dp : 1;
    CHECK(per_gpu * (4.0 + 12.0 / zero) <= 1e9);
  }
}

}  // namespace
}  // namespace collsim
