// Per-rank memory model: the ZeRO paper's worked example, the 70B workload's fit under DDP
// and FULL_SHARD, activation bytes with and without checkpointing, DDP buckets and
// HYBRID_SHARD's shard group, and the workload's activation fields.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/plan/memory_model.hpp"
#include "sim/train/device_catalogue.hpp"
#include "sim/train/workload.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {
namespace {

constexpr double kGB = 1e9;

MemoryInputs model_states_only(Sharding s, std::int64_t psi, int world) {
  MemoryInputs in;
  in.parameters = psi;
  in.world_size = world;
  in.sharding.strategy = s;
  in.sharding.precision = adam_mixed_precision();  // 2 + 2 + K, K = 12
  in.sharding.reduce_bucket_bytes = Bytes{0};             // no ZeRO-1/2 reduce buffer
  in.gradient_as_bucket_view = true;               // no DDP bucket copy
  return in;                                       // largest_unit, activations, capacity 0
}

// Three layers: "embed" (outside any block), then block "blocks.0." with two layers and
// block "blocks.1." with one, activation and checkpoint bytes per sample given by hand.
nlohmann::json small_workload() {
  auto layer = [](const std::string& name, const std::string& param, std::int64_t act, std::int64_t ckpt) {
    return nlohmann::json{{"name", name},
                          {"forward_flops", 1e6},
                          {"backward_flops", 2e6},
                          {"params", {param}},
                          {"activation_bytes_per_sample", act},
                          {"checkpoint_bytes_per_sample", ckpt}};
  };
  nlohmann::json params = nlohmann::json::array();
  for (const char* p : {"e", "a", "b", "c"}) params.push_back({{"name", p}, {"numel", 10}, {"dtype", "float32"}});
  return {{"name", "small"},
          {"parameters", params},
          {"layers",
           {layer("embed", "e", 7, 16), layer("blocks.0.attn", "a", 100, 20), layer("blocks.0.mlp", "b", 300, 40),
            layer("blocks.1.attn", "c", 250, 20)}}};
}


}  // namespace

TEST_CASE("ZeRO paper example: 7.5B parameters, 64 GPUs, K = 12", "[train][memory]") {
  // Rajbhandari et al. 2020 Fig. 1 (pytorch-ddp.md s. 3.2), Ψ = 7.5e9, N_d = 64:
  //   baseline (2+2+12)Ψ            = 16 x 7.5e9              = 120 GB
  //   P_os     4Ψ + 12Ψ/64          = 30e9 + 1.40625e9         = 31.40625 GB (paper: 31.4)
  //   P_os+g   2Ψ + (2+12)Ψ/64      = 15e9 + 1.640625e9        = 16.640625 GB (paper: 16.6)
  //   P_os+g+p (2+2+12)Ψ/64         = 1.875e9                  = 1.875 GB (paper: 1.9)
  // 7.5e9 / 64 = 117,187,500 exactly, so no padding enters.
  const std::int64_t psi = 7'500'000'000;
  const auto total = [&](Sharding s) { return static_cast<double>(estimate_memory(model_states_only(s, psi, 64)).total.count); };
  CHECK(total(Sharding::Ddp) == 120e9);
  CHECK(total(Sharding::Zero1) == 31.40625e9);
  CHECK(total(Sharding::Zero2) == 16.640625e9);
  CHECK(total(Sharding::Zero3) == 1.875e9);
  // Rounded to the paper's one decimal.
  CHECK(total(Sharding::Zero1) / kGB == Approx(31.4).margin(0.05));
  CHECK(total(Sharding::Zero2) / kGB == Approx(16.6).margin(0.05));
  CHECK(total(Sharding::Zero3) / kGB == Approx(1.9).margin(0.05));
  // FSDP FULL_SHARD with no unit gathered equals stage 3.
  CHECK(total(Sharding::FsdpFullShard) == 1.875e9);
  // Stage 1's parts: 2Ψ parameters, 2Ψ gradients, 12Ψ/64 optimizer state.
  const MemoryEstimate z1 = estimate_memory(model_states_only(Sharding::Zero1, psi, 64));
  CHECK(z1.parameters.count == 15'000'000'000);
  CHECK(z1.gradients.count == 15'000'000'000);
  CHECK(z1.optimizer.count == 1'406'250'000);
  // ZeRO-Offload keeps the optimizer state in host memory: stage 2 holds 2Ψ + 2Ψ/64.
  MemoryInputs off = model_states_only(Sharding::Zero2, psi, 64);
  off.sharding.offload_optimizer = true;
  const MemoryEstimate z2 = estimate_memory(off);
  CHECK(z2.optimizer.count == 0);
  CHECK(static_cast<double>(z2.total.count) == 15e9 + 2 * 117'187'500.0);
}

TEST_CASE("70B does not fit under DDP on an 80 GB H100 and fits under FULL_SHARD at 64 GPUs", "[train][memory]") {
  const Workload w = load_workload_file(test::shipped_workload("llama2-70b"));
  // Llama 2 70B: embeddings 32000 x 8192 = 262,144,000; per decoder layer q, o 8192^2 each,
  // k, v 8192 x 1024 each (8 KV heads x 128), gate/up/down 3 x 8192 x 28672, two RMSNorm
  // 8192 = 855,654,400; 80 layers = 68,452,352,000; final norm 8192; untied lm_head
  // 262,144,000. Total 68,976,648,192 (the paper's 68.98B).
  const std::int64_t psi = w.parameter_count();
  REQUIRE(psi == 68'976'648'192);
  std::int64_t layer0 = 0;
  for (const auto& p : w.parameters) {
    if (p.name.rfind("model.layers.0.", 0) == 0) layer0 += p.numel;
  }
  REQUIRE(layer0 == 855'654'400);
  const auto h100 = find_device("H100");
  REQUIRE(h100);
  REQUIRE(h100->hbm_capacity.count == 85'899'345'920);  // 80 GiB

  MemoryInputs in;
  in.parameters = psi;
  in.world_size = 64;
  in.capacity = h100->hbm_capacity;

  SECTION("DDP: the model states alone are 13x the HBM") {
    // (2+2+12) x 68,976,648,192 = 1,103,626,371,072 B of model states, plus a second
    // gradient copy in DDP's buckets (2Ψ = 137,953,296,384): 1.24 TB before any activation.
    in.sharding.strategy = Sharding::Ddp;
    in.activations = activation_bytes(w, 1, true);
    const MemoryEstimate e = estimate_memory(in);
    CHECK(e.parameters.count + e.gradients.count + e.optimizer.count == 1'103'626'371'072);
    CHECK(e.buckets.count == 137'953'296'384);
    CHECK_FALSE(e.fits);
    CHECK(e.margin_bytes < -1'000'000'000'000);
  }
  SECTION("FULL_SHARD, micro-batch 1, seq 4096, activation checkpointing on") {
    in.sharding.strategy = Sharding::FsdpFullShard;
    in.sharding.activation_checkpointing = true;
    in.largest_unit = Bytes{layer0 * 2};  // bf16 decoder layer: 1,711,308,800 B
    in.activations = activation_bytes(w, 1, true);
    // Activations per sample (s = 4096, h = 8192, v = 32000, 16-bit):
    //   80 checkpointed block inputs, 2sh = 67,108,864 each        = 5,368,709,120
    //   the block being recomputed, Korthikanti 34sh (flash attn)   = 1,140,850,688
    //   final norm input 2sh                                        =    67,108,864
    //   lm_head input 2sh + fp32 logits 4sv = 67,108,864 + 524,288,000 = 591,396,864
    //   embeddings (no dropout in Llama)                            =             0
    //   total                                                        = 7,168,065,536
    CHECK(in.activations.count == 7'168'065'536);
    // Model states over 64 ranks: Ψ/64 = 1,077,760,128 elements; x2 parameters
    // 2,155,520,256, x2 gradients 2,155,520,256, x12 optimizer 12,933,121,536.
    // Unsharded at the peak: 2 gathered layers (all_gather_limit 2) + one layer's bf16
    // gradients = 3 x 1,711,308,800 = 5,133,926,400.
    // Total 17,244,162,048 + 5,133,926,400 + 7,168,065,536 = 29,546,153,984 B (29.5 GB),
    // margin 85,899,345,920 - 29,546,153,984 = 56,353,191,936.
    const MemoryEstimate e = estimate_memory(in);
    CHECK(e.optimizer.count == 12'933'121'536);
    CHECK(e.unsharded.count == 5'133'926'400);
    CHECK(e.total.count == 29'546'153'984);
    CHECK(e.fits);
    CHECK(e.margin_bytes == 56'353'191'936);
  }
  SECTION("FULL_SHARD without checkpointing does not fit") {
    // 80 x 34sh = 91,268,055,040 B of block activations alone exceed 80 GiB.
    in.sharding.strategy = Sharding::FsdpFullShard;
    in.largest_unit = Bytes{layer0 * 2};
    in.activations = activation_bytes(w, 1, false);
    CHECK(in.activations.count == 91'268'055'040 + 67'108'864 + 591'396'864);
    CHECK_FALSE(estimate_memory(in).fits);
  }
}

TEST_CASE("shipped Llama 2 workloads: parameter totals, activations, FLOPs", "[train][memory][workload]") {
  const Workload w7 = load_workload_file(test::shipped_workload("llama2-7b"));
  // 7B: embeddings 32000 x 4096 = 131,072,000; per layer 4 x 4096^2 (q, k, v, o) +
  // 3 x 4096 x 11008 (SwiGLU) + 2 x 4096 (RMSNorm) = 202,383,360; x 32 = 6,476,267,520;
  // final norm 4096; untied lm_head 131,072,000. Total 6,738,415,616 (the paper's 6.74B).
  CHECK(w7.parameter_count() == 6'738'415'616);
  CHECK(w7.batch_per_gpu == 2);
  // Activations per sample, s = h = 4096, v = 32000: 32 layers x 34sh (flash attention) =
  // 18,253,611,008; final norm 2sh = 33,554,432; lm_head 2sh + 4sv = 557,842,432; embeddings
  // 0. Total 18,845,007,872.
  CHECK(w7.activation_bytes_per_sample().count == 18'845'007'872);
  // Forward FLOPs for the batch of 2 x 4096 tokens: 2 per weight of every linear layer
  // (all parameters but the embeddings and the 65 norm vectors: 6,607,077,376) per token,
  // plus attention 4sh per token per layer (4 x 4096 x 4096 x 32 = 2,147,483,648) and the
  // norms' 5 FLOPs per element (65 x 5 x 4096 = 1,331,200): 15,362,969,600 per token.
  double forward = 0;
  for (const auto& l : w7.layers) forward += l.compute.forward_flops;
  CHECK(forward == Approx(15'362'969'600.0 * 2 * 4096).epsilon(1e-12));

  const Workload w70 = load_workload_file(test::shipped_workload("llama2-70b"));
  CHECK(w70.parameter_count() == 68'976'648'192);
  CHECK(w70.batch_per_gpu == 1);
  // 80 x 34 x 4096 x 8192 + 2sh + 2sh + 4sv = 91,268,055,040 + 67,108,864 x 2 + 524,288,000.
  CHECK(w70.activation_bytes_per_sample().count == 91'926'560'768);
}

TEST_CASE("shipped BERT activation bytes are Korthikanti's per-layer formula", "[train][memory][workload]") {
  // Per layer and sample s*h*(34 + 5as/h) = 34sh + 5as^2 bytes; outside the layers the
  // embedding dropout mask sh plus the embedding LayerNorm's input 2sh, and the pooler's
  // input and tanh output 2h + 2h.
  // BERT-base, s = 512, h = 768, a = 12: 12 x (13,369,344 + 15,728,640) = 349,175,808;
  // + 3sh 1,179,648 + 4h 3,072 = 350,358,528.
  CHECK(load_workload_file(test::shipped_workload("bert-base")).activation_bytes_per_sample().count == 350'358'528);
  // BERT-large, s = 512, h = 1024, a = 16: 24 x (17,825,792 + 20,971,520) = 931,135,488;
  // + 3sh 1,572,864 + 4h 4,096 = 932,712,448.
  CHECK(load_workload_file(test::shipped_workload("bert-large")).activation_bytes_per_sample().count == 932'712'448);
  // GPT-2 medium, s = h = 1024, a = 16, v = 50257: 24 x (35,651,584 + 83,886,080) =
  // 2,868,903,936; + embedding dropout mask sh 1,048,576 + final LayerNorm input 2sh
  // 2,097,152 + LM head input 2sh and fp32 logits 4sv (2,097,152 + 205,852,672) =
  // 3,079,999,488.
  CHECK(load_workload_file(test::shipped_workload("gpt2-medium")).activation_bytes_per_sample().count == 3'079'999'488);
}

TEST_CASE("shipped ResNet-50 activation bytes follow autograd's saved tensors", "[train][memory][workload]") {
  const Workload w = load_workload_file(test::shipped_workload("resnet50"));
  const auto layer = [&](const std::string& name) -> const Layer& {
    for (const auto& l : w.layers) {
      if (l.name == name) return l;
    }
    FAIL("no layer " << name);
    return w.layers.front();
  };
  // conv1 saves its input image, 3 x 224 x 224 at 2 bytes (bf16) = 301,056.
  CHECK(layer("conv1").activation_bytes_per_sample.count == 301'056);
  // bn1 saves its input, 64 x 112 x 112 x 2 = 1,605,632, plus per-channel mean and inverse
  // std (2 x 64 x 2 = 256): 1,605,888.
  CHECK(layer("bn1").activation_bytes_per_sample.count == 1'605'888);
  // Charged to layer1.0.conv1 (parameter-free work before it): the in-place ReLU's output
  // 1,605,632, max-pool's int64 indices 64 x 56 x 56 x 8 = 1,605,632, and conv1's own input
  // (the pool output) 64 x 56 x 56 x 2 = 401,408: 3,612,672.
  CHECK(layer("layer1.0.conv1").activation_bytes_per_sample.count == 3'612'672);
  // The downsample conv reads the same pool output: already counted, 0.
  CHECK(layer("layer1.0.downsample.0").activation_bytes_per_sample.count == 0);
  // Its checkpoint bytes are still its input, 401,408.
  CHECK(layer("layer1.0.downsample.0").checkpoint_bytes_per_sample.count == 401'408);
}

TEST_CASE("activation bytes with and without checkpointing", "[train][memory]") {
  const Workload w = parse_workload(small_workload(), "small.json");
  // Without checkpointing every layer keeps its activations: 7 + 100 + 300 + 250 = 657 per
  // sample; micro-batch 4 -> 2628.
  CHECK(w.activation_bytes_per_sample().count == 657);
  CHECK(activation_bytes(w, 4, false).count == 2628);
  // With checkpointing: "embed" is outside every block and keeps its 7; block 0 keeps its
  // input (its first layer's checkpoint bytes, 20), block 1 its 20; the largest block's
  // activations come back during its recompute: max(100 + 300, 250) = 400.
  // 7 + 20 + 20 + 400 = 447 per sample; micro-batch 4 -> 1788.
  CHECK(activation_bytes(w, 1, true).count == 447);
  CHECK(activation_bytes(w, 4, true).count == 1788);
  CHECK_THROWS_AS(activation_bytes(w, 0, false), ConfigError);
}

TEST_CASE("gradient_as_bucket_view removes DDP's bucket copy", "[train][memory]") {
  // Ψ = 1e9, adam mixed precision: DDP's flat buckets cover every gradient, 2Ψ = 2e9 B,
  // whatever the bucket cap; gradients as bucket views alias them, saving all of it.
  MemoryInputs in = model_states_only(Sharding::Ddp, 1'000'000'000, 8);
  in.gradient_as_bucket_view = false;
  const MemoryEstimate copy = estimate_memory(in);
  CHECK(copy.buckets.count == 2'000'000'000);
  CHECK(copy.total.count == 18'000'000'000);  // 16Ψ + 2Ψ
  in.gradient_as_bucket_view = true;
  const MemoryEstimate view = estimate_memory(in);
  CHECK(view.buckets.count == 0);
  CHECK(view.total.count == 16'000'000'000);
}

TEST_CASE("HYBRID_SHARD shards over ranks_per_node", "[train][memory]") {
  // Ψ = 8e9 on 64 ranks, 8 per node: HYBRID_SHARD shards every state 8 ways (inside a
  // node) and replicates across the 8 nodes: 16 x 8e9 / 8 = 16e9; FULL_SHARD shards 64
  // ways: 16 x 8e9 / 64 = 2e9.
  MemoryInputs in = model_states_only(Sharding::FsdpHybridShard, 8'000'000'000, 64);
  CHECK(estimate_memory(in).total.count == 16'000'000'000);
  in.sharding.strategy = Sharding::FsdpFullShard;
  CHECK(estimate_memory(in).total.count == 2'000'000'000);
  // A shard group larger than the world is the world: 4 ranks, 8 per node -> /4 = 32e9.
  in = model_states_only(Sharding::FsdpHybridShard, 8'000'000'000, 4);
  CHECK(estimate_memory(in).total.count == 32'000'000'000);
}

TEST_CASE("FSDP unsharded units, ZeRO buffers and the fit margin", "[train][memory]") {
  // Ψ = 1e9 on 10 ranks; largest unit 1e8 elements = 2e8 bf16 bytes.
  MemoryInputs in = model_states_only(Sharding::FsdpFullShard, 1'000'000'000, 10);
  in.largest_unit = Bytes{200'000'000};
  // FULL_SHARD: 2 gathered units + one unit's gradients = 3 x 2e8 = 6e8; states 16e9/10.
  CHECK(estimate_memory(in).unsharded.count == 600'000'000);
  in.sharding.all_gather_limit = 1;  // one gathered unit + its gradients = 4e8
  CHECK(estimate_memory(in).unsharded.count == 400'000'000);
  // SHARD_GRAD_OP keeps the whole model unsharded (2Ψ = 2e9) plus one unit's gradients 2e8.
  in.sharding.strategy = Sharding::FsdpShardGradOp;
  CHECK(estimate_memory(in).unsharded.count == 2'200'000'000);
  // ZeRO-2 holds DeepSpeed's constant-size reduce buffer (here 5e8 B).
  in = model_states_only(Sharding::Zero2, 1'000'000'000, 10);
  in.sharding.reduce_bucket_bytes = Bytes{500'000'000};
  CHECK(estimate_memory(in).buckets.count == 500'000'000);
  // Capacity 3e9 against ZeRO-2's 2e9 + 14e9/10 + 5e8 = 3.9e9: short by 9e8.
  in.capacity = Bytes{3'000'000'000};
  const MemoryEstimate e = estimate_memory(in);
  CHECK(e.total.count == 3'900'000'000);
  CHECK_FALSE(e.fits);
  CHECK(e.margin_bytes == -900'000'000);
  // Unknown capacity: fits, margin 0.
  in.capacity = Bytes{};
  CHECK(estimate_memory(in).fits);
}

TEST_CASE("workload activation fields: optional, non-negative", "[train][memory][workload]") {
  auto j = small_workload();
  SECTION("negative activation bytes") { j["layers"][1]["activation_bytes_per_sample"] = -1; }
  SECTION("negative checkpoint bytes") { j["layers"][2]["checkpoint_bytes_per_sample"] = -5; }
  SECTION("fractional bytes") { j["layers"][1]["activation_bytes_per_sample"] = 1.5; }
  try {
    (void)parse_workload(j, "bad.json");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.source() == "bad.json");
    CHECK(e.field().find("/layers/") == 0);
  }
}

TEST_CASE("workloads without activation fields still load, with 0 activation bytes", "[train][memory][workload]") {
  auto j = small_workload();
  for (auto& l : j["layers"]) {
    l.erase("activation_bytes_per_sample");
    l.erase("checkpoint_bytes_per_sample");
  }
  const Workload w = parse_workload(j, "old.json");
  CHECK(activation_bytes(w, 8, false).count == 0);
  CHECK(activation_bytes(w, 8, true).count == 0);
}

TEST_CASE("bad memory inputs are ConfigErrors", "[train][memory]") {
  MemoryInputs in = model_states_only(Sharding::Zero3, 1000, 0);
  CHECK_THROWS_AS(estimate_memory(in), ConfigError);
  in.world_size = 4;
  in.parameters = -1;
  CHECK_THROWS_AS(estimate_memory(in), ConfigError);
}

}  // namespace collsim
