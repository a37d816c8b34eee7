// One-shot max-min rates (static_max_min) against the flow network's own solve.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/net/static_max_min.hpp"

using namespace collsim;

namespace {

// Appends to `all` a random route of 1-4 distinct links below `links`, and its end to `offsets`.
void add_random_route(std::mt19937& rng, int links, std::vector<LinkId>& all, std::vector<std::size_t>& offsets) {
  const std::size_t begin = all.size();
  for (int h = 0, hops = 1 + static_cast<int>(rng() % 4); h < hops; ++h) {
    const auto l = static_cast<LinkId>(rng() % static_cast<unsigned>(links));
    if (std::find(all.begin() + static_cast<std::ptrdiff_t>(begin), all.end(), l) == all.end()) all.push_back(l);
  }
  offsets.push_back(all.size());
}

}  // namespace

TEST_CASE("static max-min: two flows on one link halve it, a third elsewhere keeps its own", "[net][maxmin]") {
  const std::vector<double> capacity{10.0, 4.0, 3.0};
  const std::vector<LinkId> a{0, 1}, b{0}, c{2};
  const std::vector<std::span<const LinkId>> routes{a, b, c};
  // a: limited by link 1 (4); b gets the rest of link 0 (6); c alone on link 2 (3).
  CHECK(static_max_min(capacity, routes, 0.0) == std::vector<double>{4.0, 6.0, 3.0});
  // A cap of 3.5 binds a and b, not c.
  CHECK(static_max_min(capacity, routes, 3.5) == std::vector<double>{3.5, 3.5, 3.0});
  const std::vector<LinkId> bad{5};
  const std::vector<std::span<const LinkId>> unknown{bad};
  CHECK_THROWS_AS(static_max_min(capacity, unknown, 0.0), InternalError);
}

TEST_CASE("static max-min gives the flow network's rates on random flow sets", "[net][maxmin]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const int links = 2 + static_cast<int>(rng() % 30);
    const int flows = 1 + static_cast<int>(rng() % 60);
    std::vector<double> capacity;
    FlowNetwork net;
    for (int l = 0; l < links; ++l) {
      // Few distinct capacities, so that shares tie as they do on real fabrics.
      capacity.push_back(1e9 * static_cast<double>(1 + rng() % 4));
      (void)net.add_link(Bandwidth{capacity.back()});
    }
    std::vector<std::vector<LinkId>> stored(static_cast<std::size_t>(flows));
    std::vector<std::span<const LinkId>> routes;
    const double cap = rng() % 3 == 0 ? 1e9 * (0.5 + static_cast<double>(rng() % 4)) : 0.0;
    for (auto& r : stored) {
      const int hops = 1 + static_cast<int>(rng() % 4);
      for (int h = 0; h < hops; ++h) {
        const auto l = static_cast<LinkId>(rng() % static_cast<unsigned>(links));
        if (std::find(r.begin(), r.end(), l) == r.end()) r.push_back(l);
      }
      routes.emplace_back(r);
    }
    std::vector<FlowId> ids;
    for (const auto& r : routes) {
      ids.push_back(net.start_flow(Time{}, r, Bytes{1 << 20}, cap > 0 ? std::optional<Bandwidth>{Bandwidth{cap}} : std::nullopt));
    }
    const std::vector<double> rates = static_max_min(capacity, routes, cap);
    REQUIRE(rates.size() == ids.size());
    for (std::size_t f = 0; f < ids.size(); ++f) {
      INFO("trial " << trial << " flow " << f);
      CHECK(std::abs(rates[f] - net.rate(ids[f])) <= 1e-9 * net.rate(ids[f]));
    }
  }
}

TEST_CASE("static max-min over a route table: the same rates as over spans, for every stride and start",
          "[net][maxmin]") {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 100; ++trial) {
    const int links = 2 + static_cast<int>(rng() % 20);
    std::vector<double> capacity;
    for (int l = 0; l < links; ++l) capacity.push_back(1e9 * static_cast<double>(1 + rng() % 4));
    // Routes laid end to end in one array, as the tree estimate keeps them.
    std::vector<LinkId> all;
    std::vector<std::size_t> offsets{0};
    const int flows = 1 + static_cast<int>(rng() % 40);
    for (int f = 0; f < flows; ++f) add_random_route(rng, links, all, offsets);
    const double cap = rng() % 3 == 0 ? 1.5e9 : 0.0;
    for (std::size_t stride : {1, 2, 3}) {
      for (std::size_t first = 0; first < stride; ++first) {
        const RouteTable table{all, offsets, first, stride};
        std::vector<std::span<const LinkId>> spans;
        for (std::size_t i = first; i + 1 < offsets.size(); i += stride) {
          spans.push_back(std::span<const LinkId>(all).subspan(offsets[i], offsets[i + 1] - offsets[i]));
        }
        INFO("trial " << trial << ", every " << stride << " from " << first);
        REQUIRE(table.size() == spans.size());
        if (spans.empty()) continue;
        CHECK(static_max_min(capacity, table, cap) == static_max_min(capacity, spans, cap));
      }
    }
  }
}

TEST_CASE("static max-min with each flow's own cap: the flow network's rates", "[net][maxmin]") {
  // Hand case: link 0 (10) carries a (cap 2) and b (no cap): a frozen at 2, b gets 8; c
  // (cap 5) alone on link 1 (3) gets 3.
  {
    const std::vector<double> capacity{10.0, 3.0};
    const std::vector<LinkId> all{0, 0, 1};
    const std::vector<std::size_t> offsets{0, 1, 2, 3};
    const RouteTable table{all, offsets};
    const std::vector<double> caps{2.0, 0.0, 5.0};
    CHECK(static_max_min(capacity, table, caps) == std::vector<double>{2.0, 8.0, 3.0});
    CHECK_THROWS_AS(static_max_min(capacity, table, std::vector<double>{1.0}), InternalError);
  }
  std::mt19937 rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    const int links = 2 + static_cast<int>(rng() % 20);
    std::vector<double> capacity;
    FlowNetwork net;
    for (int l = 0; l < links; ++l) {
      capacity.push_back(1e9 * static_cast<double>(1 + rng() % 4));
      (void)net.add_link(Bandwidth{capacity.back()});
    }
    std::vector<LinkId> all;
    std::vector<std::size_t> offsets{0};
    std::vector<double> caps;
    const int flows = 1 + static_cast<int>(rng() % 40);
    for (int f = 0; f < flows; ++f) {
      add_random_route(rng, links, all, offsets);
      caps.push_back(rng() % 2 == 0 ? 1e9 * (0.25 + static_cast<double>(rng() % 4)) : 0.0);
    }
    const RouteTable table{all, offsets};
    std::vector<FlowId> ids;
    for (std::size_t f = 0; f < table.size(); ++f) {
      ids.push_back(net.start_flow(Time{}, table[f], Bytes{1 << 20},
                                   caps[f] > 0 ? std::optional<Bandwidth>{Bandwidth{caps[f]}} : std::nullopt));
    }
    const std::vector<double> rates = static_max_min(capacity, table, caps);
    for (std::size_t f = 0; f < ids.size(); ++f) {
      INFO("trial " << trial << " flow " << f);
      CHECK(std::abs(rates[f] - net.rate(ids[f])) <= 1e-9 * net.rate(ids[f]));
    }
  }
}
