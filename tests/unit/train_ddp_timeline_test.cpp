// DDP timeline on a 4-layer hand model whose every time is chosen so that the expected
// timeline can be written down by hand (comments show the derivation).
//
// Model: layers L0..L3 (forward order), each 1 ms forward and 2 ms backward (measured),
// each owning one fp32 parameter p_i of 250,000 elements = 1,000,000 B. Optimizer 1 ms.
// Device: HBM 1e12 B/s, so a copy of 1e6 B (read + write = 2e6 B) takes 2 us.
// Collectives: 1 ns per byte (1e6 B = 1 ms), whatever the operation.
// Buckets: first cap 1e6 B, cap 2e6 B. Ready order p3 p2 p1 p0 rebuilds to
// b0 = {p3} (1e6 >= 1e6), b1 = {p2, p1} (2e6 >= 2e6), b2 = {p0} (leftover).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/train/ddp_timeline.hpp"
#include "tests/unit/ddp_hand_model.hpp"
#include "tests/unit/test_time.hpp"

namespace collsim {
namespace {

constexpr std::int64_t kUs = Time::kPerUs;
using test::us;

Workload hand_model(const std::vector<std::string>& owner = {"p0", "p1", "p2", "p3"}) { return hand::model(owner); }
ComputeModel hand_device() { return hand::device(); }
Time one_ns_per_byte(CollectiveOp op, Bytes b) { return hand::one_ns_per_byte(op, b); }
DdpOptions hand_options() { return hand::options(); }

DdpResult run_timeline(const DdpOptions& o, const Workload& w = hand_model()) {
  return simulate_ddp(w, hand_device(), one_ns_per_byte, o);
}

const ComputeTask* find_task(const DdpResult& r, const std::string& name, Interval* when) {
  for (std::size_t i = 0; i < r.program.compute.size(); ++i) {
    if (r.program.compute[i].name == name) {
      *when = r.timeline.compute[i];
      return &r.program.compute[i];
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("overlapped steady-state iteration of the hand model", "[train][ddp]") {
  const DdpResult r = run_timeline(hand_options());
  REQUIRE(r.buckets.size() == 3);
  CHECK(r.plan.buckets[1].params == std::vector<std::size_t>{2, 1});
  // Forward 0-4 ms. L3 bwd 4-6, copy p3 -> 6.002: b0 ready and launched, all-reduce
  // 6.002-7.002. L2 6.002-8.002, copy -> 8.004; L1 -> 10.004, copy -> 10.006: b1 ready,
  // 2 ms all-reduce 10.006-12.006. L0 -> 12.006, copy -> 12.008: b2 12.008-13.008.
  CHECK(r.buckets[0].ready == us(6002));
  CHECK(r.buckets[0].start == us(6002));
  CHECK(r.buckets[0].end == us(7002));
  CHECK(r.buckets[1].ready == us(10006));
  CHECK(r.buckets[1].end == us(12006));
  CHECK(r.buckets[2].ready == us(12008));
  CHECK(r.buckets[2].start == us(12008));
  CHECK(r.buckets[2].end == us(13008));
  // Finalize: copy_out b0 12.008-12.010, b1 (4 us) -> 12.014, b2 waits its all-reduce:
  // 13.008-13.010; optimizer 13.010-14.010.
  CHECK(r.iteration == us(14010));
  CHECK(r.forward == us(4000));
  CHECK(r.backward == us(8000));
  // Copies: 4 copy-ins of 2 us + copy-outs 2 + 4 + 2 us = 16 us.
  CHECK(r.copies == us(16));
  CHECK(r.optimizer == us(1000));
  // Comm: 1 + 2 + 1 ms, never concurrent. Compute busy 4 + 8 + 0.016 + 1 = 13.016 ms, so
  // exposed = 14.010 - 13.016 = 0.994 ms (the wait 12.014 -> 13.008), overlap
  // (4 - 0.994) / 4 = 75.15 %.
  CHECK(r.comm_total == us(4000));
  CHECK(r.comm_busy == us(4000));
  CHECK(r.exposed_comm == us(994));
  CHECK(r.overlap_percent == Approx(75.15));
}

TEST_CASE("a late bucket blocks the launch of later ready buckets", "[train][ddp]") {
  // Registration order p0..p3 but L0 owns p1 and L1 owns p0: ready order p3 p2 p0 p1.
  // find_unused_parameters keeps the construction buckets (no rebuild): [1e6, 2e6]
  // limits over p0 p1 p2 p3 give {p0} {p1,p2} {p3}, reversed: b0={p3}, b1={p1,p2}, b2={p0}.
  DdpOptions o = hand_options();
  o.buckets.find_unused_parameters = true;
  const DdpResult r = run_timeline(o, hand_model({"p1", "p0", "p2", "p3"}));
  REQUIRE(r.buckets.size() == 3);
  CHECK(r.plan.buckets[1].params == std::vector<std::size_t>{1, 2});
  // b2 = {p0} is complete after L1's backward and copy (10.006 ms) but b1 needs p1 from
  // L0 (copy done 12.008): both launch at 12.008, b1 runs 12.008-14.008, b2 14.008-15.008.
  CHECK(r.buckets[2].ready == us(10006));
  CHECK(r.buckets[2].launched == us(12008));
  CHECK(r.buckets[1].launched == us(12008));
  CHECK(r.buckets[2].start == us(14008));
  CHECK(r.buckets[2].end == us(15008));
  // Then the int32 used-map all-reduce: 4 params x 4 B = 16 B = 16 ns, 15.008-15.008016 ms.
  REQUIRE(r.program.comm.size() == 4);
  CHECK(r.timeline.comm[3].end - r.timeline.comm[3].start == Time::from_ns(16));
}

TEST_CASE("no-overlap mode launches every bucket after backward", "[train][ddp]") {
  DdpOptions o = hand_options();
  o.overlap = false;
  const DdpResult r = run_timeline(o);
  // Backward and copies end at 12.008; b0 12.008-13.008, b1 -15.008, b2 -16.008;
  // copy_out b2 16.008-16.010, optimizer -17.010. Compute busy 13.016, exposed 3.994.
  CHECK(r.buckets[0].start == us(12008));
  CHECK(r.buckets[2].end == us(16008));
  CHECK(r.iteration == us(17010));
  CHECK(r.exposed_comm == us(3994));
}

TEST_CASE("no_sync accumulation adds communication-free micro-steps", "[train][ddp]") {
  DdpOptions o = hand_options();
  o.accumulate = 2;
  const DdpResult r = run_timeline(o);
  // Micro-step 0: forward 4 ms + backward 8 ms, no copies or collectives; micro-step 1
  // is the synced step shifted by 12 ms: 12 + 14.010 = 26.010 ms.
  CHECK(r.iteration == us(26010));
  CHECK(r.forward == us(8000));
  CHECK(r.backward == us(16000));
  CHECK(r.comm_total == us(4000));
  CHECK(r.exposed_comm == us(994));
  CHECK(r.buckets[0].start == us(12000 + 6002));
}

TEST_CASE("gradient_as_bucket_view drops the copy-out", "[train][ddp]") {
  DdpOptions o = hand_options();
  o.gradient_as_bucket_view = true;
  const DdpResult r = run_timeline(o);
  // Copy-in stays (an in-place divide with the same traffic, 4 x 2 us), copy-outs are 0:
  // optimizer starts when b2 ends at 13.008 -> iteration 14.008 ms.
  CHECK(r.copies == us(8));
  CHECK(r.iteration == us(14008));
}

TEST_CASE("fp16 compression hook halves the bytes and adds casts", "[train][ddp]") {
  DdpOptions o = hand_options();
  o.hook = CommHook::Fp16;
  const DdpResult r = run_timeline(o);
  // Wire bytes: 2 B per element: 500,000, 1,000,000, 500,000.
  CHECK(r.buckets[0].wire_bytes == Bytes{500'000});
  CHECK(r.buckets[1].wire_bytes == Bytes{1'000'000});
  // Compress = cast (4 + 2 B) + divide (2 + 2 B) = 10 B/elem: 2.5 us for 250,000 elements;
  // decompress 6 B/elem = 1.5 us. b0: copy 6-6.002, compress -6.0045, all-reduce 0.5 ms
  // 6.0045-6.5045. L2 -8.0045, copy -8.0065, L1 -10.0065, copy -10.0085, compress b1
  // (5 us) -10.0135, all-reduce 1 ms -11.0135. L0 -12.0135, copy -12.0155, compress b2
  // -12.018, all-reduce -12.518. Finalize: decompress b0 -12.0195, copy_out -12.0215,
  // decompress b1 (3 us) -12.0245, copy_out (4 us) -12.0285, decompress b2 waits 12.518,
  // -12.5195, copy_out -12.5215, optimizer -13.5215 ms.
  CHECK(r.buckets[0].end == Time{6'504'500'000});
  CHECK(r.buckets[2].start == us(12018));
  CHECK(r.iteration == Time{13'521'500'000});
  // Hook compute: 2.5 + 5 + 2.5 us compress, 1.5 + 3 + 1.5 us decompress = 16 us.
  CHECK(r.hook_compute == us(16));
}

TEST_CASE("PowerSGD all-reduces P and Q per bucket", "[train][ddp]") {
  DdpOptions o = hand_options();
  o.hook = CommHook::PowerSgd;
  o.powersgd_rank = 4;
  const DdpResult r = run_timeline(o);
  // Each p_i is 500 x 500; (500 + 500) 4 2 = 8,000 < 250,000, so compressed:
  // P = 500 x 4 fp32 = 8,000 B, Q = 8,000 B. b1 holds two matrices: 16,000 B each.
  CHECK(r.buckets[0].collectives == 2);
  CHECK(r.buckets[0].wire_bytes == Bytes{16'000});
  CHECK(r.buckets[1].wire_bytes == Bytes{32'000});
}

TEST_CASE("gloo runs two collectives at once, sharing bandwidth", "[train][ddp]") {
  DdpOptions o = hand_options();
  o.overlap = false;
  o.backend = DdpBackend::Gloo;
  const DdpResult r = run_timeline(o);
  // All three launch at 12.008. b0 (1 ms) and b1 (2 ms) share: each at half speed, b0
  // ends at 14.008 with b1 half done; b2 (1 ms) then shares with b1's last 1 ms: both end
  // at 16.008. (NCCL, one at a time, ends b0 at 13.008.)
  CHECK(r.buckets[0].start == us(12008));
  CHECK(r.buckets[1].start == us(12008));
  CHECK(r.buckets[0].end == us(14008));
  CHECK(r.buckets[2].start == us(14008));
  CHECK(r.buckets[1].end == us(16008));
  CHECK(r.buckets[2].end == us(16008));
}

TEST_CASE("compute slows down while a collective runs", "[train][ddp]") {
  DdpOptions o = hand_options();
  o.compute_slowdown = 1.0;
  const DdpResult r = run_timeline(o);
  // L2's backward starts at 6.002 with b0's all-reduce (6.002-7.002) running: at half
  // speed it does 0.5 ms of its 2 ms by 7.002, then 1.5 ms at full speed: ends 8.502.
  Interval when;
  REQUIRE(find_task(r, "bwd L2", &when) != nullptr);
  CHECK(when.start == us(6002));
  CHECK(when.end == us(8502));
}

TEST_CASE("iteration 0 uses the single construction bucket", "[train][ddp]") {
  DdpOptions o = hand_options();
  o.first_iteration = true;
  const DdpResult r = run_timeline(o);
  // Default DDP (no find_unused): one bucket of 4e6 B, ready after p0's copy at 12.008,
  // all-reduce 4 ms -> 16.008, copy_out 8 us, optimizer 1 ms: 17.016 ms.
  REQUIRE(r.buckets.size() == 1);
  CHECK(r.buckets[0].end == us(16008));
  CHECK(r.iteration == us(17016));
}
}  // namespace collsim
