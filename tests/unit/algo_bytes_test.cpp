// Property test: bytes each rank sends, against each algorithm's closed form.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/algo/host_groups.hpp"
#include "sim/algo/registry.hpp"

namespace collsim {
namespace {

std::int64_t total(const std::vector<Bytes>& v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t{0}, [](std::int64_t a, Bytes b) { return a + b.count; });
}

std::vector<Bytes> received(const Schedule& s) {
  std::vector<Bytes> out(static_cast<std::size_t>(s.ranks()));
  for (const Transfer& t : s.transfers()) {
    if (t.kind != TransferKind::Join) out[static_cast<std::size_t>(t.dst)] += t.bytes;
  }
  return out;
}

const std::vector<int> kCounts{2, 3, 4, 5, 8, 12, 16, 33, 64};

TEST_CASE("ring all-reduce sends 2(N-1)/N S per rank", "[algo][bytes]") {
  for (int n : kCounts) {
    // S = 1024 N splits into N equal blocks; every rank sends N-1 blocks in each half.
    const std::int64_t S = 1024LL * n;
    for (int channels : {1, 3}) {
      AlgorithmOptions opt;
      opt.channels = channels;
      const Schedule s = build_schedule("ring", Collective{CollectiveOp::AllReduce, n, 0, Bytes{S}}, opt);
      for (Bytes b : s.bytes_sent_per_rank()) REQUIRE(b.count == 2 * (n - 1) * S / n);
    }
  }
}

TEST_CASE("ring all-gather and reduce-scatter send (N-1)/N S per rank", "[algo][bytes]") {
  for (int n : kCounts) {
    const std::int64_t S = 512LL * n;  // nccl-tests size: the gathered total
    for (CollectiveOp op : {CollectiveOp::AllGather, CollectiveOp::ReduceScatter}) {
      const Schedule s = build_schedule("ring", Collective{op, n, 0, Bytes{S}});
      for (Bytes b : s.bytes_sent_per_rank()) REQUIRE(b.count == (n - 1) * S / n);
    }
  }
}

TEST_CASE("double binary tree moves 2(N-1) S in all and at most 2S per rank", "[algo][bytes]") {
  for (int n : kCounts) {
    const std::int64_t S = 4096;
    const Schedule s = build_schedule("tree", Collective{CollectiveOp::AllReduce, n, 0, Bytes{S}});
    // Each of the two trees carries S/2 up every edge and down every edge: N-1 edges.
    REQUIRE(total(s.bytes_sent_per_rank()) == 2 * (n - 1) * S);
    // A rank is inner (up to 2 children) in one tree and a leaf in the other:
    // S/2 up + 2 x S/2 down + S/2 up = 2S at most.
    for (Bytes b : s.bytes_sent_per_rank()) REQUIRE(b.count <= 2 * S);
  }
}

TEST_CASE("parameter server: root sends and receives (N-1) S, workers send S", "[algo][bytes]") {
  for (int n : kCounts) {
    const std::int64_t S = 1 << 20;
    AlgorithmOptions opt;
    opt.slice_bytes = Bytes{100'000};  // slicing must not change the totals
    const Schedule s = build_schedule("ps", Collective{CollectiveOp::AllReduce, n, 0, Bytes{S}}, opt);
    const auto sent = s.bytes_sent_per_rank();
    const auto recv = received(s);
    REQUIRE(sent[0].count == (n - 1) * S);
    REQUIRE(recv[0].count == (n - 1) * S);  // root total 2(N-1) S
    for (int r = 1; r < n; ++r) REQUIRE(sent[static_cast<std::size_t>(r)].count == S);
    // Sharded: every rank serves S/N: pushes (N-1) S/N and pulls (N-1) S/N.
    const Schedule sh = build_schedule("ps_sharded", Collective{CollectiveOp::AllReduce, n, 0, Bytes{S * n}}, opt);
    for (Bytes b : sh.bytes_sent_per_rank()) REQUIRE(b.count == 2 * (n - 1) * S);
  }
}

TEST_CASE("halving-doubling sends 2(p-1)/p S per participant, plus S to fold", "[algo][bytes]") {
  for (int n : kCounts) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    const std::int64_t S = 1024LL * p;
    const Schedule s = build_schedule("rhd", Collective{CollectiveOp::AllReduce, n, 0, Bytes{S}});
    const auto sent = s.bytes_sent_per_rank();
    const int r = n - p;
    for (int rank = 0; rank < n; ++rank) {
      const bool folded_away = rank < 2 * r && rank % 2 == 0;  // sends S in, then idles
      const bool fold_partner = rank < 2 * r && rank % 2 == 1;  // also sends S back out
      const std::int64_t expected = folded_away ? S : 2 * (p - 1) * S / p + (fold_partner ? S : 0);
      REQUIRE(sent[static_cast<std::size_t>(rank)].count == expected);
    }
  }
}

TEST_CASE("recursive doubling sends log2(p) S per participant", "[algo][bytes]") {
  for (int n : {2, 4, 8, 16, 64}) {
    const Schedule s = build_schedule("rd", Collective{CollectiveOp::AllReduce, n, 0, Bytes{1000}});
    for (Bytes b : s.bytes_sent_per_rank()) REQUIRE(b.count == static_cast<std::int64_t>(std::log2(n)) * 1000);
  }
}

TEST_CASE("hierarchical ring sends 2(g-1)/g S + 2(H-1)/(gH) S per rank", "[algo][bytes]") {
  for (auto [hosts, g] : std::vector<std::pair<int, int>>{{2, 4}, {4, 2}, {3, 5}, {8, 8}}) {
    const int n = hosts * g;
    const std::int64_t S = 64LL * n;
    AlgorithmOptions opt;
    opt.host_of_rank = block_hosts(n, hosts);
    const Schedule s = build_schedule("hier_ring", Collective{CollectiveOp::AllReduce, n, 0, Bytes{S}}, opt);
    for (Bytes b : s.bytes_sent_per_rank()) REQUIRE(b.count == 2 * (g - 1) * S / g + 2 * (hosts - 1) * S / (g * hosts));
  }
}

TEST_CASE("direct all-to-all and in-network all-reduce send (N-1)/N S per rank", "[algo][bytes]") {
  for (int n : kCounts) {
    const std::int64_t S = 256LL * n;
    for (const char* algo : {"direct", "nvls"}) {
      const CollectiveOp op = std::string(algo) == "direct" ? CollectiveOp::AllToAll : CollectiveOp::AllReduce;
      const Schedule s = build_schedule(algo, Collective{op, n, 0, Bytes{S}});
      // nvls: up legs carry (N-1)/N S per rank, the multicast sends another (N-1)/N S
      // from the block owner (loading only the switch's down links).
      const std::int64_t expected = (std::string(algo) == "nvls" ? 2 : 1) * (n - 1) * S / n;
      for (Bytes b : s.bytes_sent_per_rank()) REQUIRE(b.count == expected);
    }
  }
}

}  // namespace
}  // namespace collsim

namespace collsim {
namespace {

TEST_CASE("nccl-tests sizes: gather-type ops round each rank's part down to 16 B", "[algo][bytes]") {
  // 1000 B over 8 ranks = 125 B each -> 112 B each -> 896 B in all.
  REQUIRE(nccl_tests_size(CollectiveOp::AllGather, 8, Bytes{1000}) == Bytes{896});
  REQUIRE(nccl_tests_size(CollectiveOp::ReduceScatter, 8, Bytes{1000}) == Bytes{896});
  REQUIRE(nccl_tests_size(CollectiveOp::AllToAll, 8, Bytes{1024}) == Bytes{1024});
  REQUIRE(nccl_tests_size(CollectiveOp::AllReduce, 8, Bytes{1000}) == Bytes{1000});
  REQUIRE(nccl_tests_size(CollectiveOp::Broadcast, 8, Bytes{7}) == Bytes{7});
  // busbw factors: all-reduce 2(n-1)/n, gather-type (n-1)/n, rooted 1.
  REQUIRE(busbw_factor(CollectiveOp::AllReduce, 8) == Approx(1.75));
  REQUIRE(busbw_factor(CollectiveOp::AllGather, 8) == Approx(0.875));
  REQUIRE(busbw_factor(CollectiveOp::AllToAll, 8) == Approx(0.875));
  REQUIRE(busbw_factor(CollectiveOp::Reduce, 8) == 1.0);
}

}  // namespace
}  // namespace collsim
