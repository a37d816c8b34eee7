// The compute view of the GPU catalogue (sim/topo/gpu_catalogue.hpp, datasheet cited per
// entry): dense peak FLOP/s per compute precision, memory capacity (bytes) and memory
// bandwidth (bytes/s) of one device. Measured hosts build their own DeviceSpec.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"

namespace collsim {

struct DeviceSpec {
  std::string name;
  std::optional<double> fp32_flops;  // dense FP32 (non-tensor-core) FLOP/s
  std::optional<double> tf32_flops;  // dense TF32 tensor-core FLOP/s (V100: none, uses FP32)
  std::optional<double> fp16_flops;  // dense FP16 tensor-core FLOP/s
  std::optional<double> bf16_flops;  // dense BF16 tensor-core FLOP/s (V100: none, uses FP32)
  Bytes hbm_capacity;                // device memory (HBM or GDDR)
  Bandwidth hbm_bandwidth;
  std::string citation;
  int sms = 0;                       // streaming multiprocessors (0: unknown, or not a GPU)

  // Peak for "fp32", "tf32", "fp16" or "bf16"; throws std::invalid_argument for another
  // precision and ConfigError (naming the device and precision) when the catalogue has
  // no figure for it.
  [[nodiscard]] double peak_flops(std::string_view precision) const;
};

[[nodiscard]] std::vector<DeviceSpec> device_catalogue();
// Any spelling the GPU catalogue accepts ("h100", "GeForce RTX 4090").
[[nodiscard]] std::optional<DeviceSpec> find_device(std::string_view name);
[[nodiscard]] std::vector<std::string> device_names();

}  // namespace collsim
