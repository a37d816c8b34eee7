// The GPU catalogue: dense peak FLOP/s per compute precision, HBM capacity (bytes) and
// HBM bandwidth (bytes/s) of V100, A100, H100, H200 and B200 (SXM parts), from NVIDIA's
// datasheets (cited per entry in device_catalogue.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"

namespace collsim {

struct DeviceSpec {
  std::string name;
  double fp32_flops = 0;   // dense FP32 (non-tensor-core) FLOP/s
  double tf32_flops = 0;   // dense TF32 tensor-core FLOP/s (V100: none, uses FP32)
  double fp16_flops = 0;   // dense FP16 tensor-core FLOP/s
  double bf16_flops = 0;   // dense BF16 tensor-core FLOP/s (V100: none, uses FP32)
  Bytes hbm_capacity;
  Bandwidth hbm_bandwidth;
  std::string citation;

  // Peak for "fp32", "tf32", "fp16" or "bf16"; throws std::invalid_argument otherwise.
  [[nodiscard]] double peak_flops(std::string_view precision) const;
};

[[nodiscard]] std::vector<DeviceSpec> device_catalogue();
[[nodiscard]] std::optional<DeviceSpec> find_device(std::string_view name);  // case-insensitive
[[nodiscard]] std::vector<std::string> device_names();

}  // namespace collsim
