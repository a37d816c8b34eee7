// Acceptance tests of the topology issue: a 32-GPU ring on 4 x DGX H100 is limited by
// the 400 Gb/s NICs, and an all-to-all on a 2:1 fat tree gets half the 1:1 bandwidth.
#include <catch2/catch.hpp>

#include "sim/algo/registry.hpp"
#include "sim/coll/predict.hpp"
#include "sim/coll/schedule_player.hpp"
#include "sim/topo/bisection.hpp"
#include "sim/topo/cluster_generator.hpp"
#include "sim/topo/link_graph.hpp"
#include "sim/topo/loader.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {
namespace {


// Every rank sends size/N bytes to every other rank at once (no dependencies).
Schedule direct_all_to_all(int ranks, Bytes size) {
  Schedule s(Collective{CollectiveOp::AllToAll, ranks, 0, size}, "direct");
  const Bytes piece{size.count / ranks};
  for (int src = 0; src < ranks; ++src) {
    for (int dst = 0; dst < ranks; ++dst) {
      if (src == dst) continue;
      const auto chunk = s.add_chunk(ChunkSpec{piece, src, dst});
      s.add(Transfer{src, dst, piece, chunk, TransferKind::Copy}, {});
    }
  }
  return s;
}

}  // namespace

TEST_CASE("ring all-reduce on 4 x DGX H100 rail-optimised is limited by the 400 Gb/s NICs", "[topo][acceptance]") {
  const Topology t = load_topology_file(test::shipped_topology("4x-dgx-h100-rail-8x400g-ib.json"));
  REQUIRE(t.rank_count() == 32);
  LinkGraph g(t);
  const Bytes size{Bytes{1} .count << 30};  // 1 GiB per rank
  const CollectivePrediction p = predict_collective(g, Collective{CollectiveOp::AllReduce, 32, 0, size}, "ring");

  // Ranks go host by host, so the ring crosses hosts on 4 of its 32 edges (rank 7 -> 8
  // ...). Each such edge leaves through GPU 7's own 400 Gb/s NIC: 50 GB/s of payload
  // (InfiniBand carries no TCP header overhead), far below the 450 GB/s NVSwitch link of
  // the other 28 edges. The ring sends 2(N-1) = 62 pieces of S/N one after another on
  // every edge (each waits for the edge's previous piece), so the slowest edge needs at
  // least 62 x (S/32 at 50 GB/s + its route latency), and little more: its upstream
  // edges deliver each piece 9x sooner than it can forward it.
  const Route& inter = g.route(7, 8);
  const Time per_step = transfer_time(Bytes{size.count / 32}, Bandwidth::gbps(400)) + inter.latency;
  const Time lower = per_step * 62;
  CHECK(p.time >= lower);
  CHECK(p.time.seconds() <= lower.seconds() * 1.01);
  // busbw = S/t x 2(N-1)/N, so with t ~ 62 (S/N)/B it is ~B = 50 GB/s (less latency), not 450.
  CHECK(p.busbw_gbps <= 50.0);
  CHECK(p.busbw_gbps >= 49.0);
}

TEST_CASE("all-to-all on a 2:1 fat tree gets half the bandwidth of a 1:1 fat tree", "[topo][acceptance]") {
  // 4 x DGX H100, every host's 8 NICs on its own leaf (nics_per_leaf 8), so all traffic
  // between hosts crosses the one spine; 1 spine keeps ECMP hashing out of the figure.
  auto build = [](double oversubscription) {
    ClusterSpec c;
    c.hosts = 4;
    c.server.kind = ServerKind::DgxH100;
    c.fabric.kind = FabricKind::FatTree;
    c.fabric.link_kind = LinkKind::Ib;
    c.fabric.nic_bandwidth = Bandwidth::gbps(400);
    c.fabric.nics_per_leaf = 8;
    c.fabric.spines = 1;
    c.fabric.oversubscription = oversubscription;
    return make_cluster(c);
  };
  const Bytes size{32LL << 20};  // 32 MiB per rank, 1 MiB to each peer
  const Schedule s = direct_all_to_all(32, size);
  const Topology full = build(1.0);
  const Topology half = build(2.0);
  LinkGraph g1(full), g2(half);
  const PlayResult r1 = play_schedule(s, g1);
  const PlayResult r2 = play_schedule(s, g2);

  // Each GPU sends 1 MiB to each of 24 GPUs on other hosts through its own NIC, and to 7
  // on its host over NVSwitch (done long before). 1:1: a leaf's uplink is 8 x 50 GB/s for
  // the 8 x 24 = 192 remote flows, B/24 each, the same share each NIC gives its 24 flows,
  // so t1 ~ 24 MiB / 50 GB/s. 2:1: the uplink is 4 x 50 GB/s, B/48 per flow, so
  // t2 ~ 48 MiB / 50 GB/s: twice as long, half the bandwidth. Latency (a few us against
  // ~0.5 ms and ~1 ms) keeps the ratio within 1% of 2.
  const double t1 = r1.duration.seconds();
  const double t2 = r2.duration.seconds();
  CHECK(t1 == Approx(24.0 * (1 << 20) / 50e9).epsilon(0.01));
  CHECK(t2 == Approx(48.0 * (1 << 20) / 50e9).epsilon(0.01));
  const double bw1 = static_cast<double>(size.count) / t1;
  const double bw2 = static_cast<double>(size.count) / t2;
  CHECK(bw2 / bw1 == Approx(0.5).epsilon(0.01));

  // The bisection (hosts 0, 1 -> hosts 2, 3) halves too: 1:1, the 16 NICs of the first
  // two hosts, 16 x 50 = 800 GB/s; 2:1, their two leaves' uplinks, 2 x 8 x 50 / 2 = 400.
  CHECK(bisection_bandwidth(full).gb_per_s() == Approx(800.0));
  CHECK(bisection_bandwidth(half).gb_per_s() == Approx(400.0));
}

}  // namespace collsim
