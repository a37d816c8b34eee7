#include "sim/topo/gpu_catalogue.hpp"

#include <cctype>
#include <utility>

namespace collsim {

namespace {

constexpr double kT = 1e12;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;
constexpr std::int64_t kGB = 1'000'000'000;

// Figures are per GPU, dense (datasheets print 2:4-sparse tensor figures, twice these).
// Compute capabilities: NVIDIA's CUDA GPUs list (developer.nvidia.com/cuda-gpus) and the
// CUDA 12.9 release notes for SM 10.3. NVLink per link per direction: NVLink 2-4 carry
// 25 GB/s per link (50 GB/s both ways), NVLink 5 50 GB/s; GA102's NVLink 3 x4 links
// 14.0625 GB/s. Memory: GDDR and HBM2/HBM3 capacities are binary (24 GB = 24 GiB),
// HBM3e capacities as the datasheets print them (decimal), as before this table.
// Streaming multiprocessors: the architecture whitepapers' per-product SM counts (Volta,
// Turing, Ampere GA100 and GA102, Ada AD102/AD104, Hopper H100 SXM5; H800 and H200 are the
// same GH100 configuration), B200 and RTX 5090 as CUDA's device query reports them (148;
// GB202's 21,760 CUDA cores / 128 = 170). 0 where NVIDIA publishes no figure (H20, GB200,
// B300): no SM-share interference is then modelled (sim/train/interference.hpp).
// Transports: GPUDirect RDMA only on data-center and professional GPUs (NVIDIA's
// "GPUDirect RDMA" guide in the CUDA documentation), so not on the GeForce entries; PCIe
// peer access everywhere the driver is not known to refuse it (RTX 4090, see its notes).
constexpr GpuSpec kA100{.name = "A100",
                         .aliases = {"A100-SXM4-80GB", "A100 80GB SXM", "", ""},
                         .compute_capability = {8, 0},
                         .sms = 108,
                         .nvlink_generation = 3, .nvlink_links = 12, .nvlink_link_gb_per_s = 25,
                         .pcie_generation = 4, .pcie_lanes = 16,
                         .form_factor = "SXM4",
                         .fp32_flops = 19.5 * kT, .tf32_flops = 156 * kT, .fp16_flops = 312 * kT, .bf16_flops = 312 * kT,
                         .memory = Bytes{80 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(2039),
                         .citation = "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 80GB SXM",
                         .notes = "FP32 19.5, TF32 156, BF16/FP16 312 TFLOPS, 80 GB HBM2e at 2,039 GB/s, NVLink 600 GB/s "
                                  "(12 links), PCIe Gen4."};

// The first A100 (DGX A100 320GB, AWS p4d.24xlarge): the 80 GB part's chip, clocks and NVLink
// with 40 GB of HBM2.
constexpr GpuSpec first_a100() {
  GpuSpec g = kA100;
  g.name = "A100-40GB";
  g.aliases = {"A100-SXM4-40GB", "A100 40GB SXM", "", ""};
  g.memory = Bytes{40 * kGiB};
  g.memory_bandwidth = Bandwidth::gb_per_s(1555);
  g.citation = "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 40GB SXM";
  g.notes = "40 GB HBM2 at 1,555 GB/s; compute, NVLink and PCIe as the 80GB SXM part.";
  return g;
}

constexpr std::array kGpus{
    GpuSpec{.name = "V100",
            .aliases = {"V100-SXM2-32GB", "V100 SXM2", "", ""},
            .compute_capability = {7, 0},
            .sms = 80,
            .nvlink_generation = 2, .nvlink_links = 6, .nvlink_link_gb_per_s = 25,
            .pcie_generation = 3, .pcie_lanes = 16,
            .form_factor = "SXM2",
            .fp32_flops = 15.7 * kT, .tf32_flops = 15.7 * kT, .fp16_flops = 125 * kT, .bf16_flops = 15.7 * kT,
            .memory = Bytes{32 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(900),
            .citation = "NVIDIA Tesla V100 datasheet (2018), V100 SXM2 32GB",
            .notes = "FP32 15.7, tensor (FP16) 125 TFLOPS, 32 GB HBM2 at 900 GB/s, NVLink 300 GB/s (6 links), "
                     "PCIe Gen3. No TF32/BF16 tensor cores: the FP32 figure."},
    GpuSpec{.name = "RTX 2080 Ti",
            .aliases = {"GeForce RTX 2080 Ti", "2080 Ti", "", ""},
            .compute_capability = {7, 5},
            .sms = 68,
            .nvlink_generation = 2, .nvlink_links = 2, .nvlink_link_gb_per_s = 25,
            .pcie_generation = 3, .pcie_lanes = 16,
            .form_factor = "PCIe card (NVLink bridge)", .gpudirect_rdma = false,
            .fp32_flops = 13.4 * kT, .tf32_flops = 13.4 * kT, .fp16_flops = 53.8 * kT, .bf16_flops = 13.4 * kT,
            .memory = Bytes{11 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(616),
            .citation = "NVIDIA Turing GPU Architecture whitepaper (2018), GeForce RTX 2080 Ti reference board",
            .notes = "TU102: two x8 NVLink links of 25 GB/s per direction (100 GB/s both ways through the bridge). "
                     "FP32 13.4 and FP16 tensor with FP32 accumulate 53.8 TFLOPS at the reference 1545 MHz boost "
                     "(Founders Edition: 14.2 / 56.9). No TF32/BF16 tensor cores: the FP32 figure."},
    kA100,
    first_a100(),
    GpuSpec{.name = "A800",
            .aliases = {"A800-SXM4-80GB", "A800 80GB SXM", "", ""},
            .compute_capability = {8, 0},
            .sms = 108,
            .nvlink_generation = 3, .nvlink_links = 8, .nvlink_link_gb_per_s = 25,
            .pcie_generation = 4, .pcie_lanes = 16,
            .form_factor = "SXM4",
            .fp32_flops = 19.5 * kT, .tf32_flops = 156 * kT, .fp16_flops = 312 * kT, .bf16_flops = 312 * kT,
            .memory = Bytes{80 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(2039),
            .citation = "NVIDIA A800 Tensor Core GPU datasheet (2022), A800 80GB SXM",
            .notes = "An A100 80GB SXM with NVLink cut to 400 GB/s both ways, i.e. 8 of its NVLink 3 links."},
    GpuSpec{.name = "RTX 3090",
            .aliases = {"GeForce RTX 3090", "3090", "", ""},
            .compute_capability = {8, 6},
            .sms = 82,
            .nvlink_generation = 3, .nvlink_links = 4, .nvlink_link_gb_per_s = 14.0625,
            .pcie_generation = 4, .pcie_lanes = 16,
            .form_factor = "PCIe card (NVLink bridge)", .gpudirect_rdma = false,
            .fp32_flops = 35.6 * kT, .tf32_flops = 35.6 * kT, .fp16_flops = 71 * kT, .bf16_flops = 71 * kT,
            .memory = Bytes{24 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(936),
            .citation = "NVIDIA Ampere GA102 GPU Architecture whitepaper (2020, v2.0), GeForce RTX 3090",
            .notes = "Four x4 NVLink 3 links of 14.0625 GB/s per direction (56.25 GB/s, 112.5 both ways). "
                     "FP16/BF16 tensor with FP32 accumulate 71, TF32 35.6, FP32 35.6 TFLOPS; 24 GB GDDR6X."},
    GpuSpec{.name = "RTX 4090",
            .aliases = {"GeForce RTX 4090", "4090", "", ""},
            .compute_capability = {8, 9},
            .sms = 128,
            .pcie_generation = 4, .pcie_lanes = 16,
            .form_factor = "PCIe card", .pcie_p2p = false, .gpudirect_rdma = false,
            .fp32_flops = 82.6 * kT, .tf32_flops = 82.6 * kT, .fp16_flops = 165.2 * kT, .bf16_flops = 165.2 * kT,
            .memory = Bytes{24 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(1008),
            .citation = "NVIDIA Ada GPU Architecture whitepaper (2022, v2.01), GeForce RTX 4090",
            .notes = "No NVLink. FP16/BF16 tensor with FP32 accumulate 165.2, TF32 82.6, FP32 82.6 TFLOPS; "
                     "24 GB GDDR6X at 1,008 GB/s. No PCIe peer access with NVIDIA's driver (the RTX 4090 "
                     "development log's run A, tests/data/nccl-tests/dev: 'P2P NOT available', NCCL over SHM; "
                     "its run B needed a patched driver)."},
    GpuSpec{.name = "L4",
            .aliases = {"L4 Tensor Core", "", "", ""},
            .compute_capability = {8, 9},
            .sms = 58,
            .pcie_generation = 4, .pcie_lanes = 16,
            .form_factor = "PCIe card, low profile",
            .fp32_flops = 30.3 * kT, .tf32_flops = 60 * kT, .fp16_flops = 121 * kT, .bf16_flops = 121 * kT,
            .memory = Bytes{24 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(300),
            .citation = "NVIDIA L4 Tensor Core GPU datasheet (2023)",
            .notes = "No NVLink. FP32 30.3; TF32 120 and FP16/BF16 242 TFLOPS with sparsity (60 / 121 dense); "
                     "24 GB GDDR6 at 300 GB/s."},
    GpuSpec{.name = "L40S",
            .aliases = {"", "", "", ""},
            .compute_capability = {8, 9},
            .sms = 142,
            .pcie_generation = 4, .pcie_lanes = 16,
            .form_factor = "PCIe card",
            .fp32_flops = 91.6 * kT, .tf32_flops = 183 * kT, .fp16_flops = 362.05 * kT, .bf16_flops = 362.05 * kT,
            .memory = Bytes{48 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(864),
            .citation = "NVIDIA L40S datasheet (2023)",
            .notes = "No NVLink. FP32 91.6, TF32 183, BF16/FP16 362.05 TFLOPS (dense); 48 GB GDDR6 at 864 GB/s."},
    GpuSpec{.name = "H100",
            .aliases = {"H100-SXM5-80GB", "H100 80GB HBM3", "H100 SXM", ""},
            .compute_capability = {9, 0},
            .sms = 132,
            .nvlink_generation = 4, .nvlink_links = 18, .nvlink_link_gb_per_s = 25,
            .pcie_generation = 5, .pcie_lanes = 16,
            .form_factor = "SXM5",
            .fp32_flops = 67 * kT, .tf32_flops = 494.5 * kT, .fp16_flops = 989.5 * kT, .bf16_flops = 989.5 * kT,
            .memory = Bytes{80 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(3350),
            .citation = "NVIDIA H100 Tensor Core GPU datasheet (2022), H100 SXM",
            .notes = "FP32 67; TF32 989 and BF16/FP16 1,979 TFLOPS with sparsity (494.5 / 989.5 dense); 80 GB HBM3 "
                     "at 3.35 TB/s; NVLink 900 GB/s (18 links); PCIe Gen5."},
    GpuSpec{.name = "H800",
            .aliases = {"H800-SXM5-80GB", "H800 SXM", "", ""},
            .compute_capability = {9, 0},
            .sms = 132,
            .nvlink_generation = 4, .nvlink_links = 8, .nvlink_link_gb_per_s = 25,
            .pcie_generation = 5, .pcie_lanes = 16,
            .form_factor = "SXM5",
            .fp32_flops = 67 * kT, .tf32_flops = 494.5 * kT, .fp16_flops = 989.5 * kT, .bf16_flops = 989.5 * kT,
            .memory = Bytes{80 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(3350),
            .citation = "NVIDIA H800 Tensor Core GPU datasheet (2023), H800 SXM",
            .notes = "An H100 SXM (same FP32/TF32/FP16/BF16 and 80 GB at 3.35 TB/s; FP64 cut) with NVLink cut "
                     "to 400 GB/s both ways: 8 of NVLink 4's 50 GB/s links."},
    GpuSpec{.name = "H20",
            .aliases = {"HGX H20", "", "", ""},
            .compute_capability = {9, 0},
            .sms = 0,
            .nvlink_generation = 4, .nvlink_links = 18, .nvlink_link_gb_per_s = 25,
            .pcie_generation = 5, .pcie_lanes = 16,
            .form_factor = "SXM (HGX H20)",
            .fp32_flops = 44 * kT, .tf32_flops = 74 * kT, .fp16_flops = 148 * kT, .bf16_flops = 148 * kT,
            .memory = Bytes{96 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(4000),
            .citation = "NVIDIA HGX H20 specification (2023-11) as published by NVIDIA's partners and the press; "
                        "NVIDIA has no public H20 datasheet",
            .notes = "Dense FP32 44, TF32 74, FP16/BF16 148 TFLOPS; 96 GB HBM3 at 4.0 TB/s; NVLink 900 GB/s "
                     "(18 links, as H100); PCIe Gen5 x16. Weakest sourcing in this table."},
    GpuSpec{.name = "H200",
            .aliases = {"H200 SXM", "H200-SXM-141GB", "", ""},
            .compute_capability = {9, 0},
            .sms = 132,
            .nvlink_generation = 4, .nvlink_links = 18, .nvlink_link_gb_per_s = 25,
            .pcie_generation = 5, .pcie_lanes = 16,
            .form_factor = "SXM5",
            .fp32_flops = 67 * kT, .tf32_flops = 494.5 * kT, .fp16_flops = 989.5 * kT, .bf16_flops = 989.5 * kT,
            .memory = Bytes{141 * kGB}, .memory_bandwidth = Bandwidth::gb_per_s(4800),
            .citation = "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM",
            .notes = "Compute as H100 SXM; 141 GB HBM3e at 4.8 TB/s; NVLink 900 GB/s (18 links); PCIe Gen5."},
    GpuSpec{.name = "B200",
            .aliases = {"HGX B200", "", "", ""},
            .compute_capability = {10, 0},
            .sms = 148,
            .nvlink_generation = 5, .nvlink_links = 18, .nvlink_link_gb_per_s = 50,
            .form_factor = "SXM (HGX B200)",
            .fp32_flops = 75 * kT, .tf32_flops = 1100 * kT, .fp16_flops = 2250 * kT, .bf16_flops = 2250 * kT,
            .memory = Bytes{180 * kGB}, .memory_bandwidth = Bandwidth::gb_per_s(8000),
            .citation = "NVIDIA HGX B200 datasheet (2024), per-GPU figures",
            .notes = "TF32 2.2 and FP16/BF16 4.5 PFLOPS with sparsity (1.1 / 2.25 dense), FP32 75 TFLOPS, "
                     "180 GB HBM3e (1,440 GB per 8-GPU board) at 8 TB/s, NVLink 1.8 TB/s (18 links). "
                     "PCIe: not stated by the datasheet, unknown."},
    GpuSpec{.name = "GB200",
            .aliases = {"GB200 NVL72", "", "", ""},
            .compute_capability = {10, 0},
            .sms = 0,
            .nvlink_generation = 5, .nvlink_links = 18, .nvlink_link_gb_per_s = 50,
            .form_factor = "Grace Blackwell superchip (2 GPUs + 1 Grace CPU)",
            .fp32_flops = 90 * kT, .tf32_flops = 1250 * kT, .fp16_flops = 2500 * kT, .bf16_flops = 2500 * kT,
            .memory = Bytes{192 * kGB}, .memory_bandwidth = Bandwidth::gb_per_s(8000),
            .citation = "NVIDIA GB200 NVL72 datasheet (2024), GB200 Grace Blackwell Superchip column, per GPU",
            .notes = "The superchip's FP32 180 TFLOPS, TF32 5 and FP16/BF16 10 PFLOPS with sparsity, 384 GB HBM3e "
                     "at 16 TB/s, halved per GPU and sparsity removed. Later revisions print 372 GB (186 GB per GPU); "
                     "this entry keeps the first datasheet. NVLink 1.8 TB/s per GPU (18 links). The GPUs reach the "
                     "Grace CPU by NVLink-C2C; PCIe: unknown."},
    GpuSpec{.name = "B300",
            .aliases = {"HGX B300", "Blackwell Ultra", "", ""},
            .compute_capability = {10, 3},
            .sms = 0,
            .nvlink_generation = 5, .nvlink_links = 18, .nvlink_link_gb_per_s = 50,
            .form_factor = "SXM (HGX B300)",
            .fp32_flops = 75 * kT, .tf32_flops = 1125 * kT, .fp16_flops = 2250 * kT, .bf16_flops = 2250 * kT,
            .memory = Bytes{288 * kGB}, .memory_bandwidth = Bandwidth::gb_per_s(8000),
            .citation = "NVIDIA HGX B300 datasheet (2025), 8-GPU board figures per GPU",
            .notes = "The board's TF32 18 and FP16/BF16 36 PFLOPS with sparsity and FP32 600 TFLOPS over 8 GPUs, "
                     "sparsity removed; 288 GB HBM3e at 8 TB/s per GPU; NVLink 1.8 TB/s (18 links). PCIe: unknown."},
    GpuSpec{.name = "RTX 5090",
            .aliases = {"GeForce RTX 5090", "5090", "", ""},
            .compute_capability = {12, 0},
            .sms = 170,
            .pcie_generation = 5, .pcie_lanes = 16,
            .form_factor = "PCIe card", .gpudirect_rdma = false,
            .fp32_flops = 104.8 * kT,
            .memory = Bytes{32 * kGiB}, .memory_bandwidth = Bandwidth::gb_per_s(1792),
            .citation = "NVIDIA GeForce RTX 5090 specifications (2025): 21,760 CUDA cores at 2.41 GHz boost, "
                        "32 GB GDDR7 at 1,792 GB/s, PCIe Gen5",
            .notes = "No NVLink. FP32 104.8 TFLOPS (cores x 2 x boost clock). Dense TF32/FP16/BF16 tensor peaks "
                     "with FP32 accumulate: unknown (NVIDIA's page gives only FP4 AI TOPS with sparsity), so a "
                     "FLOPs workload in those precisions is refused on this GPU."},
};

// Upper case without spaces, '-' and '_', and without a leading vendor or brand word.
std::string normalized(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out.push_back(static_cast<char>(std::toupper(c)));
  }
  for (std::string_view prefix : {"NVIDIA", "TESLA", "GEFORCE"}) {
    if (out.size() > prefix.size() && out.compare(0, prefix.size(), prefix) == 0) out.erase(0, prefix.size());
  }
  return out;
}

}  // namespace

std::span<const GpuSpec> gpu_catalogue() { return kGpus; }

const GpuSpec* find_gpu(std::string_view name) {
  // Every spelling normalized once (a constant table, built on first use).
  static const std::vector<std::pair<std::string, const GpuSpec*>> spellings = [] {
    std::vector<std::pair<std::string, const GpuSpec*>> out;
    for (const GpuSpec& g : kGpus) {
      out.emplace_back(normalized(g.name), &g);
      for (std::string_view alias : g.aliases) {
        if (!alias.empty()) out.emplace_back(normalized(alias), &g);
      }
    }
    return out;
  }();
  const std::string want = normalized(name);
  if (want.empty()) return nullptr;
  for (const auto& [spelling, gpu] : spellings) {
    if (spelling == want) return gpu;
  }
  return nullptr;
}

std::vector<std::string> gpu_names() {
  std::vector<std::string> out;
  for (const GpuSpec& g : kGpus) out.emplace_back(g.name);
  return out;
}

}  // namespace collsim
