// Acceptance 2: with --protocol ideal on a star (every host on its own duplex link of
// bandwidth B and latency L to one switch, so a message pays alpha = 2L), the simulated
// times of tree, halving-doubling and hierarchical ring agree with their alpha-beta
// formulas within 0.5 %.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/coll/predict.hpp"
#include "sim/topo/generators.hpp"

namespace collsim {
namespace {

constexpr double kB = 12.5e9;    // 100 Gbps in bytes/s
constexpr double kL = 1e-6;      // 1 us per link
constexpr double kAlpha = 2 * kL;

double simulate(const std::string& algo, int n, double bytes, std::optional<int> hosts = {}) {
  const Topology topo = make_star(StarSpec{n, Bandwidth::gbps(100), Time::from_us(1)});
  LinkGraph graph(topo);
  CollectiveRequest req;
  req.algorithms = {algo};
  req.protocols = {Protocol::Ideal};
  req.hosts = hosts;
  req.overrides.slice = Bytes{1LL << 40};  // no pipelining: the formulas are per step
  return predict_collective(graph, Collective{CollectiveOp::AllReduce, n, 0, Bytes{static_cast<std::int64_t>(bytes)}}, req)
      .time.seconds();
}

TEST_CASE("halving-doubling matches 2 log2(p) alpha + 2(p-1)/p S/B (+ fold)", "[coll][closed_form]") {
  const double S = 64.0 * 1024 * 1024;
  for (int n : {2, 4, 8, 16, 32, 64}) {
    // Step d of the reduce-scatter sends S/(2d') to one partner, the all-gather mirrors it:
    // sum over log2 p steps of (alpha + S/2^k/B) twice = 2 log2(p) alpha + 2(p-1)/p S/B.
    const double p = n;
    const double expected = 2 * std::log2(p) * kAlpha + 2 * (p - 1) / p * S / kB;
    REQUIRE(simulate("rhd", n, S) == Approx(expected).epsilon(0.005));
  }
  for (int n : {3, 6, 12, 24, 33}) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    // Non-power of two: the fold in and out each send S over one link: 2 (alpha + S/B).
    const double expected = 2 * std::log2(p) * kAlpha + 2.0 * (p - 1) / p * S / kB + 2 * (kAlpha + S / kB);
    REQUIRE(simulate("rhd", n, S) == Approx(expected).epsilon(0.005));
  }
}

TEST_CASE("hierarchical ring matches its two-level ring formula", "[coll][closed_form]") {
  const double S = 48.0 * 1024 * 1024;
  for (auto [hosts, g] : std::vector<std::pair<int, int>>{{2, 4}, {4, 4}, {8, 2}, {3, 6}, {16, 4}}) {
    // Intra-host reduce-scatter and all-gather: (g-1) steps of S/g each; inter-host ring
    // all-reduce of a shard S/g over H hosts: 2(H-1) steps of S/(gH). Each rank sends one
    // and receives one message per step, so no link is shared.
    const double expected = 2 * (g - 1) * (kAlpha + S / g / kB) + 2 * (hosts - 1) * (kAlpha + S / (g * hosts) / kB);
    REQUIRE(simulate("hier_ring", hosts * g, S, hosts) == Approx(expected).epsilon(0.005));
  }
}

// SimGrid's tree formula (shared/peers/simgrid, derived again here): a node is ready when
// its last child's message arrived; children's messages into one down-link share it
// fairly, so with arrival times t_i sorted the last ends at max_i(t_i + (k - i) S/B).
// Broadcast: a node's children are served at once from its up-link: recv(c) = recv(v) +
// alpha + k_v S/B.
double bintree_formula(int n, double S) {
  std::vector<double> ready(static_cast<std::size_t>(n), 0.0);
  for (int v = n - 1; v >= 0; --v) {
    std::vector<double> t;
    for (int c : {2 * v + 1, 2 * v + 2}) {
      if (c < n) t.push_back(ready[static_cast<std::size_t>(c)] + kAlpha);
    }
    std::sort(t.begin(), t.end());
    double m = 0;
    for (std::size_t i = 0; i < t.size(); ++i) m = std::max(m, t[i] + static_cast<double>(t.size() - i) * S / kB);
    ready[static_cast<std::size_t>(v)] = m;
  }
  std::vector<double> recv(static_cast<std::size_t>(n), 0.0);
  recv[0] = ready[0];
  double end = recv[0];
  for (int v = 0; v < n; ++v) {
    const int k = (2 * v + 1 < n) + (2 * v + 2 < n);
    for (int c : {2 * v + 1, 2 * v + 2}) {
      if (c >= n) continue;
      recv[static_cast<std::size_t>(c)] = recv[static_cast<std::size_t>(v)] + kAlpha + k * S / kB;
      end = std::max(end, recv[static_cast<std::size_t>(c)]);
    }
  }
  return end;
}

TEST_CASE("binary heap tree matches SimGrid's alpha-beta tree formula", "[coll][closed_form]") {
  for (int n : {2, 3, 5, 8, 16, 33}) {
    for (double S : {1e3, 1e6, 1e8}) REQUIRE(simulate("bintree", n, S) == Approx(bintree_formula(n, S)).epsilon(0.005));
  }
}

TEST_CASE("double binary tree on 2 and 4 hosts matches its derivation", "[coll][closed_form]") {
  const double S = 32.0 * 1024 * 1024;
  const double tau = S / 2 / kB;  // each tree carries half the data, unpipelined here
  // N = 2: tree 0 is 1 -> 0, tree 1 is 0 -> 1. Up: both halves cross at once in opposite
  // directions (alpha + tau); down: the same. 2 alpha + 2 tau.
  REQUIRE(simulate("tree", 2, S) == Approx(2 * kAlpha + 2 * tau).epsilon(0.005));
  // N = 4: tree 0 = {1,3 -> 2 -> 0}, tree 1 (mirror) = {0,2 -> 1 -> 3}.
  //  up 1: 1->2, 3->2 share 2's down-link and 0->1, 2->1 share 1's: alpha + 2 tau
  //  up 2: 2->0 and 1->3 alone: alpha + tau
  //  down 1: 0->2 and 3->1 alone: alpha + tau
  //  down 2: 2->1, 2->3 share 2's up-link, 1->0, 1->2 share 1's: alpha + 2 tau
  REQUIRE(simulate("tree", 4, S) == Approx(4 * kAlpha + 6 * tau).epsilon(0.005));
}

}  // namespace
}  // namespace collsim

namespace collsim {
namespace {

TEST_CASE("ring and whole-message PS match the SimGrid peer's formulas", "[coll][closed_form]") {
  const double S = 16.0 * 1024 * 1024;
  for (int n : {2, 5, 16, 33}) {
    // ring: 2(N-1) alpha + 2(N-1)/N S/B (2(N-1) steps of S/N, no link shared).
    REQUIRE(simulate("ring", n, S) == Approx(2 * (n - 1) * kAlpha + 2.0 * (n - 1) / n * S / kB).epsilon(0.005));
    // ps unsliced: N-1 pushes share the server's down-link, then N-1 pulls its up-link:
    // 2 (alpha + (N-1) S/B).
    REQUIRE(simulate("ps", n, S) == Approx(2 * (kAlpha + (n - 1) * S / kB)).epsilon(0.005));
  }
}

}  // namespace
}  // namespace collsim
