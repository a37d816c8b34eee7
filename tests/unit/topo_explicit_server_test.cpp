// A server_cluster generator with an explicit server ({"kind": "explicit", "nodes", "links"}):
// the server is copied per host with "h<i>/" ids, and one rejection per rule.
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"

namespace collsim {

namespace {

// One host with two GPUs on an NVSwitch and one NIC under a PCIe switch; `extra_node`
// and `extra_link` are appended to the server's arrays.
nlohmann::json server_cluster(const std::string& extra_node = "", const std::string& extra_link = "") {
  return nlohmann::json::parse(R"({"generator": {"kind": "cluster", "hosts": 3,
    "server": {"kind": "explicit",
      "nodes": [{"id": "host", "kind": "host"}, {"id": "sw", "kind": "pcie_switch", "host": "host"},
                {"id": "g0", "kind": "gpu", "model": "H100", "host": "host", "nic": "n0"},
                {"id": "g1", "kind": "gpu", "model": "H100", "host": "host", "nic": "n0"},
                {"id": "nvs", "kind": "nvswitch", "host": "host"}, {"id": "n0", "kind": "nic", "host": "host"})" +
                               extra_node + R"(],
      "links": [{"endpoints": ["g0", "nvs"], "kind": "nvswitch", "bandwidth": "25GB/s", "lanes": 18, "latency": "250ns"},
                {"endpoints": ["g1", "nvs"], "kind": "nvswitch", "bandwidth": "25GB/s", "lanes": 18, "latency": "250ns"},
                {"endpoints": ["g0", "sw"], "kind": "pcie", "bandwidth": "4GB/s", "lanes": 16, "latency": "250ns"},
                {"endpoints": ["g1", "sw"], "kind": "pcie", "bandwidth": "4GB/s", "lanes": 16, "latency": "250ns"},
                {"endpoints": ["n0", "sw"], "kind": "pcie", "bandwidth": "4GB/s", "lanes": 16, "latency": "250ns"})" +
                               extra_link + R"(]},
    "fabric": {"kind": "star", "nic_bandwidth": "400Gbps"}}})");
}

}  // namespace

TEST_CASE("topo explicit server: copied per host on the fabric", "[topo][explicit-server]") {
  const Topology t = load_topology_json(server_cluster(), "c.json");
  // 3 hosts x 6 nodes + 1 fabric switch; 3 x 5 duplex links + 3 NIC links, both directions.
  REQUIRE(t.nodes.size() == 3 * 6 + 1);
  REQUIRE(t.links.size() == 2 * (3 * 5 + 3));
  REQUIRE(t.rank_count() == 6);
  REQUIRE(t.nodes[t.ranks[2]].id == "h1/g0");
  REQUIRE(t.nodes[*t.nodes[t.ranks[2]].nic].id == "h1/n0");
  REQUIRE(t.nodes[*t.nodes[t.ranks[2]].host].id == "h1/host");
}

TEST_CASE("topo explicit server: each rule is a ConfigError", "[topo][explicit-server]") {
  // A second host node.
  REQUIRE_THROWS_AS(load_topology_json(server_cluster(R"(, {"id": "host2", "kind": "host"})"), "c.json"), ConfigError);
  // A fabric switch inside the server.
  REQUIRE_THROWS_AS(load_topology_json(server_cluster(R"(, {"id": "tor", "kind": "switch"})"), "c.json"), ConfigError);
  // A network link inside the server.
  REQUIRE_THROWS_AS(load_topology_json(server_cluster(R"(, {"id": "n1", "kind": "nic"})",
                                               R"(, {"endpoints": ["n0", "n1"], "kind": "ib", "bandwidth": "1GB/s", "latency": "1us"})"),
                                       "c.json"),
                    ConfigError);
  // A bad link inside the server names its pointer under /generator/server.
  try {
    (void)load_topology_json(server_cluster("", R"(, {"endpoints": ["g0", "zz"], "kind": "pcie", "bandwidth": "1GB/s", "latency": "1us"})"),
                             "c.json");
    FAIL("no error");
  } catch (const ConfigError& e) {
    REQUIRE(e.field() == "/generator/server/links/5/endpoints/1");
  }
  // "explicit" is not a top-level generator: a plain file says the same.
  REQUIRE_THROWS_AS(load_topology_json(nlohmann::json::parse(R"({"generator": {"kind": "explicit"}})"), "c.json"), ConfigError);
}

}  // namespace collsim
