// The symbolic executor proves ring and parameter-server all-reduce for many rank
// counts, and catches broken schedules.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/algo/parameter_server.hpp"
#include "sim/algo/ring.hpp"
#include "sim/algo/symbolic_executor.hpp"

using namespace collsim;

namespace {
std::vector<int> rank_counts() {
  std::vector<int> out;
  for (int n = 1; n <= 33; ++n) out.push_back(n);
  for (int n : {64, 100, 1000}) out.push_back(n);
  return out;
}
Collective allreduce(int n, std::int64_t bytes) { return Collective{CollectiveOp::AllReduce, n, 0, Bytes{bytes}}; }
}  // namespace

TEST_CASE("ring all-reduce verifies for N = 1..33, 64, 100, 1000", "[algo][verify]") {
  for (int n : rank_counts()) {
    // 1 MiB + 3 bytes: the remainder bytes must land in some chunk, never dropped.
    const Schedule s = ring_schedule(allreduce(n, (1 << 20) + 3));
    const Verification v = verify_schedule(s);
    INFO("N = " << n << ": " << v.error);
    REQUIRE(v.ok);
    // 2(N-1) steps of N transfers each.
    CHECK(s.size() == static_cast<std::size_t>(n > 1 ? 2 * (n - 1) * n : 0));
  }
}

TEST_CASE("ring all-reduce: bytes sent per rank is 2(N-1)/N x S, remainder kept", "[algo][verify]") {
  // S = 1000 B over N = 7: chunks of 143,143,143,143,143,143,142 (6 x 143 + 142 = 1000).
  const Schedule s = ring_schedule(allreduce(7, 1000));
  std::int64_t chunk_total = 0;
  for (const auto& c : s.chunks()) chunk_total += c.bytes.count;
  CHECK(chunk_total == 1000);
  // Each rank sends 2(N-1) = 12 chunks; over all ranks every chunk is sent 12 times, so
  // the sum over ranks is 12 x 1000 = 2(N-1) x S.
  std::int64_t total = 0;
  for (Bytes b : s.bytes_sent_per_rank()) {
    CHECK(b.count >= 12 * 142);
    CHECK(b.count <= 12 * 143);
    total += b.count;
  }
  CHECK(total == 12 * 1000);
}

TEST_CASE("parameter server verifies for N = 1..33, 64, 100, 1000", "[algo][verify]") {
  for (int n : rank_counts()) {
    const Schedule s = parameter_server_allreduce(allreduce(n, 4096));
    const Verification v = verify_schedule(s);
    INFO("N = " << n << ": " << v.error);
    REQUIRE(v.ok);
    // Root sends S to each of the N-1 workers: (N-1) x S; each worker sends S once.
    const auto sent = s.bytes_sent_per_rank();
    CHECK(sent[0].count == (n - 1) * 4096LL);
    for (int r = 1; r < n; ++r) CHECK(sent[static_cast<std::size_t>(r)].count == 4096);
  }
}

TEST_CASE("the executor rejects a contribution counted twice", "[algo][verify]") {
  Schedule s(allreduce(2, 8), "double-count");
  const auto c = s.add_chunk(ChunkSpec{Bytes{8}});
  const TransferId a = s.add(Transfer{1, 0, Bytes{8}, c, TransferKind::Reduce}, {});
  s.add(Transfer{1, 0, Bytes{8}, c, TransferKind::Reduce}, {a});  // rank 1 reduced into 0 twice
  const Verification v = verify_schedule(s);
  CHECK_FALSE(v.ok);
  CHECK_THAT(v.error, Catch::Contains("count twice"));
}

TEST_CASE("the executor rejects a schedule that leaves a rank incomplete", "[algo][verify]") {
  Schedule s(allreduce(3, 8), "incomplete");
  const auto c = s.add_chunk(ChunkSpec{Bytes{8}});
  const TransferId a = s.add(Transfer{1, 0, Bytes{8}, c, TransferKind::Reduce}, {});
  const TransferId b = s.add(Transfer{2, 0, Bytes{8}, c, TransferKind::Reduce}, {});
  s.add(Transfer{0, 1, Bytes{8}, c, TransferKind::Copy}, {a, b});  // rank 2 never gets the result
  const Verification v = verify_schedule(s);
  CHECK_FALSE(v.ok);
  CHECK_THAT(v.error, Catch::Contains("rank 2"));
}

TEST_CASE("the executor rejects reading a chunk without depending on its writer", "[algo][verify]") {
  // Rank 0 receives two reductions in sequence, then sends without depending on either:
  // it can neither have read the newest value (no dependency on its writer) nor the one
  // before it (an exchange would still need the earlier write ordered before it).
  Schedule s(allreduce(3, 8), "race");
  const auto c = s.add_chunk(ChunkSpec{Bytes{8}});
  const TransferId a = s.add(Transfer{1, 0, Bytes{8}, c, TransferKind::Reduce}, {});
  s.add(Transfer{2, 0, Bytes{8}, c, TransferKind::Reduce}, {a});
  s.add(Transfer{0, 1, Bytes{8}, c, TransferKind::Copy}, {});
  const Verification v = verify_schedule(s);
  CHECK_FALSE(v.ok);
  CHECK_THAT(v.error, Catch::Contains("without depending"));
}
