// A LinkGraph may be moved (returned from a function) and keeps routing correctly.
#include <catch2/catch.hpp>

#include "sim/topo/link_graph.hpp"
#include "sim/topo/server_generators.hpp"

namespace collsim {

TEST_CASE("a moved LinkGraph still routes", "[topo][routing]") {
  const Topology t = make_server(ServerSpec{.kind = ServerKind::DgxA100});
  auto make = [&t] {
    LinkGraph g(t);
    (void)g.route(0, 1);
    return g;
  };
  LinkGraph moved = make();
  // GPU 2 -> GPU 7 over the NVSwitch: 2 links of 12 lanes x 25 GB/s = 300 GB/s.
  const Route& r = moved.route(2, 7);
  REQUIRE(r.links.size() == 2);
  CHECK(t.links[r.links[0]].bandwidth.gb_per_s() == Approx(300.0));
  CHECK(moved.cached_routes() == 2);
}

}  // namespace collsim
