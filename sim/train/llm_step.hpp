// One optimizer step of a transformer under a parallel layout (TP x PP x DP, EP within DP):
// per-micro-batch compute of each pipeline stage (GEMM FLOPs at the device's peak x
// efficiency, elementwise work at HBM bandwidth), TP collectives inside every layer, the MoE
// all-to-alls over EP, the pipeline schedule with its point-to-point activations, the
// data-parallel gradient reduction (experts' over their expert-DP groups), the optimizer (and its
// offload over PCIe), memory per GPU, FLOP rates and MFU. Collective times come from a
// function of (operation, bytes, concurrent groups), so tests can give closed forms and the
// CLI gives the flow engine on the topology. Times in ps, sizes in bytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/algo/collective.hpp"
#include "sim/core/units.hpp"
#include "sim/train/device_catalogue.hpp"
#include "sim/train/host_costs.hpp"
#include "sim/train/parallel_layout.hpp"
#include "sim/train/pipeline_schedule.hpp"
#include "sim/train/transformer.hpp"

namespace collsim {

// Time of one collective run by every listed group at once (groups of equal size, job ranks).
// Point-to-point sends are 2-rank broadcasts from the group's first rank.
using GroupsCostFn = std::function<Time(CollectiveOp op, Bytes bytes, const std::vector<std::vector<int>>& groups)>;

struct LlmModel {
  std::string name;
  std::string source;  // file it came from
  TransformerShape shape;
  std::string precision = "bf16";  // compute precision: bf16 or fp16 (tensor cores)
  double efficiency = 0.5;         // fraction of the peak the GEMMs reach
  double optimizer_bytes_per_param = 0;  // HBM traffic of one optimizer update (0: Adam's 30)

  // Bytes of each gradient element as the DP reduction sends it: fp32 main gradients under
  // bf16 (Megatron-LM's default), fp16 under fp16.
  [[nodiscard]] std::int64_t gradient_bytes() const { return precision == "bf16" ? 4 : 2; }
  // Optimizer state per parameter on the GPU unless offloaded: fp32 master weight, Adam m and v.
  static constexpr std::int64_t kOptimizerStateBytes = 12;
  // Under fp16 the optimizer steps on an fp32 copy of the gradients, made after the backward
  // (under bf16 the fp32 main gradients are the gradients themselves). Megatron-LM's
  // distributed optimizer guide counts 20 B per parameter for fp16 and 18 B for bf16 without
  // the distributed optimizer, 4 + 16/d and 6 + 12/d with it: 2 B of weights, the gradients,
  // and the optimizer's state with this copy split over DP.
  [[nodiscard]] std::int64_t step_gradient_bytes() const { return precision == "fp16" ? 4 : 0; }
  // All the optimizer holds per parameter it owns at its step.
  [[nodiscard]] std::int64_t optimizer_step_bytes() const { return kOptimizerStateBytes + step_gradient_bytes(); }
};

struct LlmTraining {
  ParallelLayout layout;
  PipelineKind schedule = PipelineKind::OneFOneB;
  std::int64_t micro_batch = 1;    // samples per micro-batch per DP replica
  std::int64_t global_batch = 1;   // samples per optimizer step, all replicas
  TransformerShape::Recompute recompute = TransformerShape::Recompute::None;
  bool sequence_parallel = false;
  bool distributed_optimizer = false;  // ZeRO-1: optimizer state split over DP
  bool offload_optimizer = false;      // ZeRO-Offload: optimizer state and step on the CPU
  // Megatron-Core's --overlap-cpu-optimizer-d2h-h2d: the offload's three parts pipelined
  // layer by layer instead of one after the other (with offload_optimizer only).
  bool overlap_offload = false;
  bool overlap_grad_reduce = false;    // DP reduction overlapped with the last backward
  // The weight-gradient GEMMs accumulate into the main gradients (Megatron's default since
  // 2022); off, a separate add per parameter and micro-batch (evaluate_llm_step).
  bool gradient_accumulation_fusion = true;
};

struct LlmMemory {
  Bytes weights, gradients, optimizer, activations, logits;
  // The optimizer's fp32 gradient copy (fp16 only): made after the backward has freed the
  // activations, so the peak holds one or the other.
  Bytes step_gradients;
  [[nodiscard]] Bytes total() const { return weights + gradients + optimizer + std::max(activations + logits, step_gradients); }
};

struct LlmStageCost {
  Time forward, backward;           // one micro-batch, all of the rank's chunks together
  Time tp_forward, tp_backward;     // their TP collectives (included above)
  Time ep_forward, ep_backward;     // their MoE all-to-alls over EP (included above)
  Time recompute;                   // forward work repeated in backward (included above)
  Time dp_reduce, dp_exposed;       // gradient reduction over DP, and the part past the pipeline
  Time dp_start;                    // when the reduction starts (the last backward's end, or start when overlapped)
  LlmMemory memory;
};

struct LlmStep {
  Time step, pipeline, optimizer, param_gather;
  // ZeRO-Offload: the gradient shard to host memory (PCIe), Adam on the CPU, the updated
  // 16-bit weights back; offload is their sum, or their pipeline when overlapped.
  Time offload, offload_down, offload_cpu, offload_up;
  Time last_reduce_end;               // the last stage's gradient reduction done: the optimizer starts
  PipelineRun run;
  PipelineCosts pipeline_costs;       // what the pipeline was played with (per virtual stage)
  std::vector<LlmStageCost> stages;   // per pipeline rank
  int micro_batches = 0;              // per replica per step
  int tp_collectives_per_layer = 0;   // per micro-batch, forward + backward (+ recompute)
  int ep_all_to_alls_per_layer = 0;   // the same for the MoE all-to-alls (0 without EP)
  double model_flops = 0;             // per step, all GPUs, without recompute
  double hardware_flops = 0;          // with recompute
  double tokens_per_s = 0;
  double model_tflops_per_gpu = 0, hardware_tflops_per_gpu = 0;
  double mfu = 0;                     // model FLOP/s / (GPUs x peak)
  Bytes memory_peak;                  // the fullest GPU
  Bytes hbm_capacity;
  bool fits = true;
  bool tp_crosses_hosts = false;
};

// Throws ConfigError (source "layout") for a layout the model or batch cannot take: TP not
// dividing heads / KV heads / FFN, PP x v not dividing layers, a global batch that is not
// dp x micro-batch x an integer, interleaving with m not a multiple of pp, EP not dividing
// dp and the experts (or set on a dense model), an MoE model under TP without SP.
[[nodiscard]] LlmStep evaluate_llm_step(const LlmModel& model, const LlmTraining& training, const DeviceSpec& device,
                                        const GroupsCostFn& collective, const std::optional<HostLink>& host_link,
                                        int ranks_per_host);

}  // namespace collsim
