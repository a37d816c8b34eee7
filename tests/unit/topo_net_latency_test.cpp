// A NIC's plugin latency ("net_latency"): read from a fabric or an explicit NIC node (a
// transport's name or a time), refused with file, pointer, value and what was expected,
// and added to every network step as NCCL's tuning adds graph->latencyInter (twice for
// Simple).
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>

#include "sim/coll/cost_model.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/selection.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/topo/loader.hpp"
#include "sim/topo/nccl_topo_import.hpp"
#include "sim/topo/net_transport.hpp"
#include "sim/topo/topology_compare.hpp"

namespace collsim {
namespace {

nlohmann::json latency_cluster(const nlohmann::json& net_latency) {
  nlohmann::json fabric{{"kind", "star"}, {"link_kind", "roce"}, {"nic_bandwidth", "100Gbps"}};
  if (!net_latency.is_null()) fabric["net_latency"] = net_latency;
  return {{"generator", {{"kind", "cluster"}, {"hosts", 2}, {"server", {{"kind", "dgx_a100"}, {"nics", 4}}}, {"fabric", fabric}}}};
}

Topology load_latency(const nlohmann::json& doc) { return load_topology_json(doc, "t.json"); }

// Exactly one error, whose message has every piece.
void expect_latency_error(const nlohmann::json& doc, const std::vector<std::string>& pieces) {
  const Diagnostics e = check_topology_json(doc, "t.json").errors;
  for (const auto& x : e) UNSCOPED_INFO(x.what());
  REQUIRE(e.size() == 1);
  for (const auto& p : pieces) CHECK_THAT(e.front().what(), Catch::Contains(p));
}

Time net_latency_of_nics(const Topology& t) {
  Time seen = Time::max();
  for (const Node& n : t.nodes) {
    if (n.kind != NodeKind::Nic) continue;
    if (seen != Time::max() && n.net_latency != seen) FAIL("NICs disagree");
    seen = n.net_latency;
  }
  return seen;
}

TEST_CASE("net_latency: a transport's published figure or a time, on every NIC of a fabric", "[topo][net_latency]") {
  CHECK(net_latency_of_nics(load_latency(latency_cluster(nullptr))) == Time{});
  CHECK(net_latency_of_nics(load_latency(latency_cluster("efa-p4d"))) == Time::from_us(75));
  CHECK(net_latency_of_nics(load_latency(latency_cluster("efa-p5en"))) == Time::from_us(35));
  CHECK(net_latency_of_nics(load_latency(latency_cluster("efa-p3dn"))) == Time::from_us(150));
  CHECK(net_latency_of_nics(load_latency(latency_cluster("ib-verbs"))) == Time{});
  CHECK(net_latency_of_nics(load_latency(latency_cluster("12.5us"))) == Time::from_ns(12500));
  // Every transport names where its figure is published.
  for (const NetTransport& t : net_transports()) CHECK(!t.source.empty());
}

TEST_CASE("net_latency: bad values are refused with file, pointer, value and expectation", "[topo][net_latency]") {
  const std::string expected = "a transport (ib-verbs, socket, tcpxo, efa-p4d";
  expect_latency_error(latency_cluster("efa"), {"t.json", "/generator/fabric/net_latency", "got \"efa\"", expected});
  expect_latency_error(latency_cluster(75), {"/generator/fabric/net_latency", "got 75", expected});
  expect_latency_error(latency_cluster("20ms"), {"/generator/fabric/net_latency", "got \"20ms\"", "or a time up to 10 ms"});
  expect_latency_error(latency_cluster("-1us"), {"/generator/fabric/net_latency", "got \"-1us\""});
  // On an explicit topology: NIC nodes only.
  auto doc = parse_json_text(R"({"nodes": [
      {"id": "h", "kind": "host"},
      {"id": "g", "kind": "gpu", "model": "A100", "host": "h", "net_latency": "5us"},
      {"id": "n", "kind": "nic", "host": "h", "net_latency": "5us"}],
    "links": [{"endpoints": ["g", "n"], "kind": "pcie", "bandwidth": "24GB/s", "latency": "1us"}]})",
                             "t.json");
  expect_latency_error(doc, {"/nodes/1/net_latency", "got \"5us\"", "no net_latency except on a nic node"});
  doc["nodes"][1].erase("net_latency");
  const Topology t = load_latency(doc);
  CHECK(t.nodes[2].net_latency == Time::from_us(5));
  doc["nodes"][2]["net_latency"] = "fast";
  expect_latency_error(doc, {"/nodes/2/net_latency", "got \"fast\"", expected});
}

TEST_CASE("net_latency: NCCL adds it to each network step, twice for Simple", "[coll][net_latency]") {
  const ProtocolModel m = nccl_default_model();
  const TopologyFacts plain = topology_facts(load_latency(latency_cluster(nullptr)));
  const TopologyFacts efa = topology_facts(load_latency(latency_cluster("efa-p4d")));
  CHECK(efa.net_latency == Time::from_us(75));
  const Collective c{CollectiveOp::AllReduce, 16, 0, Bytes{8}};
  const auto net = static_cast<std::size_t>(LinkClass::Net);
  const auto nvl = static_cast<std::size_t>(LinkClass::NvLink);
  for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    for (const char* algo : {"ring", "tree"}) {
      const CollectiveCost a = collective_cost(plain, c, algo, p, m);
      const CollectiveCost b = collective_cost(efa, c, algo, p, m);
      const Time extra = p == Protocol::Simple ? Time::from_us(150) : Time::from_us(75);
      CHECK(b.step.step_latency[net] == a.step.step_latency[net] + extra);
      CHECK(b.step.step_latency[nvl] == a.step.step_latency[nvl]);
      CHECK(b.base_latency == a.base_latency);
    }
  }
  // NCCL's tree estimate on 2 nodes: 2 x (intra steps + log2(2) x interLat), so the
  // plugin's latency appears twice; LL: 2 x 75 us more.
  const CollectiveCost tree_a = collective_cost(plain, c, "tree", Protocol::LL, m);
  const CollectiveCost tree_b = collective_cost(efa, c, "tree", Protocol::LL, m);
  const auto ta = nccl_model_time(plain, c, "tree", Protocol::LL, tree_a, nullptr);
  const auto tb = nccl_model_time(efa, c, "tree", Protocol::LL, tree_b, nullptr);
  REQUIRE(ta);
  REQUIRE(tb);
  CHECK((*tb - *ta).us() == Approx(150.0).margin(1e-6));
  // One host: no network step, nothing added.
  auto one = latency_cluster("efa-p4d");
  one["generator"]["hosts"] = 1;
  const TopologyFacts single = topology_facts(load_latency(one));
  const Collective c8{CollectiveOp::AllReduce, 8, 0, Bytes{8}};
  CHECK(collective_cost(single, c8, "ring", Protocol::LL, m).step.step_latency[net] ==
        collective_cost(topology_facts(load_latency(latency_cluster(nullptr))), c8, "ring", Protocol::LL, m).step.step_latency[net]);
}

TEST_CASE("net_latency: a small all-reduce across two EFA hosts pays it on its network steps", "[coll][net_latency]") {
  CollectiveRequest req;
  req.algorithms = {"tree"};
  req.protocols = {Protocol::LL};
  const Collective c{CollectiveOp::AllReduce, 16, 0, Bytes{8}};
  const Topology plain = load_latency(latency_cluster(nullptr));
  const Topology efa = load_latency(latency_cluster("efa-p4d"));
  LinkGraph gp(plain), ge(efa);
  const double a = predict_collective(gp, c, req).time.us();
  const double b = predict_collective(ge, c, req).time.us();
  // The tree's critical path crosses the network once up and once down.
  CHECK(b - a == Approx(150.0).margin(0.5));
  // Two topologies that differ only in the plugin latency are different machines.
  CHECK(!topology_differences(plain, efa).empty());
}

}  // namespace
}  // namespace collsim

namespace collsim {
namespace {

std::string dgx_a100_dump() {
  std::ifstream in(std::string(COLLSIM_TEST_DATA) + "/nccl-xml/dgx-a100.xml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json imported(const std::string& xml) {
  const ImportedNcclHost host = import_nccl_host(read_nccl_system(parse_xml(xml, "dump.xml"), "dump.xml"), "dump.xml", {});
  return nlohmann::json::parse(nccl_topology_json(host, "imported", "dump.xml", std::nullopt).dump());
}

TEST_CASE("net_latency: topo import-nccl keeps the latency a dump's <net> reports", "[topo][net_latency]") {
  const std::string xml = dgx_a100_dump();
  // The IB dump reports 0: no field.
  const nlohmann::json ib = imported(xml);
  for (const auto& n : ib["nodes"]) CHECK(!n.contains("net_latency"));
  // An EFA-like dump: every <net latency="75.000000"> becomes the NIC's net_latency.
  const std::string efa = std::regex_replace(xml, std::regex("latency=\"0\\.000000\""), "latency=\"75.000000\"");
  REQUIRE(efa != xml);
  const Topology t = load_topology_json(imported(efa), "imported");
  int nics = 0;
  for (const Node& n : t.nodes) {
    if (n.kind != NodeKind::Nic) continue;
    ++nics;
    CHECK(n.net_latency == Time::from_us(75));
  }
  CHECK(nics > 0);
  // A latency that is not a number of us from 0 to 10000: file, line, element, attribute.
  const std::string bad = std::regex_replace(xml, std::regex("latency=\"0\\.000000\""), "latency=\"slow\"");
  try {
    (void)imported(bad);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("dump.xml: line"));
    CHECK_THAT(e.what(), Catch::Contains("<net> attribute \"latency\""));
    CHECK_THAT(e.what(), Catch::Contains("\"slow\""));
    CHECK_THAT(e.what(), Catch::Contains("a number from 0 to 10000"));
  }
}

}  // namespace
}  // namespace collsim
