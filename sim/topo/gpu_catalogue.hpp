// The GPU catalogue: every GPU model collsim predicts, once, with what each layer asks of
// it: compute capability (NCCL keys its tuning rows and NVLink figure on it), NVLink
// (generation, link count, GB/s per link per direction), PCIe (generation, lanes), dense
// peak FLOP/s per precision, memory capacity (bytes) and bandwidth (bytes/s), and the
// datasheet the figures come from. Data only: the NCCL view of an entry lives in sim/coll.
#pragma once

#include <array>
#include <compare>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"

namespace collsim {

// CUDA compute capability ("SM major.minor").
struct ComputeCapability {
  int major = 0;
  int minor = 0;

  // NCCL's cudaCompCap: major x 10 + minor (8.6 -> 86, 10.0 -> 100, 12.0 -> 120).
  [[nodiscard]] constexpr int sm() const { return major * 10 + minor; }
  constexpr auto operator<=>(const ComputeCapability&) const = default;
};

struct GpuSpec {
  std::string_view name;                    // canonical spelling, e.g. "RTX 4090"
  std::array<std::string_view, 4> aliases;  // other accepted spellings; "" = unused slot
  ComputeCapability compute_capability;
  int sms = 0;                        // streaming multiprocessors; 0: no published figure
  int nvlink_generation = 0;          // 0: no NVLink
  int nvlink_links = 0;               // NVLinks per GPU
  double nvlink_link_gb_per_s = 0;    // payload GB/s (1e9 B/s) per link per direction; 0 none
  int pcie_generation = 0;            // 0: not stated by the cited source (see notes)
  int pcie_lanes = 0;
  std::string_view form_factor;       // "SXM5", "PCIe card", ...
  // Peer access over PCIe as the stock driver offers it (NVML's P2P status, which NCCL's
  // ncclTopoCheckP2p obeys); false: NCCL copies between GPUs that NVLink does not join
  // through host memory (its SHM transport).
  bool pcie_p2p = true;
  // GPUDirect RDMA, a NIC reading and writing the GPU's memory: NVIDIA's "GPUDirect RDMA"
  // guide (CUDA documentation) offers it on data-center and professional GPUs, not on
  // GeForce; false: NCCL stages network data in host memory.
  bool gpudirect_rdma = true;
  // Dense (no 2:4 sparsity) peaks in FLOP/s; nullopt where the cited source gives none.
  // GPUs without TF32/BF16 tensor cores carry their FP32 figure there (frameworks fall
  // back to FP32 for those precisions).
  std::optional<double> fp32_flops = std::nullopt;
  std::optional<double> tf32_flops = std::nullopt;
  std::optional<double> fp16_flops = std::nullopt;  // tensor cores, FP32 accumulate
  std::optional<double> bf16_flops = std::nullopt;
  Bytes memory;                       // HBM or GDDR capacity
  Bandwidth memory_bandwidth;
  std::string_view citation;          // datasheet or whitepaper (name, year) of the figures
  std::string_view notes;             // what is derived, assumed or unknown, and why

  // Aggregate NVLink payload rate per direction (links x per-link); 0 without NVLink.
  [[nodiscard]] constexpr double nvlink_gb_per_s() const { return nvlink_links * nvlink_link_gb_per_s; }
};

// Every entry, oldest compute capability first.
[[nodiscard]] std::span<const GpuSpec> gpu_catalogue();

// The entry a name or alias spells, ignoring case, spaces, '-' and '_', and a leading
// "NVIDIA", "Tesla" or "GeForce" ("rtx4090", "NVIDIA GeForce RTX 4090" -> RTX 4090).
// Null when the catalogue has no such model; the pointer is into the static table.
[[nodiscard]] const GpuSpec* find_gpu(std::string_view name);

// Canonical names in catalogue order (for "expected one of: ..." messages).
[[nodiscard]] std::vector<std::string> gpu_names();

}  // namespace collsim
