// Link scenarios (sim/coll/link_scenario.hpp): reading a scenario against a topology, and
// the detour a failed NIC's traffic takes on a DGX H100 host.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/coll/link_scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/topo/loader.hpp"

using namespace collsim;

namespace {

NodeIndex node(const Topology& t, const std::string& id) {
  for (NodeIndex i = 0; i < t.nodes.size(); ++i) {
    if (t.nodes[i].id == id) return i;
  }
  FAIL("no node " << id);
  return 0;
}

std::vector<std::string> hops(const Topology& t, const std::vector<LinkId>& route) {
  std::vector<std::string> out;
  for (LinkId l : route) out.push_back(t.nodes[t.links[l].to].id);
  return out;
}

}  // namespace

TEST_CASE("scenario events: sorted by time, links of a node or of a pair", "[coll][scenario]") {
  const Topology t = load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/4x-dgx-h100-rail-8x400g-ib.json");
  const nlohmann::json j = {{"events",
                             {{{"at", "2us"}, {"action", "restore"}, {"node", "h0/nic3"}},
                              {{"at", "1us"}, {"action", "degrade"}, {"link", {"h0/nic3", "h0/pcie1"}}, {"bandwidth", "100Gbps"}},
                              {{"at", "1us"}, {"action", "fail"}, {"node", "h0/nic3"}}}}};
  const LinkScenario s = parse_link_scenario(j, "s.json", t);
  REQUIRE(s.events.size() == 3);
  CHECK(s.events[0].action == LinkAction::Degrade);  // 1 us, first in the file
  CHECK(s.events[0].links.size() == 2);              // both directions of the pair
  CHECK(s.events[0].bandwidth.bytes_per_s == 12.5e9);
  CHECK(s.events[1].action == LinkAction::Fail);
  CHECK(s.events[1].pointer == "/events/2");
  CHECK(s.events[2].at == Time::from_us(2));
  const NodeIndex nic3 = node(t, "h0/nic3");
  for (LinkId l : s.events[1].links) CHECK((t.links[l].from == nic3 || t.links[l].to == nic3));
}

TEST_CASE("a failed NIC's traffic detours through the other NIC of its PCIe switch", "[coll][scenario]") {
  const Topology t = load_topology_file(std::string(COLLSIM_SOURCE_DIR) + "/topologies/4x-dgx-h100-rail-8x400g-ib.json");
  std::vector<bool> failed(t.links.size(), false);
  const NodeIndex gpu3 = node(t, "h0/gpu3"), peer = node(t, "h1/gpu3"), nic3 = node(t, "h0/nic3");
  const auto healthy = hops(t, route_avoiding(t, gpu3, peer, failed));
  CHECK(healthy.back() == "h1/gpu3");
  for (LinkId l = 0; l < t.links.size(); ++l) failed[l] = t.links[l].from == nic3 || t.links[l].to == nic3;
  const auto detour = hops(t, route_avoiding(t, gpu3, peer, failed));
  REQUIRE(detour.size() >= 3);
  CHECK(detour[0] == "h0/pcie1");
  CHECK(detour[1] == "h0/nic2");
  CHECK(detour.back() == "h1/gpu3");
  // Every NIC of host 0 down: no path out.
  for (LinkId l = 0; l < t.links.size(); ++l) {
    const auto& id = t.nodes[t.links[l].from].id;
    if (id.rfind("h0/nic", 0) == 0) failed[l] = true;
  }
  CHECK(route_avoiding(t, gpu3, peer, failed).empty());
}
