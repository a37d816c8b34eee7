#include "sim/train/llm_step.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace {

using Recompute = TransformerShape::Recompute;

[[noreturn]] void bad_layout(const std::string& field, const std::string& value, const std::string& expected) {
  throw ConfigError("layout", field, value, expected);
}

void check_training(const TransformerShape& s, const LlmTraining& tr) {
  const ParallelLayout& l = tr.layout;
  if (l.tp < 1 || l.pp < 1 || l.dp < 1) bad_layout("tp/pp/dp", l.label(), "degrees of at least 1");
  if (tr.overlap_offload && !tr.offload_optimizer) bad_layout("overlap_offload", "on", "offload_optimizer with it");
  if (s.heads % l.tp != 0) bad_layout("tp", std::to_string(l.tp), fmt::format("a divisor of the {} attention heads", s.heads));
  if (s.kv_heads % l.tp != 0) {
    bad_layout("tp", std::to_string(l.tp), fmt::format("a divisor of the {} key/value heads", s.kv_heads));
  }
  if (s.ffn_hidden % l.tp != 0) bad_layout("tp", std::to_string(l.tp), fmt::format("a divisor of ffn_hidden ({})", s.ffn_hidden));
  const std::int64_t chunks = std::int64_t{l.pp} * l.virtual_stages;
  if (s.layers % chunks != 0) {
    bad_layout(l.virtual_stages > 1 ? "pp x virtual_stages" : "pp", std::to_string(chunks),
               fmt::format("a divisor of the {} layers", s.layers));
  }
  if (l.ep < 1 || l.dp % l.ep != 0) bad_layout("ep", std::to_string(l.ep), fmt::format("a divisor of dp ({})", l.dp));
  if (l.ep > 1 && s.experts % l.ep != 0) {
    bad_layout("ep", std::to_string(l.ep), s.experts > 1 ? fmt::format("a divisor of the {} experts", s.experts)
                                                         : std::string("1 for a dense model (no experts)"));
  }
  // Megatron-Core refuses MoE with TP but without sequence parallelism (TransformerConfig).
  if (s.experts > 1 && l.tp > 1 && !tr.sequence_parallel) {
    bad_layout("sequence_parallel", "off", "on for an MoE model under tensor parallelism (as Megatron-Core requires)");
  }
  if (tr.micro_batch < 1) bad_layout("micro_batch", std::to_string(tr.micro_batch), "at least 1");
  if (tr.global_batch % (std::int64_t{l.dp} * tr.micro_batch) != 0 || tr.global_batch < l.dp * tr.micro_batch) {
    bad_layout("global_batch", std::to_string(tr.global_batch),
               fmt::format("a multiple of dp x micro_batch = {}", std::int64_t{l.dp} * tr.micro_batch));
  }
  if (tr.global_batch / (l.dp * tr.micro_batch) > 1'000'000) {
    bad_layout("global_batch", std::to_string(tr.global_batch), "at most 10^6 micro-batches per replica");
  }
  const bool interleaved = tr.schedule == PipelineKind::Interleaved;
  if (interleaved && l.virtual_stages < 2) {
    bad_layout("virtual_stages", std::to_string(l.virtual_stages), "at least 2 for the interleaved schedule");
  }
  // Megatron-LM refuses the interleaved schedule on fewer than 3 stages
  // (initialize_model_parallel: "pipeline-model-parallel size should be greater than 2").
  if (interleaved && l.pp < 3) {
    bad_layout("pp", std::to_string(l.pp), "greater than 2 for the interleaved schedule (Megatron-LM refuses it on fewer stages)");
  }
  if (!interleaved && l.virtual_stages != 1) {
    bad_layout("virtual_stages", std::to_string(l.virtual_stages), "1 unless the schedule is interleaved");
  }
  const std::int64_t m = tr.global_batch / (l.dp * tr.micro_batch);
  if (interleaved && m % l.pp != 0) {
    bad_layout("global_batch", std::to_string(tr.global_batch),
               fmt::format("micro-batches per replica ({}) a multiple of pp ({}) for the interleaved schedule", m, l.pp));
  }
}

// Adam in mixed precision reads the fp32 master weight, both moments and the fp32 gradient
// (16 B) and writes the master, the moments and the 16-bit weight (14 B): 30 B per element.
constexpr double kAdamTraffic = 30.0;

// Wave quantization: a GEMM's output is cut into 128 x 256 tiles (CUTLASS's default
// threadblock for 16-bit tensor-core GEMMs on SM80, default_gemm_configuration.h), one tile
// per SM at a time; the last wave runs part-empty. The share of SM time doing work:
// tiles / (waves x SMs). 1 when the SM count is unknown.
double wave_efficiency(double m, double n, int sms) {
  if (sms <= 0) return 1.0;
  const double tiles = std::ceil(m / 128.0) * std::ceil(n / 256.0);
  const double waves = std::ceil(tiles / sms);
  return tiles / (waves * sms);
}

// One layer's forward GEMMs on one tensor rank for `tokens` rows, as seconds at
// `rate` FLOP/s: QKV, attention output, MLP up (and gate), MLP down, each with its wave
// quantization; the attention scores (batched over heads: many tiles) at the rate itself.
// An MoE layer's rank runs its experts / ep experts, each on the tokens routed to it: with
// balanced routing top_k x tokens rows shared among them.
double layer_gemm_seconds(const TransformerShape& s, double tokens, int tp, int ep, double rate, int sms) {
  const double h = static_cast<double>(s.hidden), t = tp;
  const double kv = h / static_cast<double>(s.heads) * static_cast<double>(s.kv_heads);
  const double f = static_cast<double>(s.ffn_hidden);
  const double local = static_cast<double>(s.experts / ep);
  const double rows = tokens * static_cast<double>(s.top_k) / local;  // per local expert
  const auto gemm = [&](double m, double n, double depth, double copies) {
    return copies * 2.0 * m * n * depth / (rate * wave_efficiency(m, n, sms));
  };
  double secs = gemm(tokens, (h + 2 * kv) / t, h, 1) + gemm(tokens, h, h / t, 1) +
                gemm(rows, f * (s.gated_mlp ? 2 : 1) / t, h, local) + gemm(rows, h, f / t, local);
  secs += tokens * (s.attention_core_flops_per_token() / t + (s.experts > 1 ? 2.0 * h * static_cast<double>(s.experts) : 0.0)) / rate;
  return secs;
}

// ZeRO-Offload of the fullest rank's `shard` parameters, one after the other: the gradient
// shard (`grad_bytes` each) to host memory, Adam on the CPU (`opt_traffic` bytes each
// through the socket's DRAM share, at its peak as HBM is taken here), the updated 16-bit
// weights back (Megatron-Core's optimizer CPU offload). With `pipelined_layers` > 0
// (--overlap-cpu-optimizer-d2h-h2d) the three run pipelined over that many layers: the
// slowest part throughout, the other two for one layer's share each.
void price_offload(LlmStep& out, double shard, double grad_bytes, double opt_traffic, const std::optional<HostLink>& host_link,
                   std::int64_t pipelined_layers) {
  if (!host_link || host_link->bandwidth.bytes_per_s <= 0) {
    bad_layout("offload", "optimizer", "a topology with a GPU-to-host (PCIe) path to offload over");
  }
  if (host_link->memory.bytes_per_s <= 0) {
    bad_layout("offload", "optimizer",
               "a topology whose cpu nodes give memory_bandwidth (the offloaded Adam runs at the host's DRAM rate)");
  }
  const double pcie = host_link->bandwidth.bytes_per_s;
  out.offload_down = Time::from_seconds(shard * grad_bytes / pcie);
  out.offload_cpu = Time::from_seconds(shard * opt_traffic / host_link->memory.bytes_per_s);
  out.offload_up = Time::from_seconds(shard * 2.0 / pcie);
  out.offload = out.offload_down + out.offload_cpu + out.offload_up;
  if (pipelined_layers > 0) {
    const Time slowest = std::max({out.offload_down, out.offload_cpu, out.offload_up});
    out.offload = slowest + Time{(out.offload - slowest).ps / pipelined_layers};
  }
}

struct PerLayer {
  Time compute_f;    // GEMMs and elementwise work of one forward
  Time tp_f, tp_b;   // TP collectives in forward and backward
  Time ep_f, ep_b;   // MoE all-to-alls in forward and backward
  Time recompute;    // repeated forward work in backward
  int collectives_f = 0, collectives_b = 0, collectives_r = 0;
};

// One step of one layout, in the order the model prices it: a layer, the pipeline, each
// pipeline rank's reduction and memory, then the optimizer and the rates.
class LlmStepBuilder {
 public:
  LlmStepBuilder(const LlmModel& model, const LlmTraining& tr, const DeviceSpec& device, const GroupsCostFn& collective)
      : m_(model), s_(model.shape), tr_(tr), l_(tr.layout), device_(device), collective_(collective) {
    pp_ = l_.pp;
    v_ = l_.virtual_stages;
    t_ = l_.tp;
    td_ = t_;
    b_ = tr.micro_batch;
    tokens_mb_ = static_cast<double>(b_) * static_cast<double>(s_.sequence);
    peak_ = device.peak_flops(model.precision) * model.efficiency;
    layers_per_chunk_ = s_.layers / (std::int64_t{pp_} * v_);
    tp_groups_ = l_.tp_groups();
    out_bytes_ = s_.layer_output_bytes(b_);
    logits_bytes_ = 4.0 * tokens_mb_ * static_cast<double>(s_.vocab) / td_;
    out_.micro_batches = static_cast<int>(tr.global_batch / (l_.dp * b_));
  }

  LlmStep build(const std::optional<HostLink>& host_link, int ranks_per_host) {
    const PerLayer layer = layer_costs();
    play(layer);
    StageTotals totals;
    for (int r = 0; r < pp_; ++r) stage(r, layer, totals);
    finish(totals, host_link, ranks_per_host);
    return std::move(out_);
  }

 private:
  struct StageTotals {
    Time step_end;          // the last stage's reduction done
    double most_owned = 0;  // optimizer elements on the fullest rank
    Time gather;            // ZeRO-1's parameter all-gather
  };

  [[nodiscard]] Time flops_time(double f) const { return Time::from_seconds(f / peak_); }
  [[nodiscard]] Time memory_time(double bytes) const { return Time::from_seconds(bytes / device_.hbm_bandwidth.bytes_per_s); }
  [[nodiscard]] Time run(CollectiveOp op, std::int64_t bytes, const std::vector<std::vector<int>>& groups) const {
    if (bytes <= 0 || groups.empty() || groups.front().size() < 2) return Time{};
    return collective_(op, Bytes{bytes}, groups);
  }

  // One layer, one micro-batch, one tensor rank.
  PerLayer layer_costs() {
    PerLayer layer;
    const double act_none = s_.layer_activation_bytes(b_, t_, tr_.sequence_parallel, Recompute::None);
    layer.compute_f = Time::from_seconds(layer_gemm_seconds(s_, tokens_mb_, t_, l_.ep, peak_, device_.sms)) + memory_time(2.0 * act_none);
    const bool moe = s_.experts > 1;
    if (t_ > 1) {
      // Megatron's f/g operators: one all-reduce after attention and one after the MLP, in
      // forward and again in backward; with SP each becomes an all-gather before and a
      // reduce-scatter after (Korthikanti et al. 2022, section 4.2.2). An MoE layer's experts
      // are split over TP too: its pair carries the top_k copies of the routed tokens.
      const auto pair = [&](std::int64_t bytes) {
        return tr_.sequence_parallel ? run(CollectiveOp::AllGather, bytes, tp_groups_) + run(CollectiveOp::ReduceScatter, bytes, tp_groups_)
                                     : run(CollectiveOp::AllReduce, bytes, tp_groups_);
      };
      const Time attention = pair(out_bytes_);
      const Time mlp = moe ? pair(out_bytes_ * s_.top_k) : attention;
      layer.tp_f = attention + mlp;
      layer.tp_b = attention + mlp;
      layer.collectives_f = layer.collectives_b = tr_.sequence_parallel ? 4 : 2;
    }
    if (moe && l_.ep > 1) {
      // Megatron-Core's all-to-all dispatcher: each rank sends its tokens (1/t of the
      // micro-batch's under SP) top_k times to the experts' ranks and receives them back
      // after the experts (dispatch + combine); backward sends the gradients the same way.
      // Routing is taken as balanced (every expert gets its share).
      const std::int64_t routed = out_bytes_ / t_ * s_.top_k;
      const Time both = run(CollectiveOp::AllToAll, routed, l_.ep_groups(0)) * 2;
      layer.ep_f = both;
      layer.ep_b = both;
      out_.ep_all_to_alls_per_layer = tr_.recompute == Recompute::Full ? 6 : 4;
    }
    switch (tr_.recompute) {
      case Recompute::None:
        break;
      case Recompute::Selective: {
        // Attention scores, softmax and dropout again: the 4 s h FLOPs per token and their
        // s^2 tensors (nothing with a fused attention kernel, which recomputes them anyway).
        if (!s_.flash_attention) {
          const double scores = static_cast<double>(s_.heads) * static_cast<double>(s_.sequence) *
                                static_cast<double>(s_.sequence) * static_cast<double>(b_) / td_;
          layer.recompute = flops_time(tokens_mb_ * s_.attention_core_flops_per_token() / td_) +
                            memory_time(2.0 * (s_.dropout ? 5.0 : 2.0) * scores);
        }
        break;
      }
      case Recompute::Full:
        layer.recompute = layer.compute_f + layer.tp_f + layer.ep_f;
        layer.collectives_r = layer.collectives_f;
        break;
    }
    out_.tp_collectives_per_layer = layer.collectives_f + layer.collectives_b + layer.collectives_r;
    return layer;
  }

  // Without gradient-accumulation fusion (Megatron-LM before 2022, or
  // --no-gradient-accumulation-fusion) every backward's 16-bit weight gradients are added
  // into the main gradients by a kernel of their own (DDP's parameter hook,
  // main_grad.add_(grad)): 2 B read, the main gradient read and written, per parameter the
  // rank holds. Fused, the weight-gradient GEMM accumulates into them in place.
  [[nodiscard]] Time accumulate(double params) const {
    if (tr_.gradient_accumulation_fusion) return memory_time(0.0);
    return memory_time((2.0 + 2.0 * static_cast<double>(m_.gradient_bytes())) * params);
  }

  // Every virtual stage's forward and backward per micro-batch, the sends between stages,
  // and the schedule played with them.
  void play(const PerLayer& layer) {
    const double layer_rank_params = static_cast<double>(s_.layer_parameters() - s_.layer_expert_parameters()) / td_ +
                                     static_cast<double>(s_.layer_expert_parameters() / l_.ep) / td_;
    const Time layer_forward = layer.compute_f + layer.tp_f + layer.ep_f;
    const Time layer_backward = layer.compute_f * 2 + layer.tp_b + layer.ep_b + layer.recompute + accumulate(layer_rank_params);
    // Embedding (first virtual stage): a vocabulary-parallel lookup ends in an all-reduce (a
    // reduce-scatter with SP). LM head (last): the logits GEMM, and fp32 logits written and
    // read by the cross-entropy.
    const Time embed_f =
        t_ > 1 ? run(tr_.sequence_parallel ? CollectiveOp::ReduceScatter : CollectiveOp::AllReduce, out_bytes_, tp_groups_) : Time{};
    const double head_gemm = tokens_mb_ * s_.logit_flops_per_token() / td_ /
                             wave_efficiency(tokens_mb_, static_cast<double>(s_.vocab) / td_, device_.sms);
    const Time head_f = flops_time(head_gemm) + memory_time(2.0 * logits_bytes_);
    const Time head_b = flops_time(2.0 * head_gemm) + memory_time(2.0 * logits_bytes_);

    PipelineCosts costs;
    costs.pp = pp_;
    costs.virtual_stages = v_;
    costs.micro_batches = out_.micro_batches;
    const int vstages = pp_ * v_;
    for (int vs = 0; vs < vstages; ++vs) {
      Time f = layer_forward * layers_per_chunk_, bw = layer_backward * layers_per_chunk_;
      if (vs == 0) {
        f += embed_f;
        bw += accumulate(static_cast<double>(s_.embedding_parameters()) / td_);
      }
      if (vs == vstages - 1) {
        f += head_f;
        bw += head_b;
        // The LM head's weights: its own, or with tied embeddings the last stage's copy.
        const std::int64_t head = s_.tied_embeddings ? (pp_ > 1 ? s_.vocab * s_.hidden : 0) : s_.lm_head_parameters();
        bw += accumulate(static_cast<double>(head) / td_);
      }
      costs.forward.push_back(f);
      costs.backward.push_back(bw);
    }
    // Activations between stages: each tensor rank sends its 1/t slice (Megatron's
    // scatter-gather across the pipeline; already split with SP).
    // The receiver all-gathers the slices over its TP group (NVLink) before using them.
    const std::int64_t p2p_bytes = out_bytes_ / t_;
    const Time regather = t_ > 1 ? run(CollectiveOp::AllGather, out_bytes_, tp_groups_) : Time{};
    for (int r = 0; r + 1 < pp_; ++r) costs.p2p.push_back(run(CollectiveOp::Broadcast, p2p_bytes, l_.stage_pairs(r)) + regather);
    if (v_ > 1) {
      std::vector<std::vector<int>> wrap;
      for (int d = 0; d < l_.dp; ++d) {
        for (int k = 0; k < t_; ++k) wrap.push_back({l_.rank(k, pp_ - 1, d), l_.rank(k, 0, d)});
      }
      costs.wrap_p2p = run(CollectiveOp::Broadcast, p2p_bytes, wrap) + regather;
    }
    out_.run = play_pipeline(tr_.schedule, costs);
    out_.pipeline_costs = std::move(costs);
    out_.pipeline = out_.run.makespan;
  }

  // Pipeline rank r: its parameters, gradient reduction and memory.
  void stage(int r, const PerLayer& layer, StageTotals& totals) {
    const auto ru = static_cast<std::size_t>(r);
    const PipelineCosts& costs = out_.pipeline_costs;
    const std::int64_t grad_bytes = m_.gradient_bytes();
    const std::int64_t vocab_shard = s_.vocab * s_.hidden / t_;
    const std::int64_t layers = layers_per_chunk_ * v_;
    LlmStageCost sc;
    sc.forward = Time{};
    for (int c = 0; c < v_; ++c) {
      sc.forward += costs.forward[static_cast<std::size_t>(c * pp_ + r)];
      sc.backward += costs.backward[static_cast<std::size_t>(c * pp_ + r)];
    }
    sc.tp_forward = layer.tp_f * layers;
    sc.tp_backward = layer.tp_b * layers;
    sc.ep_forward = layer.ep_f * layers;
    sc.ep_backward = layer.ep_b * layers;
    sc.recompute = layer.recompute * layers;
    // The experts' weights are split over EP and reduced over their expert-DP groups; the
    // rest over all of DP.
    const std::int64_t expert_params = layers * (s_.layer_expert_parameters() / l_.ep) / t_;
    std::int64_t params = layers * (s_.layer_parameters() - s_.layer_expert_parameters()) / t_ + expert_params;
    if (r == 0) params += s_.embedding_parameters() / t_;
    if (r == pp_ - 1) params += s_.tied_embeddings ? (pp_ > 1 ? vocab_shard : 0) : s_.lm_head_parameters() / t_;
    // A collective of the stage's weights over DP; with EP the experts' share goes over
    // their expert-DP groups.
    const auto over_dp = [&](CollectiveOp op, std::int64_t bytes_per_param) {
      if (l_.ep == 1) return run(op, params * bytes_per_param, l_.dp_groups(r));
      const Time dense = run(op, (params - expert_params) * bytes_per_param, l_.dp_groups(r));
      return dense + run(op, expert_params * bytes_per_param, l_.expert_dp_groups(r));
    };
    sc.dp_reduce = over_dp(tr_.distributed_optimizer ? CollectiveOp::ReduceScatter : CollectiveOp::AllReduce, grad_bytes);
    // ZeRO-1: the updated 16-bit weights gathered back after the optimizer (the slowest stage's).
    if (tr_.distributed_optimizer) totals.gather = std::max(totals.gather, over_dp(CollectiveOp::AllGather, 2));
    if (s_.tied_embeddings && pp_ > 1 && (r == 0 || r == pp_ - 1)) {
      sc.dp_reduce += run(CollectiveOp::AllReduce, vocab_shard * grad_bytes, l_.embedding_pairs());
    }
    Time window{};
    if (tr_.overlap_grad_reduce) {
      for (const PipelineOp& o : out_.run.ops[ru]) {
        if (!o.forward && o.end == out_.run.last_backward_end[ru]) window = o.end - o.start;
      }
    }
    sc.dp_exposed = sc.dp_reduce > window ? sc.dp_reduce - window : Time{};
    sc.dp_start = out_.run.last_backward_end[ru] - window;
    totals.step_end = std::max(totals.step_end, out_.run.last_backward_end[ru] + sc.dp_exposed);

    // The distributed optimizer splits the dense weights' state over DP, the experts' over
    // their expert-DP group.
    const double owned = tr_.distributed_optimizer ? static_cast<double>(params - expert_params) / l_.dp +
                                                         static_cast<double>(expert_params) / (l_.dp / l_.ep)
                                                   : static_cast<double>(params);
    totals.most_owned = std::max(totals.most_owned, owned);
    sc.memory.weights = Bytes{2 * params};
    sc.memory.gradients = Bytes{params * grad_bytes};
    if (!tr_.offload_optimizer) {
      sc.memory.optimizer = Bytes{static_cast<std::int64_t>(std::ceil(LlmModel::kOptimizerStateBytes * owned))};
      sc.memory.step_gradients = Bytes{static_cast<std::int64_t>(std::ceil(static_cast<double>(m_.step_gradient_bytes()) * owned))};
    }
    // Selective recompute of a fused attention kernel changes nothing: it recomputes anyway.
    const Recompute kept = tr_.recompute == Recompute::Selective && s_.flash_attention ? Recompute::None : tr_.recompute;
    double act = static_cast<double>(out_.run.peak_in_flight[ru]) * static_cast<double>(layers_per_chunk_) *
                 s_.layer_activation_bytes(b_, t_, tr_.sequence_parallel, kept);
    // Recomputing a layer in backward rebuilds its full activations once at a time.
    if (kept != Recompute::None) act += s_.layer_activation_bytes(b_, t_, tr_.sequence_parallel, Recompute::None);
    sc.memory.activations = Bytes{static_cast<std::int64_t>(std::ceil(act))};
    if (r == pp_ - 1) sc.memory.logits = Bytes{static_cast<std::int64_t>(std::ceil(logits_bytes_))};
    out_.memory_peak = std::max(out_.memory_peak, sc.memory.total());
    out_.stages.push_back(sc);
  }

  // The optimizer on the fullest rank (its shard with the distributed optimizer), or its
  // offload (price_offload), then the updated 16-bit weights gathered back over DP (priced
  // per stage); the step's rates.
  void finish(const StageTotals& totals, const std::optional<HostLink>& host_link, int ranks_per_host) {
    const double shard = totals.most_owned;
    const double opt_traffic = m_.optimizer_bytes_per_param > 0 ? m_.optimizer_bytes_per_param : kAdamTraffic;
    if (tr_.offload_optimizer) {
      price_offload(out_, shard, static_cast<double>(m_.gradient_bytes()), opt_traffic, host_link,
                    tr_.overlap_offload ? std::max<std::int64_t>(1, layers_per_chunk_ * v_) : 0);
    } else {
      out_.optimizer = memory_time(shard * opt_traffic);
    }
    out_.param_gather = totals.gather;
    out_.last_reduce_end = totals.step_end;
    out_.step = totals.step_end + out_.optimizer + out_.offload + out_.param_gather;

    const double tokens = static_cast<double>(tr_.global_batch) * static_cast<double>(s_.sequence);
    const double layers = static_cast<double>(s_.layers);
    out_.model_flops = tokens * 3.0 * (layers * s_.layer_forward_flops_per_token() + s_.logit_flops_per_token());
    double repeated = 0;
    if (tr_.recompute == Recompute::Full) repeated = layers * s_.layer_forward_flops_per_token();
    if (tr_.recompute == Recompute::Selective && !s_.flash_attention) repeated = layers * s_.attention_core_flops_per_token();
    out_.hardware_flops = out_.model_flops + tokens * repeated;
    const double secs = out_.step.seconds();
    const double gpus = l_.world();
    if (secs > 0) {
      out_.tokens_per_s = tokens / secs;
      out_.model_tflops_per_gpu = out_.model_flops / secs / gpus / 1e12;
      out_.hardware_tflops_per_gpu = out_.hardware_flops / secs / gpus / 1e12;
      out_.mfu = out_.model_flops / secs / gpus / device_.peak_flops(m_.precision);
    }
    out_.hbm_capacity = device_.hbm_capacity;
    out_.fits = out_.memory_peak <= device_.hbm_capacity;
    if (ranks_per_host > 0) {
      for (const auto& g : tp_groups_) {
        if (g.front() / ranks_per_host != g.back() / ranks_per_host) out_.tp_crosses_hosts = true;
      }
    }
  }

  const LlmModel& m_;
  const TransformerShape& s_;
  const LlmTraining& tr_;
  const ParallelLayout& l_;
  const DeviceSpec& device_;
  const GroupsCostFn& collective_;
  int pp_ = 1, v_ = 1, t_ = 1;
  double td_ = 1;
  std::int64_t b_ = 1;
  double tokens_mb_ = 0, peak_ = 0, logits_bytes_ = 0;
  std::int64_t layers_per_chunk_ = 1;
  std::vector<std::vector<int>> tp_groups_;
  std::int64_t out_bytes_ = 0;
  LlmStep out_;
};

}  // namespace

LlmStep evaluate_llm_step(const LlmModel& model, const LlmTraining& tr, const DeviceSpec& device,
                          const GroupsCostFn& collective, const std::optional<HostLink>& host_link, int ranks_per_host) {
  check_training(model.shape, tr);
  return LlmStepBuilder(model, tr, device, collective).build(host_link, ranks_per_host);
}

}  // namespace collsim
