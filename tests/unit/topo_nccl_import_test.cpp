// `topo import-nccl`: the three hand-written NCCL dumps (tests/data/nccl-xml) become the
// shipped topologies up to node ids, a dump on a fabric becomes the shipped cluster, and
// each bad input is a ConfigError naming the file, line, element and attribute.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/nccl_topo_import.hpp"
#include "sim/topo/topology_compare.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {

namespace {

const std::string kXml = std::string(COLLSIM_TEST_DATA) + "/nccl-xml/";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::ordered_json import_text(const std::string& xml, const std::optional<NcclClusterOptions>& cluster = std::nullopt,
                                   NcclImportOptions options = {}) {
  const ImportedNcclHost host = import_nccl_host(read_nccl_system(parse_xml(xml, "dump.xml"), "dump.xml"), "dump.xml", options);
  return nccl_topology_json(host, "imported", "dump.xml", cluster);
}

Topology load_import(const nlohmann::ordered_json& doc) { return load_topology_json(nlohmann::json::parse(doc.dump()), "imported"); }

std::string import_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// The DGX A100 dump with one substitution.
std::string a100_with(const std::string& from, const std::string& to) {
  std::string s = slurp(kXml + "dgx-a100.xml");
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("topo import-nccl: each hand-written dump is its shipped topology up to ids", "[topo][nccl-import]") {
  for (const std::string name : {"dgx-a100", "dgx-h100", "pcie-8gpu"}) {
    INFO(name);
    const Topology imported = load_import(import_text(slurp(kXml + name + ".xml")));
    const Topology expected = load_topology_file(test::shipped_topology(name + ".json"));
    const auto diffs = topology_differences(imported, expected);
    for (const auto& d : diffs) UNSCOPED_INFO(d);
    REQUIRE(diffs.empty());
    // The shipped generators' ids come out too: rank r is gpu r and its own NIC is the one
    // the generator gives it (NIC g*nics/8).
    const int nics = name == "pcie-8gpu" ? 1 : 8;
    for (int g = 0; g < 8; ++g) {
      REQUIRE(imported.nodes[imported.ranks[g]].id == "gpu" + std::to_string(g));
      REQUIRE(imported.nodes[*imported.nodes[imported.ranks[g]].nic].id == "nic" + std::to_string(g * nics / 8));
    }
  }
}

TEST_CASE("topo import-nccl: GPU models, NVLink counts and PCIe generations come from the dump", "[topo][nccl-import]") {
  const auto a100 = import_text(slurp(kXml + "dgx-a100.xml"));
  // 6 NVSwitch peers x count 2 = 12 NVLinks per GPU at NVLink 3's 25 GB/s per lane.
  REQUIRE(a100["nodes"][7]["model"] == "A100");
  const auto& nvs = a100["links"].back();
  REQUIRE(nvs["kind"] == "nvswitch");
  REQUIRE(nvs["lanes"] == 12);
  REQUIRE(nvs["bandwidth"] == "25GB/s");
  // Hopper: 5+4+4+5 = 18 NVLinks; PCIe Gen5 x16 (32 GT/s x 128/130 / 8 per lane).
  const Topology h100 = load_import(import_text(slurp(kXml + "dgx-h100.xml")));
  REQUIRE(h100.nodes[h100.ranks[0]].model == "H100");
  for (const DirectedLink& l : h100.links) {
    if (l.kind == LinkKind::NvSwitch) REQUIRE(l.lanes == 18);
    if (l.kind == LinkKind::Pcie && h100.nodes[l.from].kind == NodeKind::Gpu) {
      REQUIRE(l.lanes == 16);
      REQUIRE(l.bandwidth.bytes_per_s == Approx(32e9 * 128 / 130 / 8 * 16));
    }
  }
}

TEST_CASE("topo import-nccl: each socket is the CPU class NCCL reads from <cpu>", "[topo][nccl-import]") {
  // topo.cc: x86_64 by vendor; Intel family 6 by model (143 = 0x8F Sapphire Rapids, 106
  // Skylake class); arm64 and ppc64 by architecture.
  const auto platform = [](const std::string& xml) { return import_text(xml)["nodes"][1]["platform"]; };
  CHECK(platform(slurp(kXml + "dgx-a100.xml")) == "amd");
  CHECK(platform(slurp(kXml + "dgx-h100.xml")) == "intel-sapphire-rapids");
  CHECK(platform(slurp(kXml + "pcie-8gpu.xml")) == "intel-skylake");
  std::string arm = slurp(kXml + "pcie-8gpu.xml");
  for (std::size_t at; (at = arm.find("arch=\"x86_64\"")) != std::string::npos;) arm.replace(at, 13, "arch=\"arm64\"");
  CHECK(platform(arm) == "arm");
}

TEST_CASE("topo import-nccl: each A100 device id is the part with its memory", "[topo][nccl-import]") {
  // pcie-8gpu.xml carries 0x20b5 (A100 PCIe 80GB); the 40 GB parts, SXM4 (0x20b0) and PCIe
  // (0x20f1), are the catalogue's A100-40GB: a plan must not fit 80 GB of state on them.
  const std::string pcie = slurp(kXml + "pcie-8gpu.xml");
  for (const auto& [device, model] : {std::pair{"0x20b5", "A100"}, std::pair{"0x20b2", "A100"},
                                      std::pair{"0x20b0", "A100-40GB"}, std::pair{"0x20f1", "A100-40GB"}}) {
    INFO(device);
    const Topology t = load_import(import_text(std::regex_replace(pcie, std::regex("0x20b5"), device)));
    CHECK(t.nodes[t.ranks[0]].model == model);
  }
}

TEST_CASE("topo import-nccl: a dump on a fabric is the shipped cluster, NIC speed from the dump", "[topo][nccl-import]") {
  // 4x-dgx-a100-8x200g-ib.json: 4 DGX A100 on one star, 200 Gb/s NICs (speed="200000" Mb/s).
  const auto doc = import_text(slurp(kXml + "dgx-a100.xml"), NcclClusterOptions{4, {{"kind", "star"}, {"link_kind", "ib"}}});
  REQUIRE(doc["generator"]["fabric"]["nic_bandwidth"] == "200Gbps");
  const auto diffs = topology_differences(load_import(doc), load_topology_file(test::shipped_topology("4x-dgx-a100-8x200g-ib.json")));
  for (const auto& d : diffs) UNSCOPED_INFO(d);
  REQUIRE(diffs.empty());
}

TEST_CASE("topo import-nccl: same input, same bytes", "[topo][nccl-import]") {
  const std::string xml = slurp(kXml + "dgx-h100.xml");
  REQUIRE(import_text(xml).dump(2) == import_text(xml).dump(2));
}

TEST_CASE("topo import-nccl: a GPU the dump cannot name needs --gpu-model, which must fit its SM", "[topo][nccl-import]") {
  // An A30 (SM 80, device 0x20b7) is not an A100: the SM alone does not decide.
  std::string a30 = slurp(kXml + "pcie-8gpu.xml");
  a30 = std::regex_replace(a30, std::regex("0x20b5"), "0x20b7");
  const std::string m = import_error_of([&] { (void)import_text(a30); });
  REQUIRE(m.find("dump.xml: line 10, <gpu> attribute \"sm\" (PCI device 0x20b7)") != std::string::npos);
  REQUIRE(m.find("--gpu-model") != std::string::npos);
  REQUIRE(load_import(import_text(a30, std::nullopt, {"A100"})).nodes[8].model == "A100");
  REQUIRE_THROWS_AS(import_text(a30, std::nullopt, {"H100"}), ConfigError);
  REQUIRE_THROWS_AS(import_text(a30, std::nullopt, {"Z9"}), ConfigError);
}

TEST_CASE("topo import-nccl: each bad dump names file, line, element and attribute", "[topo][nccl-import]") {
  // A missing attribute.
  const std::string no_width = import_error_of([] { (void)import_text(a100_with(" link_width=\"16\">", ">")); });
  REQUIRE(no_width.find("dump.xml: line 8, <pci> attribute \"link_width\"") != std::string::npos);
  // A PCIe speed collsim does not model.
  REQUIRE_THROWS_AS(import_text(a100_with("16.0 GT/s PCIe", "2.5 GT/s PCIe")), ConfigError);
  // A wrong schema version, a wrong root, an element where it does not belong.
  REQUIRE(import_error_of([] { (void)import_text(a100_with("\n<system version=\"1\">", "\n<system version=\"2\">")); })
              .find("version 1") != std::string::npos);
  REQUIRE_THROWS_AS(import_text("<topology/>"), ConfigError);
  REQUIRE_THROWS_AS(import_text(a100_with("<nic>", "<nic><gpu dev=\"9\" sm=\"80\"/>")), ConfigError);
  // An NVLink to a GPU that is not in the dump, and a bad tclass.
  REQUIRE_THROWS_AS(import_text(a100_with("target=\"0000:c1:00.0\" count=\"2\" tclass=\"0x068000\"",
                                          "target=\"0000:ee:00.0\" count=\"2\" tclass=\"0x030200\"")),
                    ConfigError);
  REQUIRE_THROWS_AS(import_text(a100_with("tclass=\"0x068000\"", "tclass=\"0x020700\"")), ConfigError);
  // Two GPUs with one CUDA index.
  REQUIRE(import_error_of([] { (void)import_text(a100_with("<gpu dev=\"1\"", "<gpu dev=\"0\"")); }).find("first on line") !=
          std::string::npos);
  // Two sockets of a CPU whose socket links collsim does not know.
  REQUIRE(import_error_of([] { (void)import_text(a100_with("familyid=\"23\" modelid=\"49\"", "familyid=\"25\" modelid=\"1\"")); })
              .find("socket links") != std::string::npos);
  // A NIC speed that is not a number.
  REQUIRE_THROWS_AS(import_text(a100_with("speed=\"200000\"", "speed=\"fast\"")), ConfigError);
}

TEST_CASE("topo compare: different machines and different wiring are reported", "[topo][nccl-import]") {
  const Topology a100 = load_topology_file(test::shipped_topology("dgx-a100.json"));
  REQUIRE(!topology_differences(a100, load_topology_file(test::shipped_topology("dgx-h100.json"))).empty());
  // Moves the <pci> element `busid` (with its contents) to just before `before`.
  const auto move = [](std::string xml, const std::string& busid, const std::string& before) {
    const auto start = xml.find("      <pci busid=\"" + busid + "\"");
    const auto end = xml.find("      </pci>\n", start) + 13;
    const std::string element = xml.substr(start, end - start);
    xml.erase(start, element.size());
    xml.insert(xml.find("      <pci busid=\"" + before + "\""), element);
    return xml;
  };
  const Topology pcie = load_topology_file(test::shipped_topology("pcie-8gpu.json"));
  const std::string xml = slurp(kXml + "pcie-8gpu.xml");
  // Three GPUs on the second switch and one on the first: same nodes, same links, other wiring.
  const auto gpu_moved = topology_differences(load_import(import_text(move(xml, "0000:1c:00.0", "0000:34:00.0"))), pcie);
  REQUIRE(gpu_moved.size() == 1);
  REQUIRE(gpu_moved.front().rfind("structure:", 0) == 0);
  // The NIC beside GPUs 2 and 3 instead of 0 and 1: the same machine, but rank 0 is no
  // longer beside the NIC, so the ranks differ.
  const auto nic_moved = topology_differences(load_import(import_text(move(xml, "0000:1d:00.0", "0000:34:00.0"))), pcie);
  REQUIRE(nic_moved.size() == 1);
  REQUIRE(nic_moved.front().rfind("rank 0:", 0) == 0);
}

}  // namespace collsim
