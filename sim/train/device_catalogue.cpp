#include "sim/train/device_catalogue.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace collsim {

double DeviceSpec::peak_flops(std::string_view precision) const {
  if (precision == "fp32") return fp32_flops;
  if (precision == "tf32") return tf32_flops;
  if (precision == "fp16") return fp16_flops;
  if (precision == "bf16") return bf16_flops;
  throw std::invalid_argument("unknown precision " + std::string(precision));
}

namespace {

constexpr double kT = 1e12;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;
constexpr std::int64_t kGB = 1'000'000'000;

// All figures are dense (no 2:4 sparsity) per-GPU peaks of the SXM form factor.
std::vector<DeviceSpec> make_catalogue() {
  return {
      // NVIDIA Tesla V100 datasheet (2018, "V100 SXM2"): FP32 15.7 TFLOPS, Tensor
      // (FP16 mixed) 125 TFLOPS, 32 GB HBM2, 900 GB/s. No TF32/BF16: those fall back to FP32.
      {"V100", 15.7 * kT, 15.7 * kT, 125 * kT, 15.7 * kT, Bytes{32 * kGiB}, Bandwidth::gb_per_s(900),
       "NVIDIA Tesla V100 datasheet, SXM2 32GB"},
      // NVIDIA A100 datasheet (2021, "A100 80GB SXM"): FP32 19.5, TF32 156, BF16/FP16 312
      // TFLOPS (dense; the sparse figures are twice these), 80 GB HBM2e, 2,039 GB/s.
      {"A100", 19.5 * kT, 156 * kT, 312 * kT, 312 * kT, Bytes{80 * kGiB}, Bandwidth::gb_per_s(2039),
       "NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM"},
      // NVIDIA H100 datasheet ("H100 SXM"): FP32 67, TF32 989, BF16/FP16 1,979 TFLOPS *with
      // sparsity*, i.e. 494.5 / 989.5 dense; 80 GB HBM3, 3.35 TB/s.
      {"H100", 67 * kT, 494.5 * kT, 989.5 * kT, 989.5 * kT, Bytes{80 * kGiB}, Bandwidth::gb_per_s(3350),
       "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM"},
      // NVIDIA H200 datasheet ("H200 SXM"): same compute as H100 SXM (FP32 67, TF32 989,
      // FP16 1,979 with sparsity), 141 GB HBM3e, 4.8 TB/s.
      {"H200", 67 * kT, 494.5 * kT, 989.5 * kT, 989.5 * kT, Bytes{141 * kGB}, Bandwidth::gb_per_s(4800),
       "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM"},
      // NVIDIA HGX B200 / DGX B200 datasheet, per GPU: TF32 2.2 PFLOPS and FP16/BF16
      // 4.5 PFLOPS with sparsity (1.1 / 2.25 dense), FP32 75 TFLOPS, 180 GB HBM3e
      // (1,440 GB per 8-GPU board), 8 TB/s.
      {"B200", 75 * kT, 1100 * kT, 2250 * kT, 2250 * kT, Bytes{180 * kGB}, Bandwidth::gb_per_s(8000),
       "NVIDIA HGX B200 datasheet (per-GPU figures)"},
  };
}

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace

std::vector<DeviceSpec> device_catalogue() { return make_catalogue(); }

std::optional<DeviceSpec> find_device(std::string_view name) {
  const std::string want = upper(name);
  for (const auto& d : device_catalogue()) {
    if (d.name == want) return d;
  }
  return std::nullopt;
}

std::vector<std::string> device_names() {
  std::vector<std::string> out;
  for (const auto& d : device_catalogue()) out.push_back(d.name);
  return out;
}

}  // namespace collsim
