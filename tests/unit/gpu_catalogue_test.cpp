// The one GPU catalogue: every entry cited and self-consistent, spellings, NCCL's rows and
// NVLink figures taken from the compute capability, and the views other layers ask
// (topology loader, device catalogue) answering from the same table.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "sim/coll/nccl/path_type.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/topo/loader.hpp"
#include "sim/train/device_catalogue.hpp"

namespace collsim {

namespace {
const GpuSpec& catalogue_gpu(std::string_view name) {
  const GpuSpec* g = find_gpu(name);
  REQUIRE(g != nullptr);
  return *g;
}

// Two GPUs of `model` joined by one NVLink.
nlohmann::json one_gpu(const std::string& model) {
  nlohmann::json doc = {{"name", "box"}};
  doc["nodes"] = nlohmann::json::array({nlohmann::json{{"id", "a"}, {"kind", "gpu"}, {"model", model}},
                                        nlohmann::json{{"id", "b"}, {"kind", "gpu"}, {"model", model}}});
  doc["links"] = nlohmann::json::array({nlohmann::json{{"endpoints", {"a", "b"}}, {"kind", "nvlink"},
                                                       {"bandwidth", "25GB/s"}, {"latency", "250ns"}}});
  return doc;
}
}  // namespace

TEST_CASE("every catalogue entry is cited and consistent", "[gpu_catalogue]") {
  REQUIRE(gpu_catalogue().size() >= 16);
  std::set<std::string> spellings;
  ComputeCapability previous;
  for (const GpuSpec& g : gpu_catalogue()) {
    INFO(g.name);
    CHECK_FALSE(g.citation.empty());
    CHECK_FALSE(g.notes.empty());
    CHECK_FALSE(g.form_factor.empty());
    CHECK(g.compute_capability.major >= 7);
    CHECK(previous <= g.compute_capability);  // oldest first
    previous = g.compute_capability;
    // No NVLink means no links and no rate; NVLink means both.
    CHECK((g.nvlink_generation == 0) == (g.nvlink_links == 0));
    CHECK((g.nvlink_links == 0) == (g.nvlink_link_gb_per_s == 0));
    // A PCIe generation comes with its lanes; an unknown one is said so in the notes.
    CHECK((g.pcie_generation == 0) == (g.pcie_lanes == 0));
    if (g.pcie_generation == 0) CHECK_THAT(std::string(g.notes), Catch::Contains("PCIe: ") && Catch::Contains("unknown"));
    CHECK(g.fp32_flops.has_value());  // every entry has at least its FP32 peak
    if (!g.bf16_flops) CHECK_THAT(std::string(g.notes), Catch::Contains("unknown"));
    CHECK(g.memory.count > 0);
    CHECK(g.memory_bandwidth.bytes_per_s > 0);
    // Every spelling names one model only.
    CHECK(spellings.insert(std::string(g.name)).second);
    CHECK(find_gpu(g.name) == &g);
    for (std::string_view a : g.aliases) {
      if (a.empty()) continue;
      INFO(a);
      CHECK(find_gpu(a) == &g);
    }
  }
}

TEST_CASE("spellings: case, separators and vendor words do not matter", "[gpu_catalogue]") {
  CHECK(find_gpu("rtx4090") == &catalogue_gpu("RTX 4090"));
  CHECK(find_gpu("NVIDIA GeForce RTX 4090") == &catalogue_gpu("RTX 4090"));
  CHECK(find_gpu("rtx-2080-ti") == &catalogue_gpu("RTX 2080 Ti"));
  CHECK(find_gpu("Tesla V100-SXM2-32GB") == &catalogue_gpu("V100"));
  CHECK(find_gpu("NVIDIA A100-SXM4-80GB") == &catalogue_gpu("A100"));
  CHECK(find_gpu("NVIDIA H100 80GB HBM3") == &catalogue_gpu("H100"));
  CHECK(find_gpu("h20") == &catalogue_gpu("H20"));
  CHECK(find_gpu("l40s") == &catalogue_gpu("L40S"));
  // Near misses are not silently taken for a neighbour.
  CHECK(find_gpu("NVIDIA A100-SXM4-40GB") == &catalogue_gpu("A100-40GB"));  // not the 80 GB part
  CHECK(find_gpu("A100-PCIE-40GB") == nullptr);  // the PCIe card: another board, not catalogued
  CHECK(find_gpu("L40") == nullptr);
  CHECK(find_gpu("K80") == nullptr);
  CHECK(find_gpu("") == nullptr);
  CHECK(find_gpu("NVIDIA") == nullptr);
}

TEST_CASE("the figures the brief names", "[gpu_catalogue]") {
  // The five models of the first catalogue keep their figures to the bit.
  CHECK(catalogue_gpu("V100").fp16_flops == 125e12);
  CHECK(catalogue_gpu("A100").memory.count == 80LL << 30);
  CHECK(catalogue_gpu("A100-40GB").memory.count == 40LL << 30);
  CHECK(catalogue_gpu("A100-40GB").memory_bandwidth == Bandwidth::gb_per_s(1555));
  CHECK(catalogue_gpu("H100").bf16_flops == 989.5e12);
  CHECK(catalogue_gpu("H200").memory.count == 141'000'000'000LL);
  CHECK(catalogue_gpu("B200").tf32_flops == 1100e12);
  // GA102: four NVLink 3 links of 14.0625 GB/s per direction (56.25 GB/s).
  CHECK(catalogue_gpu("RTX 3090").compute_capability == ComputeCapability{8, 6});
  CHECK(catalogue_gpu("RTX 3090").nvlink_gb_per_s() == 56.25);
  // TU102: two NVLink 2 links of 25 GB/s per direction (100 GB/s both ways).
  CHECK(catalogue_gpu("RTX 2080 Ti").nvlink_gb_per_s() * 2 == 100);
  // A800 and H800: 400 GB/s both ways = 8 links x 25 GB/s x 2 directions.
  CHECK(catalogue_gpu("A800").nvlink_gb_per_s() * 2 == 400);
  CHECK(catalogue_gpu("H800").nvlink_gb_per_s() * 2 == 400);
  // H20: H100's 900 GB/s NVLink with a fraction of its compute.
  CHECK(catalogue_gpu("H20").nvlink_gb_per_s() * 2 == 900);
  CHECK(*catalogue_gpu("H20").bf16_flops < *catalogue_gpu("H100").bf16_flops / 6);
  // PCIe-only parts.
  for (std::string_view name : {"RTX 4090", "L4", "L40S", "RTX 5090"}) {
    INFO(name);
    CHECK(catalogue_gpu(name).nvlink_links == 0);
    CHECK(catalogue_gpu(name).pcie_lanes == 16);
  }
  CHECK(catalogue_gpu("RTX 4090").pcie_generation == 4);
  CHECK(catalogue_gpu("RTX 5090").pcie_generation == 5);
  CHECK(catalogue_gpu("RTX 5090").compute_capability.sm() == 120);
  CHECK(catalogue_gpu("B300").compute_capability.sm() == 103);
}

TEST_CASE("NCCL's row follows the compute capability (tuning.cc compCapIndex)", "[gpu_catalogue][nccl]") {
  CHECK(gpu_arch_from_sm(60) == GpuArch::Volta);  // below SM70 NCCL still uses the Volta row
  CHECK(gpu_arch_from_sm(70) == GpuArch::Volta);
  CHECK(gpu_arch_from_sm(75) == GpuArch::Volta);
  CHECK(gpu_arch_from_sm(80) == GpuArch::Ampere);
  CHECK(gpu_arch_from_sm(89) == GpuArch::Ampere);
  CHECK(gpu_arch_from_sm(90) == GpuArch::Hopper);
  CHECK(gpu_arch_from_sm(100) == GpuArch::Blackwell);
  CHECK(gpu_arch_from_sm(120) == GpuArch::Blackwell);
  CHECK(gpu_arch_from_model("RTX 2080 Ti") == GpuArch::Volta);
  CHECK(gpu_arch_from_model("rtx 3090") == GpuArch::Ampere);
  CHECK(gpu_arch_from_model("L40S") == GpuArch::Ampere);
  CHECK(gpu_arch_from_model("H20") == GpuArch::Hopper);
  CHECK(gpu_arch_from_model("GB200") == GpuArch::Blackwell);
  CHECK(gpu_arch_from_model("RTX 5090") == GpuArch::Blackwell);
  CHECK_FALSE(gpu_arch_from_model("A30").has_value());  // not catalogued: no guess by prefix
  for (const GpuSpec& g : gpu_catalogue()) CHECK(gpu_arch_from_model(g.name).has_value());
}

TEST_CASE("NCCL's per-NVLink figure follows the compute capability (topo.h)", "[gpu_catalogue][nccl]") {
  CHECK(nccl_nvlink_gbps(60) == 18.0);
  CHECK(nccl_nvlink_gbps(70) == 20.0);
  CHECK(nccl_nvlink_gbps(75) == 20.0);
  CHECK(nccl_nvlink_gbps(80) == 20.0);
  CHECK(nccl_nvlink_gbps(86) == 12.0);
  CHECK(nccl_nvlink_gbps(89) == 20.0);
  CHECK(nccl_nvlink_gbps(90) == 20.6);
  CHECK(nccl_nvlink_gbps(100) == 40.1);
  CHECK(nccl_nvlink_gbps(120) == 40.1);
  // Per datasheet byte: the same doubles as the per-generation table this replaced, so
  // existing predictions do not move (20 / 25, 20.6 / 25, 40.1 / 50).
  CHECK(nccl_nvlink_scale(catalogue_gpu("V100")) == 20.0 / 25.0);
  CHECK(nccl_nvlink_scale(catalogue_gpu("A100")) == 20.0 / 25.0);
  CHECK(nccl_nvlink_scale(catalogue_gpu("H100")) == 20.6 / 25.0);
  CHECK(nccl_nvlink_scale(catalogue_gpu("H200")) == 20.6 / 25.0);
  CHECK(nccl_nvlink_scale(catalogue_gpu("B200")) == 40.1 / 50.0);
  // RTX 3090: NCCL counts 4 x 12 = 48 GB/s of the bridge's 4 x 14.0625 = 56.25.
  CHECK(nccl_nvlink_scale(catalogue_gpu("RTX 3090")) * catalogue_gpu("RTX 3090").nvlink_gb_per_s() == Approx(48.0));
  // No NVLink rate in the catalogue: the topology's own rate stands.
  CHECK(nccl_nvlink_scale(catalogue_gpu("RTX 4090")) == 1.0);
}

TEST_CASE("the topology loader accepts every catalogue model in its canonical spelling", "[gpu_catalogue][topo]") {
  for (const GpuSpec& g : gpu_catalogue()) {
    const nlohmann::json doc = one_gpu(std::string(g.name));
    INFO(g.name);
    CHECK(check_topology_json(doc, "t.json").errors.empty());
  }
  CHECK(load_topology_json(one_gpu("geforce rtx-4090"), "t.json").nodes[0].model == "RTX 4090");
  CHECK_THROWS_WITH(load_topology_json(one_gpu("Radeon VII"), "t.json"),
                    Catch::Contains("t.json: /nodes/0/model: got \"Radeon VII\", expected a GPU model, one of: V100, ") &&
                        Catch::Contains("RTX 4090") && Catch::Contains("H20") && Catch::Contains("RTX 5090"));
}

TEST_CASE("the device catalogue answers from the same table", "[gpu_catalogue][train]") {
  REQUIRE(device_catalogue().size() == gpu_catalogue().size());
  const auto l40s = find_device("l40s");
  REQUIRE(l40s);
  CHECK(l40s->name == "L40S");
  CHECK(l40s->peak_flops("bf16") == Approx(362.05e12));
  CHECK(l40s->hbm_capacity.count == 48LL << 30);
  // A figure the catalogue lacks is an error that names the device and what is missing.
  const auto rtx5090 = find_device("RTX 5090");
  REQUIRE(rtx5090);
  CHECK(rtx5090->peak_flops("fp32") == Approx(104.8e12));
  CHECK_THROWS_AS(rtx5090->peak_flops("bf16"), ConfigError);
  CHECK_THROWS_WITH(rtx5090->peak_flops("bf16"), Catch::Contains("RTX 5090: dense bf16 peak FLOP/s"));
  CHECK_FALSE(find_device("K80"));
}

}  // namespace collsim
