#include "sim/train/device_catalogue.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/topo/gpu_catalogue.hpp"

namespace collsim {

double DeviceSpec::peak_flops(std::string_view precision) const {
  const std::optional<double>* peak = nullptr;
  if (precision == "fp32") peak = &fp32_flops;
  if (precision == "tf32") peak = &tf32_flops;
  if (precision == "fp16") peak = &fp16_flops;
  if (precision == "bf16") peak = &bf16_flops;
  if (peak == nullptr) throw std::invalid_argument("unknown precision " + std::string(precision));
  if (!peak->has_value()) {
    throw ConfigError(name, fmt::format("dense {} peak FLOP/s", precision), "unknown (not in the GPU catalogue's source)",
                      "a device with that figure, another precision, or measured layer times "
                      "(forward_time/backward_time) instead of FLOPs");
  }
  return **peak;
}

namespace {

DeviceSpec device_of(const GpuSpec& g) {
  return DeviceSpec{std::string(g.name), g.fp32_flops, g.tf32_flops, g.fp16_flops, g.bf16_flops,
                    g.memory,            g.memory_bandwidth, std::string(g.citation), g.sms};
}

}  // namespace

std::vector<DeviceSpec> device_catalogue() {
  std::vector<DeviceSpec> out;
  for (const GpuSpec& g : gpu_catalogue()) out.push_back(device_of(g));
  return out;
}

std::optional<DeviceSpec> find_device(std::string_view name) {
  if (const GpuSpec* g = find_gpu(name)) return device_of(*g);
  return std::nullopt;
}

std::vector<std::string> device_names() { return gpu_names(); }

}  // namespace collsim
