#include "sim/train/llm_search.hpp"

#include <algorithm>
#include <tuple>

#include "sim/algo/schedule.hpp"
#include "sim/core/error.hpp"

namespace collsim {

namespace {

std::vector<int> divisors(std::int64_t n, int at_most) {
  std::vector<int> out;
  for (int d = 1; d <= at_most && d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

// A total order over candidates: fitting first; among them the shorter step; then memory;
// then the layout's own fields, so equal times still sort the same way every run.
auto key(const LlmCandidate& c) {
  const LlmTraining& t = c.training;
  return std::make_tuple(!c.step.fits, c.step.fits ? c.step.step.ps : c.step.memory_peak.count, c.step.memory_peak.count,
                         t.layout.tp, t.layout.pp, t.layout.virtual_stages, t.layout.ep, t.micro_batch, static_cast<int>(t.recompute),
                         t.sequence_parallel, t.distributed_optimizer, t.offload_optimizer);
}

// The model state alone (16-bit weights, gradients, the optimizer state with its fp32
// gradient copy unless it is offloaded, each split as the layout splits it) exceeds the HBM:
// pruned unplayed.
bool state_exceeds_hbm(const LlmModel& model, const LlmTraining& tr, const DeviceSpec& device) {
  const TransformerShape& s = model.shape;
  const ParallelLayout& l = tr.layout;
  const double experts = static_cast<double>(s.layers * s.layer_expert_parameters());
  const double dense = static_cast<double>(s.parameters()) - experts;
  const double split = static_cast<double>(l.tp) * l.pp;
  const double per_gpu = (dense + experts / l.ep) / split;
  const bool zero = tr.distributed_optimizer;
  const double owned = (dense / (zero ? l.dp : 1) + experts / l.ep / (zero ? l.dp / l.ep : 1)) / split;
  const auto grads = static_cast<double>(model.gradient_bytes());
  const double state = per_gpu * (2.0 + grads) + (tr.offload_optimizer ? 0.0 : owned * static_cast<double>(model.optimizer_step_bytes()));
  return state > static_cast<double>(device.hbm_capacity.count);
}

// The settings tried on every (tp, pp, ep) layout: micro-batch, chunks, recompute, SP,
// ZeRO-1, offload.
struct Options {
  std::int64_t micro_batch;
  int chunks;
  TransformerShape::Recompute recompute;
  bool sequence_parallel, distributed_optimizer, offload;
};

std::vector<Options> options(const LlmSearchSpace& space, const TransformerShape& s, int tp, int pp, int dp) {
  std::vector<int> chunk_options{1};
  // Interleaving needs more than 2 stages, as in Megatron-LM (evaluate_llm_step refuses it).
  if (pp > 2) chunk_options.insert(chunk_options.end(), space.chunks.begin(), space.chunks.end());
  std::vector<Options> out;
  for (std::int64_t mb : space.micro_batches) {
    for (int v : chunk_options) {
      for (auto rc : space.recomputes) {
        // With a fused attention kernel selective recompute is the same run as none.
        if (rc == TransformerShape::Recompute::Selective && s.flash_attention) continue;
        for (bool sp : space.sequence_parallel) {
          if (sp && tp == 1) continue;
          for (bool zero : space.distributed_optimizer) {
            if (zero && dp == 1) continue;
            for (bool offload : space.offload) out.push_back({mb, v, rc, sp, zero, offload});
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

LlmSearchResult search_llm_layouts(const LlmModel& model, const LlmSearchSpace& space, const DeviceSpec& device,
                                   const GroupsCostFn& collective, const std::optional<HostLink>& host_link) {
  const TransformerShape& s = model.shape;
  LlmSearchResult out;
  const auto allowed = [](const std::vector<int>& listed, int v) {
    return listed.empty() || std::find(listed.begin(), listed.end(), v) != listed.end();
  };
  for (int tp : divisors(s.heads, std::min(space.gpus_per_host, space.gpus))) {
    if (space.gpus % tp != 0 || !allowed(space.tensor_parallel, tp)) continue;
    for (int pp : divisors(s.layers, std::min(space.max_pp, space.gpus / tp))) {
      if (space.gpus % (tp * pp) != 0 || !allowed(space.pipeline_parallel, pp)) continue;
      const int dp = space.gpus / (tp * pp);
      std::vector<int> eps{1};
      if (s.experts > 1) {
        eps.clear();
        for (int e : divisors(s.experts, dp)) {
          if (dp % e == 0 && allowed(space.expert_parallel, e)) eps.push_back(e);
        }
      }
      for (int ep : eps) {
        for (const Options& o : options(space, s, tp, pp, dp)) {
          if (o.offload && (!host_link || host_link->memory.bytes_per_s <= 0)) {
            ++out.refused;  // no GPU-to-host path to offload over, or no DRAM rate for the CPU's Adam
            continue;
          }
          LlmTraining tr;
          tr.layout = ParallelLayout{tp, pp, dp, o.chunks, ep, space.order};
          tr.schedule = o.chunks > 1 ? PipelineKind::Interleaved : PipelineKind::OneFOneB;
          tr.micro_batch = o.micro_batch;
          tr.global_batch = space.global_batch;
          tr.recompute = o.recompute;
          tr.sequence_parallel = o.sequence_parallel;
          tr.distributed_optimizer = o.distributed_optimizer;
          tr.offload_optimizer = o.offload;
          tr.overlap_offload = o.offload && space.overlap_offload;
          tr.gradient_accumulation_fusion = space.gradient_accumulation_fusion;
          if (state_exceeds_hbm(model, tr, device)) {
            ++out.pruned;
            continue;
          }
          try {
            LlmStep st = evaluate_llm_step(model, tr, device, collective, host_link, space.gpus_per_host);
            st.run.ops.clear();  // the per-operation record: thousands of layouts would hold gigabytes
            st.run.ops.shrink_to_fit();
            out.candidates.push_back({tr, std::move(st)});
            ++out.evaluated;
          } catch (const LimitError&) {
            ++out.unpriced;  // a collective too large to play transfer by transfer
          } catch (const ConfigError& e) {
            if (e.source() != "layout") throw;
            ++out.refused;  // the batch or model cannot take this layout
          }
        }
      }
    }
  }
  std::sort(out.candidates.begin(), out.candidates.end(),
            [](const LlmCandidate& a, const LlmCandidate& b) { return key(a) < key(b); });
  return out;
}

}  // namespace collsim
