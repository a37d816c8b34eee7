// A route's NCCL latency class (route_class) read from the links or from the per-link
// class table, and plan_latency with and without the table.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/coll/flow_plan.hpp"
#include "sim/coll/link_class.hpp"
#include "tests/unit/rail_hosts.hpp"

using namespace collsim;

TEST_CASE("a route's class is its highest link class, from the links or from the table", "[coll][latency]") {
  const Topology t = test::rail_hosts(2, 2);  // NVSwitch, PCIe and InfiniBand links
  const LinkClassTable table(t);
  // Every one- and two-link route, and every link alone.
  std::vector<std::vector<LinkId>> routes{{}};
  for (LinkId a = 0; a < t.links.size(); ++a) {
    routes.push_back({a});
    for (LinkId b = 0; b < t.links.size(); ++b) routes.push_back({a, b});
  }
  int net = 0;
  for (const auto& r : routes) {
    LinkClass expected = LinkClass::NvLink;
    for (LinkId l : r) expected = std::max(expected, link_class(t.links[l].kind));
    CHECK(route_class(t, r) == expected);
    CHECK(table.route_class(r) == expected);
    net += expected == LinkClass::Net;
  }
  CHECK(net > 0);
  CHECK(route_class(t, {}) == LinkClass::NvLink);

  StepCost cost;
  cost.protocol_latency = true;
  cost.step_latency = {Time::from_ns(600), Time::from_ns(1000), Time::from_us(5)};
  for (const auto& r : routes) {
    const Time want = cost.step_latency[static_cast<std::size_t>(route_class(t, r))];
    CHECK(plan_latency(r, t, cost) == want);
    CHECK(plan_latency(r, t, cost, &table) == want);
  }
}
