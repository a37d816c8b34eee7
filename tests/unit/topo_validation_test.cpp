// One test per validation rule of topology files: each shows the message (file, JSON
// pointer, offending value, expectation). check_topology_json collects every error;
// load_topology_json throws the first.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/json_fields.hpp"
#include "sim/topo/loader.hpp"

namespace collsim {

namespace {

// A valid two-GPU box; each case edits it. GPUs a and b on one NVSwitch.
const char* kBase = R"({
  "name": "box",
  "nodes": [
    {"id": "h", "kind": "host"},
    {"id": "a", "kind": "gpu", "model": "H100", "host": "h"},
    {"id": "b", "kind": "gpu", "model": "H100", "host": "h"},
    {"id": "sw", "kind": "nvswitch", "host": "h"}
  ],
  "links": [
    {"endpoints": ["a", "sw"], "kind": "nvswitch", "bandwidth": "25GB/s", "lanes": 18, "latency": "250ns"},
    {"endpoints": ["b", "sw"], "kind": "nvswitch", "bandwidth": "25GB/s", "lanes": 18, "latency": "250ns"}
  ]
})";

nlohmann::json base() { return parse_json_text(kBase, "t.json"); }

Diagnostics errors_of(const nlohmann::json& doc) { return check_topology_json(doc, "t.json").errors; }

// Exactly one error, whose message has every piece.
void expect_validation_error(const nlohmann::json& doc, const std::vector<std::string>& pieces) {
  const Diagnostics e = errors_of(doc);
  for (const auto& x : e) UNSCOPED_INFO(x.what());
  REQUIRE(e.size() == 1);
  INFO(e.front().what());
  CHECK(e.front().source() == "t.json");
  for (const auto& p : pieces) CHECK_THAT(e.front().what(), Catch::Contains(p));
  CHECK_THROWS_AS(load_topology_json(doc, "t.json"), ConfigError);
}

}  // namespace

TEST_CASE("the base file is valid", "[topo][validation]") {
  CHECK(errors_of(base()).empty());
  CHECK(load_topology_json(base(), "t.json").rank_count() == 2);
}

TEST_CASE("validation: the document and unknown keys", "[topo][validation]") {
  expect_validation_error(nlohmann::json::array(), {"t.json: /", "got []", "a JSON object"});
  auto d = base();
  d["colour"] = "red";
  expect_validation_error(d, {"/colour", "unknown key \"colour\"", "only these keys here: name, description, collsim_version, nodes, links, ranks"});
  d = base();
  d["nodes"][1]["speed"] = 1;
  expect_validation_error(d, {"/nodes/1/speed", "unknown key \"speed\"", "id, kind, model, host, nic"});
  d = base();
  d["links"][0]["colour"] = 1;
  expect_validation_error(d, {"/links/0/colour", "unknown key", "endpoints, kind, bandwidth, latency, duplex, lanes, mtu"});
  d = base();
  d["name"] = 3;
  expect_validation_error(d, {"/name", "got 3", "a string"});
  d = base();
  d["links"] = {{"a", 1}};
  expect_validation_error(d, {"/links", "got {\"a\":1}", "an array"});
  d = base();
  d["nodes"][1].erase("kind");
  expect_validation_error(d, {"/nodes/1/kind", "this field, which is required"});
  d = base();
  d.erase("nodes");
  const Diagnostics e = errors_of(d);
  REQUIRE(!e.empty());
  CHECK_THAT(e.front().what(), Catch::Contains("/nodes") && Catch::Contains("required"));
}

TEST_CASE("validation: nodes", "[topo][validation]") {
  auto d = base();
  d["nodes"].push_back(5);
  expect_validation_error(d, {"/nodes/4", "got 5", "a JSON object"});
  d = base();
  d["nodes"].push_back({{"id", ""}, {"kind", "cpu"}});
  expect_validation_error(d, {"/nodes/4/id", "got \"\"", "a non-empty node id"});
  d = base();
  d["nodes"].push_back({{"id", "a"}, {"kind", "cpu"}});
  expect_validation_error(d, {"/nodes/4/id", "got \"a\"", "a node id not used by an earlier node"});
  d = base();
  d["nodes"][1]["kind"] = "tpu";
  expect_validation_error(d, {"/nodes/1/kind", "got \"tpu\"", "one of: gpu, nvswitch, pcie_switch, cpu, nic, switch, host"});
  d = base();
  d["nodes"][3]["model"] = "H100";
  expect_validation_error(d, {"/nodes/3/model", "got \"H100\"", "no model except on a gpu node"});
  d = base();
  d["nodes"][1]["model"] = "GTX1080";
  expect_validation_error(d, {"t.json: /nodes/1/model", "got \"GTX1080\"",
                 "a GPU model, one of: V100, RTX 2080 Ti, A100, A100-40GB, A800, RTX 3090, RTX 4090, L4, L40S, H100, H800, "
                 "H20, H200, B200, GB200, B300, RTX 5090"});
  d = base();
  d["nodes"][1]["host"] = "nowhere";
  expect_validation_error(d, {"/nodes/1/host", "got \"nowhere\"", "the id of a node listed in /nodes"});
  d = base();
  d["nodes"][1]["host"] = "sw";
  expect_validation_error(d, {"/nodes/1/host", "got \"sw\"", "the id of a node of kind \"host\""});
  d = base();
  d["nodes"][0]["host"] = "h";
  expect_validation_error(d, {"/nodes/0/host", "got \"h\"", "no host on a node that is itself a host"});
  d = base();
  d["nodes"][1]["platform"] = "amd";
  expect_validation_error(d, {"/nodes/1/platform", "got \"amd\"", "no platform except on a cpu node"});
  d = base();
  d["nodes"].push_back({{"id", "c"}, {"kind", "cpu"}, {"host", "h"}, {"platform", "epyc"}});
  expect_validation_error(d, {"/nodes/4/platform", "got \"epyc\"",
                              "a CPU as NCCL classifies it, one of: intel-broadwell, intel-skylake, intel-sapphire-rapids, "
                              "intel-emerald-rapids, amd, zhaoxin, zhaoxin-yongfeng, arm, power"});
  d = base();
  d["nodes"].push_back({{"id", "c"}, {"kind", "cpu"}, {"host", "h"}, {"platform", "arm"}});
  CHECK(errors_of(d).empty());
  const Topology t = load_topology_json(d, "t.json");
  CHECK(t.nodes[4].platform == HostCpu::Arm);
  CHECK(host_platform(t, t.ranks[0]) == HostCpu::Arm);
}

TEST_CASE("validation: a GPU's own NIC", "[topo][validation]") {
  auto d = base();
  d["nodes"][1]["nic"] = "sw";
  expect_validation_error(d, {"/nodes/1/nic", "got \"sw\"", "the id of a node of kind \"nic\""});
  d = base();
  d["nodes"].push_back({{"id", "n0"}, {"kind", "nic"}, {"host", "h"}});
  d["nodes"][3]["nic"] = "n0";
  expect_validation_error(d, {"/nodes/3/nic", "got \"n0\"", "no nic except on a gpu node"});
  d = base();
  d["nodes"].push_back({{"id", "h2"}, {"kind", "host"}});
  d["nodes"].push_back({{"id", "n1"}, {"kind", "nic"}, {"host", "h2"}});
  d["nodes"][1]["nic"] = "n1";
  expect_validation_error(d, {"/nodes/1/nic", "got \"n1\"", "a NIC in the same host as the GPU"});
}

TEST_CASE("validation: links", "[topo][validation]") {
  auto d = base();
  d["links"][0]["endpoints"] = {"a"};
  expect_validation_error(d, {"/links/0/endpoints", "got [\"a\"]", "an array of two node ids"});
  d = base();
  d["links"][0]["endpoints"][1] = "ghost";
  expect_validation_error(d, {"/links/0/endpoints/1", "got \"ghost\"", "the id of a node listed in /nodes"});
  d = base();
  d["links"][0]["endpoints"] = {"a", "a"};
  expect_validation_error(d, {"/links/0/endpoints", "got [\"a\",\"a\"]", "two different nodes"});
  d = base();
  d["links"][0]["kind"] = "smoke";
  expect_validation_error(d, {"/links/0/kind", "got \"smoke\"", "one of: nvlink, nvswitch, pcie, ib, roce, ethernet"});
  d = base();
  d["links"][0]["bandwidth"] = "25";
  expect_validation_error(d, {"/links/0/bandwidth", "25", "a positive bandwidth with a unit"});
  d = base();
  d["links"][0]["latency"] = "fast";
  expect_validation_error(d, {"/links/0/latency", "fast", "a non-negative time with a unit"});
  d = base();
  d["links"][0]["duplex"] = 1;
  expect_validation_error(d, {"/links/0/duplex", "got 1", "true or false"});
  d = base();
  d["links"][0]["lanes"] = 0;
  expect_validation_error(d, {"/links/0/lanes", "got 0", "an integer from 1 to 1024"});
  d = base();
  d["links"][0]["mtu"] = 9000;
  expect_validation_error(d, {"/links/0/mtu", "got 9000", "no mtu except on an \"ethernet\" link"});
}

TEST_CASE("validation: link kinds must fit their endpoints", "[topo][validation]") {
  auto d = base();
  d["nodes"].push_back({{"id", "n0"}, {"kind", "nic"}, {"host", "h"}});
  d["links"].push_back({{"endpoints", {"a", "n0"}}, {"kind", "nvlink"}, {"bandwidth", "25GB/s"}, {"latency", "1us"}});
  expect_validation_error(d, {"/links/2/kind", "got \"nvlink\" between gpu \"a\" and nic \"n0\"",
                 "an NVLink or NVSwitch link between GPUs and NVSwitches only"});
  d = base();
  d["links"][0]["kind"] = "ib";
  expect_validation_error(d, {"/links/0/kind", "got \"ib\" between gpu \"a\" and nvswitch \"sw\"",
                 "a network link (ib, roce, ethernet) between NICs, network switches and hosts only"});
  d = base();
  d["links"][0]["kind"] = "pcie";
  expect_validation_error(d, {"/links/0/kind", "got \"pcie\" between gpu \"a\" and nvswitch \"sw\"", "a PCIe link between"});
}

TEST_CASE("validation: Ethernet MTU range", "[topo][validation]") {
  const char* text = R"({"nodes": [{"id": "x", "kind": "host"}, {"id": "y", "kind": "host"}, {"id": "s", "kind": "switch"}],
    "links": [{"endpoints": ["x", "s"], "kind": "ethernet", "bandwidth": "25Gbps", "latency": "1us", "mtu": 100},
              {"endpoints": ["y", "s"], "kind": "ethernet", "bandwidth": "25Gbps", "latency": "1us"}]})";
  expect_validation_error(parse_json_text(text, "t.json"), {"/links/0/mtu", "got 100", "an integer from 576 to 9216"});
}

TEST_CASE("validation: ranks", "[topo][validation]") {
  auto d = base();
  d["ranks"] = "by_magic";
  expect_validation_error(d, {"/ranks", "got \"by_magic\"", "an array of node ids or one of: gpus, gpus_by_host, hosts"});
  d = base();
  d["ranks"] = {"a", "zz"};
  expect_validation_error(d, {"/ranks/1", "got \"zz\"", "the id of a node listed in /nodes"});
  d = base();
  d["ranks"] = {"a", "sw"};
  expect_validation_error(d, {"/ranks/1", "got \"sw\"", "a node of kind \"gpu\" or \"host\""});
  d = base();
  d["ranks"] = {"a", "a"};
  expect_validation_error(d, {"/ranks/1", "got \"a\"", "a node not already a rank"});
  d = base();
  d["ranks"] = nlohmann::json::array();
  expect_validation_error(d, {"/ranks", "got []", "a non-empty array of node ids"});
  // Ranks by host exist here, but the host has no links: no path between them.
  d = base();
  d["nodes"].push_back({{"id", "h2"}, {"kind", "host"}});
  d["ranks"] = "hosts";
  const Diagnostics unlinked = errors_of(d);
  REQUIRE(unlinked.size() == 2);  // h -> h2 and h2 -> h
  CHECK_THAT(unlinked[0].what(), Catch::Contains("/nodes/0") && Catch::Contains("host \"h\" with no path to host \"h2\"") &&
                                     Catch::Contains("a path of links"));
  d = base();
  d["nodes"] = {{{"id", "s"}, {"kind", "switch"}}};
  d["links"] = nlohmann::json::array();
  expect_validation_error(d, {"/nodes", "no gpu or host node", "at least one node of kind \"gpu\" or \"host\" to be a rank"});
}

TEST_CASE("validation: ranks that cannot reach each other", "[topo][validation]") {
  auto d = base();
  d["links"].erase(1);  // b is left without links
  const Diagnostics e = errors_of(d);
  // a cannot reach b and b cannot reach a: both pairs are listed.
  REQUIRE(e.size() == 2);
  CHECK_THAT(e[0].what(), Catch::Contains("/nodes/1") && Catch::Contains("gpu \"a\" with no path to gpu \"b\"") &&
                              Catch::Contains("not through other GPUs or hosts"));
  CHECK_THAT(e[1].what(), Catch::Contains("gpu \"b\" with no path to gpu \"a\""));
}

TEST_CASE("validation: every error is reported, not just the first", "[topo][validation]") {
  auto d = base();
  d["nodes"][1]["model"] = "X1";
  d["links"][0]["bandwidth"] = "fast";
  d["links"][1]["latency"] = 5;
  d["extra"] = true;
  const Diagnostics e = errors_of(d);
  REQUIRE(e.size() == 4);
  CHECK_THAT(e[0].what(), Catch::Contains("/extra"));
  CHECK_THAT(e[1].what(), Catch::Contains("/nodes/1/model"));
  CHECK_THAT(e[2].what(), Catch::Contains("/links/0/bandwidth"));
  CHECK_THAT(e[3].what(), Catch::Contains("/links/1/latency"));
  // Loading throws the first of them.
  CHECK_THROWS_WITH(load_topology_json(d, "t.json"), Catch::Contains("/extra"));
}

TEST_CASE("validation: generator blocks", "[topo][validation]") {
  auto gen = [](nlohmann::json g) { return nlohmann::json{{"generator", std::move(g)}}; };
  expect_validation_error(gen({{"kind", "dgx9"}}), {"/generator/kind", "got \"dgx9\"", "one of: star, nvswitch_node, dgx1_v100"});
  expect_validation_error(gen({{"kind", "dgx_h100"}, {"nics", 99}}), {"/generator/nics", "got 99", "an integer from 0 to 64"});
  expect_validation_error(gen({{"kind", "dgx_h100"}, {"gpu_model", "H100"}}), {"/generator/gpu_model", "unknown key"});
  expect_validation_error(gen({{"kind", "pcie_8gpu"}, {"gpu_model", "K80"}}),
             {"/generator/gpu_model", "got \"K80\"", "a GPU model, one of: V100, RTX 2080 Ti, A100"});
  expect_validation_error(gen({{"kind", "dgx_a100"}, {"gpu_model", "H100"}}),
             {"/generator/gpu_model", "got \"H100\"", "a GPU model of a DGX A100, one of: A100, A100-40GB"});
  expect_validation_error(gen({{"kind", "pcie_8gpu"}, {"pcie_gen", 6}}), {"/generator/pcie_gen", "got 6", "an integer from 3 to 5"});
  expect_validation_error(gen({{"kind", "dgx_a100"}, {"cpu", "epyc-9004"}}),
             {"/generator/cpu", "got \"epyc-9004\"", "a host CPU, one of: xeon-e5-v4, xeon-cascade-lake, xeon-ice-lake, "
                                                     "xeon-sapphire-rapids, xeon-emerald-rapids, epyc-7002"});
  expect_validation_error(gen({{"kind", "cpu_host"}, {"cpu", "epyc-7002"}}), {"/generator/cpu", "unknown key"});
  expect_validation_error(gen({{"kind", "tcp_cluster"}, {"hosts", 4}}), {"/generator/nic_bandwidth", "required"});
  expect_validation_error(gen({{"kind", "star"}, {"hosts", 2}, {"bandwidth", "1Gbps"}, {"latency", "1us"}, {"link_kind", "ib"}, {"mtu", 1500}}),
             {"/generator/mtu", "got 1500", "no mtu except with link_kind \"ethernet\""});
  nlohmann::json doc = gen({{"kind", "dgx_h100"}});
  doc["nodes"] = nlohmann::json::array();
  expect_validation_error(doc, {"/nodes", "unknown key \"nodes\"", "only these keys here: name, description, collsim_version, generator, ranks"});
  doc = gen({{"kind", "dgx_h100"}});
  doc["ranks"] = {"gpu0"};
  expect_validation_error(doc, {"/ranks", "a non-empty array of node ids (only without a generator) or one of"});
}

TEST_CASE("validation: cluster generator blocks", "[topo][validation]") {
  auto cluster = [](nlohmann::json server, nlohmann::json fabric) {
    return nlohmann::json{{"generator", {{"kind", "cluster"}, {"hosts", 2}, {"server", server}, {"fabric", fabric}}}};
  };
  const nlohmann::json ok_fabric{{"kind", "fat_tree"}, {"nic_bandwidth", "400Gbps"}, {"nics_per_leaf", 8}};
  CHECK(errors_of(cluster({{"kind", "dgx_h100"}}, ok_fabric)).empty());
  expect_validation_error(cluster({{"kind", "dgx_z"}}, ok_fabric), {"/generator/server/kind", "got \"dgx_z\"", "one of: dgx1_v100, dgx_a100"});
  expect_validation_error(cluster({{"kind", "dgx_h100"}}, {{"kind", "torus"}, {"nic_bandwidth", "400Gbps"}, {"nics_per_leaf", 8}}),
             {"/generator/fabric/kind", "got \"torus\"", "one of: star, fat_tree, rail_optimized"});
  auto f = ok_fabric;
  f["oversubscription"] = 0.5;
  expect_validation_error(cluster({{"kind", "dgx_h100"}}, f), {"/generator/fabric/oversubscription", "got 0.5", "a number from 1 to 1024"});
  f = ok_fabric;
  f["spines"] = 0;
  expect_validation_error(cluster({{"kind", "dgx_h100"}}, f), {"/generator/fabric/spines", "got 0", "an integer from 1 to 4096"});
  f = ok_fabric;
  f["link_kind"] = "nvlink";
  expect_validation_error(cluster({{"kind", "dgx_h100"}}, f), {"/generator/fabric/link_kind", "got \"nvlink\"", "one of: ib, roce, ethernet"});
  f = ok_fabric;
  f.erase("nics_per_leaf");
  expect_validation_error(cluster({{"kind", "dgx_h100"}}, f), {"/generator/fabric/nics_per_leaf", "required"});
  f = ok_fabric;
  f["mtu"] = 9000;
  expect_validation_error(cluster({{"kind", "dgx_h100"}}, f), {"/generator/fabric/mtu", "got 9000", "no mtu except with link_kind \"ethernet\""});
  expect_validation_error(nlohmann::json{{"generator", {{"kind", "cluster"}, {"hosts", 2}, {"fabric", ok_fabric}}}},
             {"/generator/server", "required"});
  // A GPU cluster ranked by host: the hosts are not linked to anything.
  auto d = cluster({{"kind", "dgx_h100"}}, ok_fabric);
  d["ranks"] = "hosts";
  const Diagnostics e = errors_of(d);
  REQUIRE(!e.empty());
  CHECK_THAT(e.front().what(), Catch::Contains("host \"h0/host\" with no path to host \"h1/host\""));
}

}  // namespace collsim

namespace collsim {

TEST_CASE("validation: more generator rules", "[topo][validation]") {
  auto gen = [](nlohmann::json g) { return nlohmann::json{{"generator", std::move(g)}}; };
  expect_validation_error(gen(7), {"/generator", "got 7", "a JSON object"});
  expect_validation_error(gen({{"kind", "nvswitch_node"}, {"gpus", 8}, {"gpu_model", "P100"}, {"bandwidth", "450GB/s"}, {"latency", "1us"}}),
             {"/generator/gpu_model", "got \"P100\"", "a GPU model, one of: V100, RTX 2080 Ti, A100"});
  expect_validation_error(gen({{"kind", "star"}, {"hosts", 2}, {"bandwidth", "1Gbps"}, {"latency", "1us"}, {"link_kind", "nvlink"}}),
             {"/generator/link_kind", "got \"nvlink\"", "one of: ib, roce, ethernet"});
  expect_validation_error(gen({{"kind", "tcp_cluster"}, {"hosts", 4}, {"nics_per_host", 0}, {"nic_bandwidth", "25Gbps"}}),
             {"/generator/nics_per_host", "got 0", "an integer from 1 to 64"});
  expect_validation_error(gen({{"kind", "tcp_cluster"}, {"hosts", 4}, {"nic_bandwidth", "25Gbps"}, {"mtu", 20000}}),
             {"/generator/mtu", "got 20000", "an integer from 576 to 9216"});
  expect_validation_error(gen({{"kind", "cpu_host"}, {"pcie_gen", 2}}), {"/generator/pcie_gen", "got 2", "an integer from 3 to 5"});
  expect_validation_error(gen({{"kind", "cluster"}, {"hosts", 0}, {"server", {{"kind", "cpu_host"}}},
                  {"fabric", {{"kind", "star"}, {"nic_bandwidth", "25Gbps"}}}}),
             {"/generator/hosts", "got 0", "an integer from 1 to 100000"});
  // An order that finds no node: a CPU-only cluster has no GPUs to rank.
  auto d = gen({{"kind", "tcp_cluster"}, {"hosts", 4}, {"nic_bandwidth", "25Gbps"}});
  d["ranks"] = "gpus_by_host";
  expect_validation_error(d, {"/ranks", "got \"gpus_by_host\"", "this topology has no gpu node"});
}

TEST_CASE("validation: ranks ordered by host, then local index", "[topo][validation]") {
  // GPUs listed interleaved across two hosts: x0 (host p), y0 (host q), x1 (host p).
  // "gpus" keeps file order; "gpus_by_host" puts host p's GPUs first, in file order.
  const char* text = R"({"nodes": [
      {"id": "p", "kind": "host"}, {"id": "q", "kind": "host"}, {"id": "s", "kind": "pcie_switch"},
      {"id": "x0", "kind": "gpu", "host": "p"}, {"id": "y0", "kind": "gpu", "host": "q"}, {"id": "x1", "kind": "gpu", "host": "p"}],
    "links": [{"endpoints": ["x0", "s"], "kind": "pcie", "bandwidth": "16GB/s", "latency": "1us"},
              {"endpoints": ["y0", "s"], "kind": "pcie", "bandwidth": "16GB/s", "latency": "1us"},
              {"endpoints": ["x1", "s"], "kind": "pcie", "bandwidth": "16GB/s", "latency": "1us"}],
    "ranks": "gpus_by_host"})";
  const Topology t = load_topology_json(parse_json_text(text, "t.json"), "t.json");
  REQUIRE(t.rank_count() == 3);
  CHECK(t.nodes[t.ranks[0]].id == "x0");
  CHECK(t.nodes[t.ranks[1]].id == "x1");
  CHECK(t.nodes[t.ranks[2]].id == "y0");
}

TEST_CASE("validation: unreachable pairs are listed up to 20, then counted", "[topo][validation]") {
  // 6 hosts and no links: 6 x 5 = 30 ordered pairs without a path; 20 listed + 1 count.
  nlohmann::json d{{"nodes", nlohmann::json::array()}, {"links", nlohmann::json::array()}};
  for (int i = 0; i < 6; ++i) d["nodes"].push_back({{"id", "h" + std::to_string(i)}, {"kind", "host"}});
  const Diagnostics e = errors_of(d);
  REQUIRE(e.size() == 21);
  CHECK_THAT(e[0].what(), Catch::Contains("host \"h0\" with no path to host \"h1\""));
  CHECK_THAT(e[20].what(), Catch::Contains("/ranks") && Catch::Contains("10 more pairs of ranks without a path"));
}

}  // namespace collsim
