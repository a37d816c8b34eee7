// The 1-bit hook (DeepSpeed's compressed all-reduce with error feedback) on the hand model
// (ddp_hand_model.hpp), derived by hand: HBM at 1e12 B/s makes 1 B of traffic 1 ps,
// collectives take 1 ns per byte.
#include <catch2/catch.hpp>

#include "sim/train/ddp_names.hpp"
#include "sim/train/ddp_timeline.hpp"
#include "tests/unit/ddp_hand_model.hpp"

namespace collsim {

TEST_CASE("1-bit hook: compression kernels, four collectives and a server stage per bucket", "[train][onebit]") {
  DdpOptions o = hand::options();
  o.hook = CommHook::OneBit;
  o.world_size = 4;
  const DdpResult r = simulate_ddp(hand::model(), hand::device(), hand::one_ns_per_byte, o);
  REQUIRE(r.buckets.size() == 3);
  // b0 = {p3}: 250,000 fp32 elements; packed signs 31,250 B, 4 scales of 4 B, server chunk
  // 62,500 elements. Wire: 31,250 (all-to-all) + 16 + 31,250 (all-gather) + 16 B.
  CHECK(r.buckets[0].wire_bytes == Bytes{62532});
  CHECK(r.buckets[0].collectives == 4);
  // Copy-in p3 ends at 6.002 ms; compression reads the gradient twice and the error, writes
  // the error and the bits: 250,000 x (2 x 4 + 8) + 31,250 = 4,031,250 B = 4.03125 us.
  const std::int64_t start = 6'002'000'000 + 4'031'250;
  CHECK(r.buckets[0].start == Time{start});
  // All-to-all 31.25 us, scales 16 ns, server 62,500 x 16 + 31,250 + 7,813 = 1,039,063 ps,
  // all-gather 31.25 us, scales 16 ns.
  CHECK(r.buckets[0].end == Time{start + 31'250'000 + 16'000 + 1'039'063 + 31'250'000 + 16'000});
  // The comm-stream steps, in order, with their names.
  std::vector<std::string> names;
  for (const auto& c : r.program.comm) {
    if (c.bucket == std::size_t{0}) names.push_back(c.name);
  }
  CHECK(names == std::vector<std::string>{"alltoall bucket 0 part 0", "allgather bucket 0 part 1", "hook server bucket 0",
                                          "allgather bucket 0 part 3", "allgather bucket 0 part 4"});
  // Decompression after the result: 31,250 + 1,000,000 B.
  const auto& tasks = r.program.compute;
  const auto it = std::find_if(tasks.begin(), tasks.end(), [](const ComputeTask& t) { return t.name == "hook decompress bucket 0"; });
  REQUIRE(it != tasks.end());
  CHECK(it->work == Time{1'031'250});
}

TEST_CASE("1-bit run: warm-up steps at full precision, then compressed", "[train][onebit]") {
  const Time warm{100}, compressed{50};
  // 3 of 10 steps warm up: (3 x 100 + 7 x 50) / 10 = 65.
  CHECK(onebit_run(3, 10, warm, compressed).mean_iteration == Time{65});
  // A run shorter than its warm-up never compresses.
  CHECK(onebit_run(3, 2, warm, compressed).mean_iteration == Time{100});
  // No run length: no mean.
  const OneBitRun none = onebit_run(3, 0, warm, compressed);
  CHECK(none.mean_iteration == Time{});
  CHECK(none.warmup_steps == 3);
}

TEST_CASE("1-bit hook names", "[train][onebit]") {
  REQUIRE(comm_hook_from("onebit"));
  CHECK(comm_hook_from("onebit")->hook == CommHook::OneBit);
  CHECK(comm_hook_from("onebit")->onebit_warmup == 0);
  CHECK(comm_hook_from("onebit:1000")->onebit_warmup == 1000);
  CHECK_FALSE(comm_hook_from("onebit:"));
  CHECK_FALSE(comm_hook_from("onebit:-1"));
  CHECK_FALSE(comm_hook_from("onebit:1234567890"));
  CHECK_FALSE(comm_hook_from("onebit:x"));
}

}  // namespace collsim
