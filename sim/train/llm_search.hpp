// Searches training layouts of a transformer on a fixed number of GPUs: TP degrees that divide
// the heads (up to a host's GPUs), PP degrees that divide the layers, DP the rest, micro-batch
// sizes, schedules (1F1B, interleaved with 2-4 chunks), recomputation, sequence parallelism
// and the distributed optimizer. Every candidate the batch and model can take is evaluated
// (sim/train/llm_step.hpp); those that do not fit in HBM are kept and marked. Times in ps.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/train/llm_step.hpp"

namespace collsim {

struct LlmSearchSpace {
  int gpus = 1;
  int gpus_per_host = 8;            // TP stays at or below it
  std::int64_t global_batch = 1;
  std::vector<std::int64_t> micro_batches{1, 2, 4, 8};
  std::vector<int> chunks{2, 3, 4};  // interleaved model chunks tried per rank
  PlacementOrder order = PlacementOrder::TpDpPp;
  int max_pp = 128;
  // The choices tried (all by default); a fixed setting narrows them.
  std::vector<TransformerShape::Recompute> recomputes{TransformerShape::Recompute::None, TransformerShape::Recompute::Selective,
                                                      TransformerShape::Recompute::Full};
  std::vector<bool> sequence_parallel{false, true};
  std::vector<bool> distributed_optimizer{false, true};
  // ZeRO-Offload of the optimizer to host memory: not tried unless listed (it only trades
  // step time for HBM); needs a GPU-to-host path in the topology.
  std::vector<bool> offload{false};
  bool overlap_offload = false;  // offloaded rows pipeline their parts (LlmTraining::overlap_offload)
  bool gradient_accumulation_fusion = true;  // LlmTraining's, for every row
  // TP and PP degrees tried (empty: every one the model and GPU count allow).
  std::vector<int> tensor_parallel, pipeline_parallel;
  // Expert-parallel degrees tried for an MoE model (empty: every divisor of the experts
  // that divides dp); dense models run ep = 1.
  std::vector<int> expert_parallel;
};

struct LlmCandidate {
  LlmTraining training;
  LlmStep step;
};

struct LlmSearchResult {
  std::vector<LlmCandidate> candidates;  // fitting ones first by step time, then the rest by memory
  std::size_t evaluated = 0;              // layouts evaluated
  std::size_t refused = 0;                // skipped: the model or batch cannot take them
  std::size_t pruned = 0;                 // skipped: weights, gradients and optimizer state alone exceed HBM
  std::size_t unpriced = 0;               // skipped: a collective past the schedule size limit
};

[[nodiscard]] LlmSearchResult search_llm_layouts(const LlmModel& model, const LlmSearchSpace& space, const DeviceSpec& device,
                                                 const GroupsCostFn& collective, const std::optional<HostLink>& host_link);

}  // namespace collsim
