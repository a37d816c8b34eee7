// A training workload as data: parameters in model.parameters() order (element counts,
// dtypes, sparse-gradient flags), layers in forward order with compute (measured times in
// ps, or FLOPs per iteration), which parameters each layer's backward makes ready, buffers,
// per-sample activation bytes, and the optimizer's cost.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/core/units.hpp"
#include "sim/train/dtype.hpp"
#include "sim/train/transformer.hpp"

namespace collsim {

struct Parameter {
  std::string name;
  std::int64_t numel = 0;
  DType dtype = DType::Float32;
  bool sparse_gradient = false;      // nn.Embedding(sparse=True): its own bucket
  std::vector<std::int64_t> shape{};  // optional; PowerSGD needs it (empty = unknown)
  // Training steps in which no gradient reaches it (a branch or expert not taken): the
  // listed step numbers, or every step. find_unused_parameters needs to know.
  std::vector<std::int64_t> unused_in_steps{};
  bool unused_in_every_step = false;

  [[nodiscard]] bool unused_in(std::int64_t step) const;

  [[nodiscard]] Bytes bytes() const { return Bytes{numel * element_size(dtype)}; }
};

// One layer's compute for one iteration (the whole per-GPU batch). Either measured times
// or FLOPs (converted with a device's peak and an efficiency).
struct LayerCompute {
  std::optional<Time> forward_time;
  std::optional<Time> backward_time;
  double forward_flops = 0;   // floating-point operations (1 MAC = 2 FLOPs)
  double backward_flops = 0;
};

struct Layer {
  std::string name;
  LayerCompute compute;
  // Indices into Workload::parameters whose gradients this layer's backward produces,
  // in the order they become ready.
  std::vector<std::size_t> params;
  // Activation memory per sample (multiply by the micro-batch): bytes this layer's forward
  // saves for its backward, and its input's bytes (what activation checkpointing keeps).
  // Both 0 when the workload file does not give them.
  Bytes activation_bytes_per_sample;
  Bytes checkpoint_bytes_per_sample;
};

struct Buffer {
  std::string name;
  std::int64_t numel = 0;
  DType dtype = DType::Float32;
};

struct OptimizerCost {
  std::optional<Time> time;          // measured optimizer step time, or
  double memory_bytes_per_param = 0; // HBM traffic per parameter element (e.g. SGD+momentum: 16)
};

struct Workload {
  std::string name;
  std::string source;             // file it came from
  std::string description;
  int batch_per_gpu = 1;
  std::string measured_on;        // device the measured times come from ("" if FLOPs)
  std::string precision = "fp32"; // compute precision for FLOPs: fp32, tf32, fp16, bf16
  double efficiency = 0.5;        // fraction of the device peak a layer reaches (FLOPs mode)
  bool efficiency_given = false;  // the file states it (else 0.5, or the device's matmul figure for LLM steps)
  std::vector<Parameter> parameters;
  std::vector<Layer> layers;      // forward order; backward runs them in reverse
  std::vector<Buffer> buffers;
  OptimizerCost optimizer;
  std::optional<TransformerShape> transformer;  // the model by shape (collsim llm), if given

  [[nodiscard]] Bytes parameter_bytes() const;
  [[nodiscard]] std::int64_t parameter_count() const;
  // Gradient-ready order: layers in reverse, each layer's params in its listed order.
  [[nodiscard]] std::vector<std::size_t> grad_ready_order() const;
  // Sum of every layer's activation_bytes_per_sample.
  [[nodiscard]] Bytes activation_bytes_per_sample() const;
};

// The block a layer belongs to, by name: everything up to and including the first
// all-digit path component ("model.layers.7.mlp.up_proj" -> "model.layers.7."), as
// FSDP's transformer auto-wrap and activation checkpointing group layers; "" for a layer
// outside every block (embeddings, final norm, LM head).
[[nodiscard]] std::string_view block_prefix(std::string_view layer_name);

// Reads a workload JSON file; every error is a ConfigError naming the file and pointer.
[[nodiscard]] Workload load_workload_file(const std::string& path);
[[nodiscard]] Workload parse_workload(const nlohmann::json& j, const std::string& source);

}  // namespace collsim
