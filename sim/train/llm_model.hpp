// Reads the model of an LLM training step: a workload file with a "transformer" object (its
// parameter list is checked and otherwise unused), or a shape file holding only name,
// description, compute, optimizer and transformer. Also the achievable fraction of the dense
// tensor-core peak that large GEMMs reach on a device, where a measurement is published.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/train/llm_step.hpp"

namespace collsim {

// ConfigError naming the file and field for anything missing or malformed.
[[nodiscard]] LlmModel load_llm_model(const std::string& path);

// Best measured fraction of the dense 16-bit peak for large GEMMs ("maximum achievable matmul
// FLOPS", Bekman's ml-engineering, after Anthony et al. 2024): A100 SXM 271.2 of 312 TFLOP/s,
// H100 SXM 794.5 of 989 TFLOP/s (the A100 figure for both its 40 and 80 GB parts: same GA100
// and clocks). nullopt for devices without a published figure.
[[nodiscard]] std::optional<double> achievable_matmul_fraction(std::string_view device);

// The model's efficiency as given, else the device's figure; ConfigError (naming the model's
// file and compute.efficiency) when neither exists.
[[nodiscard]] LlmModel with_device_efficiency(LlmModel model, const DeviceSpec& device);

}  // namespace collsim
