// The shipped single-server files: `topo show` figures derived from the datasheets, and
// the DGX-1 hybrid cube-mesh cross-checked against a real nvidia-smi topology header.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <numeric>
#include <regex>

#include "sim/coll/link_class.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/topo/gpu_catalogue.hpp"
#include "sim/topo/link_overhead.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/topology_summary.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {

namespace {

struct ServerExpect {
  std::string file;
  std::string model;
  double nvlink_gbps;  // per GPU per direction
  double pcie_gbps;    // the GPU's PCIe x16 link per direction
  int nics;
  double bisection_gbps;
};
}  // namespace

TEST_CASE("single servers: GPU count, model, per-GPU NVLink and PCIe bandwidth, NIC count, bisection", "[topo][servers]") {
  // NVLink: 25 GB/s per link per direction; V100 6 links = 150 (datasheet 300 GB/s both
  // ways), A100 12 = 300 (600), H100/H200 18 = 450 (900). PCIe x16 per direction: 16 lanes
  // x GT/s x 128/130 / 8: Gen3 15.754, Gen4 31.508, Gen5 63.015 GB/s.
  // Bisection (max flow, GPUs 0-3 -> 4-7): NVSwitch boxes 4 x NVLink share plus what PCIe
  // adds through the socket link, capped by the two PCIe x16 links down to switches 2 and
  // 3: A100 min(4 x 31.5 = 126 socket, 2 x 31.508) = 63.015; H100/H200 min(4 x 32 = 128,
  // 2 x 63.015) = 126.03. DGX-1: NVLinks crossing the quads 0-4 (2), 1-5 (2), 2-6 (1), 3-7
  // (1) = 6 x 25 = 150, plus PCIe min(2 x 19.2 QPI = 38.4, 2 x 15.754) = 31.508. PCIe box:
  // only PCIe, min(3 x 22.4 UPI = 67.2, 2 x 31.508) = 63.015.
  const double gen3 = 16 * 8e9 * 128 / 130 / 8 / 1e9, gen4 = 2 * gen3, gen5 = 4 * gen3;
  // B200: NVLink 5, 18 x 50 = 900 per direction; socket link 4 x 40 = 160 > 2 x 63.015.
  const std::array<ServerExpect, 6> cases{{
      {"dgx1-v100.json", "V100", 150, gen3, 4, 150 + 2 * gen3},
      {"dgx-a100.json", "A100", 300, gen4, 8, 4 * 300 + 2 * gen4},
      {"dgx-h100.json", "H100", 450, gen5, 8, 4 * 450 + 2 * gen5},
      {"hgx-h200.json", "H200", 450, gen5, 8, 4 * 450 + 2 * gen5},
      {"dgx-b200.json", "B200", 900, gen5, 8, 4 * 900 + 2 * gen5},
      {"pcie-8gpu.json", "A100", 0, gen4, 1, 2 * gen4},
  }};
  for (const ServerExpect& e : cases) {
    INFO(e.file);
    const Topology t = load_topology_file(test::shipped_topology(e.file));
    const TopologySummary s = summarize(t);
    CHECK(s.ranks == 8);
    CHECK(s.gpus_by_model == std::map<std::string, int>{{e.model, 8}});
    CHECK(s.node_counts.at("host") == 1);
    CHECK(s.min_nics_per_host == e.nics);
    CHECK(s.max_nics_per_host == e.nics);
    CHECK(s.uniform_injection);
    CHECK(s.first_rank_injection.nvlink.gb_per_s() == Approx(e.nvlink_gbps));
    CHECK(s.first_rank_injection.pcie.gb_per_s() == Approx(e.pcie_gbps));
    CHECK(s.bisection.gb_per_s() == Approx(e.bisection_gbps).epsilon(1e-6));
  }
}

TEST_CASE("a DGX A100 of 40 GB A100s differs from the 80 GB one in its GPUs' model and memory only", "[topo][servers]") {
  auto dgx = [](std::optional<std::string> model) {
    nlohmann::json g{{"kind", "dgx_a100"}};
    if (model) g["gpu_model"] = *model;
    return load_topology_json(nlohmann::json{{"generator", g}}, "a100.json");
  };
  const Topology first = dgx("A100-SXM4-40GB"), current = dgx(std::nullopt);
  REQUIRE(first.rank_count() == 8);
  CHECK(first.nodes[first.ranks[0]].model == "A100-40GB");  // the catalogue's name for that spelling
  CHECK(current.nodes[current.ranks[0]].model == "A100");
  CHECK(find_gpu("A100-40GB")->memory.count == 40LL << 30);
  REQUIRE(first.links.size() == current.links.size());
  for (std::size_t i = 0; i < first.links.size(); ++i) {
    CHECK(first.links[i].bandwidth == current.links[i].bandwidth);
    CHECK(first.links[i].kind == current.links[i].kind);
  }
}

TEST_CASE("servers name their host CPUs as NCCL classifies them; a server block may replace them", "[topo][servers]") {
  // DGX-1: Xeon E5-2698 v4 (Broadwell); DGX A100: EPYC 7742; DGX H100 / HGX H200: Xeon
  // 8480C (Sapphire Rapids); DGX B200: Xeon 8570 (Emerald Rapids); the PCIe box: Ice Lake,
  // which NCCL counts as Skylake (CPUID model 106 >= 0x55, < 0x8F).
  const std::array<std::pair<const char*, HostCpu>, 6> cases{{{"dgx1-v100.json", HostCpu::IntelBroadwell},
                                                              {"dgx-a100.json", HostCpu::Amd},
                                                              {"dgx-h100.json", HostCpu::IntelSapphireRapids},
                                                              {"hgx-h200.json", HostCpu::IntelSapphireRapids},
                                                              {"dgx-b200.json", HostCpu::IntelEmeraldRapids},
                                                              {"pcie-8gpu.json", HostCpu::IntelSkylake}}};
  for (const auto& [file, cpu] : cases) {
    INFO(file);
    const Topology t = load_topology_file(test::shipped_topology(file));
    for (const Node& n : t.nodes) {
      if (n.kind == NodeKind::Cpu) CHECK(n.platform == cpu);
    }
    CHECK(host_platform(t, t.ranks[7]) == cpu);
  }
  // AWS p4d: DGX A100's GPUs and NVSwitches under two Xeon 8275CL (Cascade Lake, 3 UPI at
  // 10.4 GT/s = 3 x 20.8 GB/s; 6 channels of DDR4-2933 = 140.8 GB/s per socket).
  const Topology p4d = load_topology_json(
      nlohmann::json{{"generator", {{"kind", "dgx_a100"}, {"gpu_model", "A100-40GB"}, {"cpu", "xeon-cascade-lake"}}}},
      "p4d.json");
  const NodeIndex cpu0 = *p4d.find("cpu0"), cpu1 = *p4d.find("cpu1");
  CHECK(p4d.nodes[cpu0].platform == HostCpu::IntelSkylake);
  CHECK(p4d.nodes[cpu0].memory_bandwidth.gb_per_s() == Approx(140.784));
  const auto socket = std::find_if(p4d.links.begin(), p4d.links.end(),
                                   [&](const DirectedLink& l) { return l.from == cpu0 && l.to == cpu1; });
  REQUIRE(socket != p4d.links.end());
  CHECK(socket->bandwidth.gb_per_s() == Approx(3 * 20.8));
  // NCCL's own figures between two sockets (topo.h).
  CHECK(nccl_inter_cpu_gbps(HostCpu::IntelSkylake) == 10.0);
  CHECK(nccl_inter_cpu_gbps(HostCpu::Amd) == 16.0);
  CHECK(nccl_x86_cpu("GenuineIntel", 6, 143) == HostCpu::IntelSapphireRapids);
  CHECK(nccl_x86_cpu("GenuineIntel", 6, 85) == HostCpu::IntelSkylake);
  CHECK(nccl_x86_cpu("GenuineIntel", 6, 79) == HostCpu::IntelBroadwell);
  CHECK(nccl_x86_cpu("AuthenticAMD", 25, 1) == HostCpu::Amd);
  CHECK(nccl_x86_cpu("CentaurHauls", 7, 0x5B) == HostCpu::ZhaoxinYongfeng);
  CHECK_FALSE(nccl_x86_cpu("HygonGenuine", 24, 0).has_value());
}

TEST_CASE("GPU models and link classes are exposed for later layers", "[topo][servers]") {
  const Topology t = load_topology_file(test::shipped_topology("dgx-h100.json"));
  const Node& gpu = t.nodes[t.ranks[0]];
  REQUIRE(gpu.model == "H100");
  // Every model name a file may use has an NCCL architecture row.
  for (const auto& name : gpu_names()) CHECK(gpu_arch_from_model(name).has_value());
  CHECK(gpu_arch_from_model(gpu.model) == GpuArch::Hopper);
  CHECK(link_class(LinkKind::NvSwitch) == LinkClass::NvLink);
  CHECK(link_class(LinkKind::Pcie) == LinkClass::Pci);
  CHECK(link_class(LinkKind::Roce) == LinkClass::Net);
  CHECK(find_gpu("GTX1080") == nullptr);
}

TEST_CASE("Ethernet links charge TCP/IP headers: rate x (MTU - 52) / (MTU + 14)", "[topo][servers]") {
  // 25 Gb/s = 3.125 GB/s; at MTU 9000: x 8948 / 9014 = 3.10212 GB/s (testbed.md: 0.993).
  const Topology t = load_topology_file(test::shipped_topology("tcp-16x25gbe.json"));
  const auto eth = std::find_if(t.links.begin(), t.links.end(), [](const auto& l) { return l.kind == LinkKind::Ethernet; });
  REQUIRE(eth != t.links.end());
  CHECK(eth->mtu == 9000);
  CHECK(eth->line_rate.gb_per_s() == Approx(3.125));
  CHECK(eth->bandwidth.gb_per_s() == Approx(3.125 * 8948.0 / 9014.0));
  // At the default MTU 1500 the share is 1448 / 1514 = 0.9564 (testbed.md: 0.957).
  CHECK(payload_fraction(LinkKind::Ethernet, 1500) == Approx(1448.0 / 1514.0));
  CHECK(payload_fraction(LinkKind::Ib, 1500) == 1.0);
}

TEST_CASE("the DGX-1 hybrid cube-mesh matches a real machine's nvidia-smi layout up to GPU numbering", "[topo][servers]") {
  // The header of this nccl-tests log lists "GPUk: NVn GPUm" for each GPU (a machine with
  // other PCIe bus ids, so its GPU numbering may differ from DGX-1's). Both layouts as
  // 8x8 matrices of NVLink counts must be equal under some permutation of the GPUs.
  std::ifstream in(std::string(COLLSIM_TEST_DATA) +
                   "/nccl-tests/dev/v100sxm2x8_1node_nvlink_hybridcube_allreduce_oldformat.txt");
  REQUIRE(in);
  std::array<std::array<int, 8>, 8> real{};
  const std::regex entry(R"(GPU(\d): ((?:NV\d GPU\d,? ?)+))");
  const std::regex link(R"(NV(\d) GPU(\d))");
  std::string line;
  int entries = 0;
  while (std::getline(in, line) && line.rfind('#', 0) == 0) {
    for (std::sregex_iterator it(line.begin(), line.end(), entry), end; it != end; ++it) {
      const int a = std::stoi((*it)[1]);
      const std::string links = (*it)[2];
      for (std::sregex_iterator l(links.begin(), links.end(), link); l != end; ++l) {
        real[a][std::stoi((*l)[2])] = std::stoi((*l)[1]);
      }
      ++entries;
    }
  }
  REQUIRE(entries == 8);
  const Topology t = load_topology_file(test::shipped_topology("dgx1-v100.json"));
  std::array<std::array<int, 8>, 8> ours{};
  for (const auto& l : t.links) {
    if (l.kind == LinkKind::NvLink) ours[l.from - t.ranks[0]][l.to - t.ranks[0]] = l.lanes;
  }
  std::array<int, 8> perm{};
  std::iota(perm.begin(), perm.end(), 0);
  bool found = false;
  do {
    bool same = true;
    for (int a = 0; a < 8 && same; ++a) {
      for (int b = 0; b < 8 && same; ++b) same = ours[a][b] == real[perm[a]][perm[b]];
    }
    found = same;
  } while (!found && std::next_permutation(perm.begin(), perm.end()));
  CHECK(found);
  // Each GPU: 6 NVLinks to 4 peers (two doubled), as the DGX-1 white paper draws it.
  for (int a = 0; a < 8; ++a) {
    CHECK(std::accumulate(ours[a].begin(), ours[a].end(), 0) == 6);
    CHECK(std::count_if(ours[a].begin(), ours[a].end(), [](int n) { return n > 0; }) == 4);
  }
}

}  // namespace collsim
