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
                         t.sequence_parallel, t.distributed_optimizer);
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
        for (std::int64_t mb : space.micro_batches) {
          std::vector<int> chunk_options{1};
          if (pp > 1) chunk_options.insert(chunk_options.end(), space.chunks.begin(), space.chunks.end());
          for (int v : chunk_options) {
            for (auto rc : space.recomputes) {
              // With a fused attention kernel selective recompute is the same run as none.
              if (rc == TransformerShape::Recompute::Selective && s.flash_attention) continue;
              for (bool sp : space.sequence_parallel) {
                if (sp && tp == 1) continue;
                for (bool zero : space.distributed_optimizer) {
                  if (zero && dp == 1) continue;
                  LlmTraining tr;
                  tr.layout = ParallelLayout{tp, pp, dp, v, ep, space.order};
                  tr.schedule = v > 1 ? PipelineKind::Interleaved : PipelineKind::OneFOneB;
                  tr.micro_batch = mb;
                  tr.global_batch = space.global_batch;
                  tr.recompute = rc;
                  tr.sequence_parallel = sp;
                  tr.distributed_optimizer = zero;
                  // Pruned unplayed: the model state alone (16-bit weights, gradients, 12 B of
                  // optimizer state, split as the layout splits them) is past the HBM.
                  const double experts = static_cast<double>(s.layers * s.layer_expert_parameters());
                  const double dense = static_cast<double>(s.parameters()) - experts;
                  const double per_gpu = (dense + experts / ep) / (tp * pp);
                  const double owned = (dense / (zero ? dp : 1) + experts / ep / (zero ? dp / ep : 1)) / (tp * pp);
                  const double grads = model.precision == "bf16" ? 4.0 : 2.0;
                  if (per_gpu * (2.0 + grads) + owned * 12.0 > static_cast<double>(device.hbm_capacity.count)) {
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
        }
      }
    }
  }
  std::sort(out.candidates.begin(), out.candidates.end(),
            [](const LlmCandidate& a, const LlmCandidate& b) { return key(a) < key(b); });
  return out;
}

}  // namespace collsim
