// DDP's start-up broadcast and join() for uneven inputs, derived by hand on the hand model
// (ddp_hand_model.hpp: four fp32 parameters of 1e6 B, no buffers; collectives 1 ns per
// byte; a steady step of 14.010 ms).
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/train/ddp_startup.hpp"
#include "tests/unit/ddp_hand_model.hpp"
#include "tests/unit/test_time.hpp"

namespace collsim {
namespace {
using test::us;
}  // namespace

TEST_CASE("the start-up broadcast coalesces tensors into chunks", "[train][startup]") {
  const Workload w = hand::model();
  // 4e6 B under the 250 MiB limit: one chunk.
  CHECK(module_state_chunks(w) == std::vector<Bytes>{Bytes{4'000'000}});
  // A 3e6 B limit: p0..p2 reach it (3e6), p3 is left over.
  CHECK(module_state_chunks(w, 3'000'000) == std::vector<Bytes>{Bytes{3'000'000}, Bytes{1'000'000}});
  // A tensor is never split: with a 1.5e6 B limit, two parameters per chunk.
  CHECK(module_state_chunks(w, 1'500'000) == std::vector<Bytes>{Bytes{2'000'000}, Bytes{2'000'000}});
  // The broadcasts at 1 ns per byte: 4 ms.
  CHECK(module_state_broadcast(w, hand::one_ns_per_byte) == us(4000));
}

TEST_CASE("join: the run lasts the most batches, shadows and a final broadcast", "[train][startup]") {
  const JoinRun r = simulate_join(hand::model(), hand::device(), hand::one_ns_per_byte, hand::options(), {10, 8, 10, 7});
  CHECK(r.steps == 10);
  // Ranks 1 and 3 shadow 2 and 3 steps.
  CHECK(r.shadow_rank_steps == 5);
  // The join signal's 4 B all-reduce runs first on the communication stream (0-4 ns) and
  // the first copy-in (at 6 ms) waits for it: the step stays 14.010 ms.
  CHECK(r.step == us(14010));
  CHECK(r.final_sync == us(4000));
  CHECK(r.total == us(10 * 14010 + 4000));
  const auto refused = [](const std::vector<int>& batches) {
    try {
      (void)simulate_join(hand::model(), hand::device(), hand::one_ns_per_byte, hand::options(), batches);
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(e.field() == "join");
    }
  };
  refused({});
  refused({3, 0});
}

TEST_CASE("join: the join signal is the step's first collective", "[train][startup]") {
  DdpOptions o = hand::options();
  o.join = true;
  const DdpResult r = simulate_ddp(hand::model(), hand::device(), hand::one_ns_per_byte, o);
  REQUIRE_FALSE(r.program.comm.empty());
  CHECK(r.program.comm[0].name == "allreduce join signal");
  CHECK(r.timeline.comm[0].end == Time{4000});
  // The first copy-in waits on it.
  bool found = false;
  for (const auto& t : r.program.compute) {
    if (t.category == "copy_in") {
      CHECK(t.wait == std::vector<std::size_t>{0});
      found = true;
      break;
    }
  }
  CHECK(found);
}

}  // namespace collsim
