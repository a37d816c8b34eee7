// Compute slowed by NCCL's collectives (interference.hpp), derived by hand.
#include <catch2/catch.hpp>

#include "sim/train/ddp_timeline.hpp"
#include "sim/train/interference.hpp"
#include "tests/unit/ddp_hand_model.hpp"
#include "tests/unit/test_time.hpp"

namespace collsim {
namespace {

using test::us;

DeviceSpec interference_gpu(int sms, double hbm_gb_per_s) {
  DeviceSpec d;
  d.name = "test GPU";
  d.sms = sms;
  d.hbm_bandwidth = Bandwidth::gb_per_s(hbm_gb_per_s);
  return d;
}

}  // namespace

TEST_CASE("a collective's SM and HBM share slow compute", "[train][interference]") {
  // 8 channels of 80 SMs: f = 0.1, s = 0.1 / 0.9.
  CHECK(collective_compute_slowdown(8, 0, interference_gpu(80, 900)) == Approx(1.0 / 9.0));
  // 2 channels at 180 GB/s busbw on 900 GB/s HBM: f = max(2/80, 2 x 180 / 900) = 0.4, s = 2/3.
  CHECK(collective_compute_slowdown(2, 180, interference_gpu(80, 900)) == Approx(2.0 / 3.0));
  // More channels than the share's cap: f = 0.9, s = 9.
  CHECK(collective_compute_slowdown(200, 0, interference_gpu(80, 900)) == Approx(9.0));
  // No SM count, no HBM figure (CPU ranks): nothing.
  CHECK(collective_compute_slowdown(8, 10, DeviceSpec{}) == 0.0);
  // Predictions: the ideal protocol models no kernels.
  CollectivePrediction p;
  p.channels = 8;
  p.protocol = Protocol::Simple;
  CHECK(prediction_compute_slowdown(p, interference_gpu(80, 900)) == Approx(1.0 / 9.0));
  p.protocol = Protocol::Ideal;
  CHECK(prediction_compute_slowdown(p, interference_gpu(80, 900)) == 0.0);
  CHECK(prediction_compute_slowdown(std::nullopt, interference_gpu(80, 900)) == 0.0);
}

TEST_CASE("the largest running collective's slowdown applies", "[train][interference]") {
  StreamProgram p;
  p.compute.push_back(ComputeTask{"A", "backward", us(10), {}, {}, Time{}});
  p.comm.push_back(CommTask{"X", "allreduce", us(4), {}, {}, Bytes{}, true, {}, Time{}, 1.0});
  // A runs at half speed while X runs (0-4 us): 2 us of work, then 8 us at full speed.
  StreamOptions o;
  CHECK(play_streams(p, o).compute[0].end == us(12));
  // A uniform slowdown of 0.5 is smaller than X's own 1.0: the same.
  o.compute_slowdown = 0.5;
  CHECK(play_streams(p, o).compute[0].end == us(12));
  // A uniform 3.0 is larger: A does 1 us by 4 us, then 9 us: ends at 13 us.
  o.compute_slowdown = 3.0;
  CHECK(play_streams(p, o).compute[0].end == us(13));
}

TEST_CASE("DDP's collectives slow the backward by their own share", "[train][interference]") {
  DdpOptions o = hand::options();
  o.comm_interference = [](CollectiveOp, Bytes b) { return b == Bytes{1'000'000} ? 1.0 : 0.0; };
  const DdpResult r = simulate_ddp(hand::model(), hand::device(), hand::one_ns_per_byte, o);
  // b0 (1e6 B, slowdown 1) runs 6.002-7.002 under L2's backward: 0.5 ms done by 7.002, then
  // 1.5 ms: L2 ends at 8.502. b1 (2e6 B) has no slowdown: L1 8.504-10.504 as without.
  for (std::size_t i = 0; i < r.program.compute.size(); ++i) {
    if (r.program.compute[i].name == "bwd L2") CHECK(r.timeline.compute[i].end == us(8502));
    if (r.program.compute[i].name == "bwd L1") CHECK(r.timeline.compute[i].end == us(10504));
  }
  CHECK(r.program.comm[0].compute_slowdown == 1.0);
  CHECK(r.program.comm[1].compute_slowdown == 0.0);
}

TEST_CASE("the GPU catalogue's SM counts reach the device", "[train][interference]") {
  CHECK(find_device("V100")->sms == 80);
  CHECK(find_device("A100")->sms == 108);
  CHECK(find_device("H100")->sms == 132);
  CHECK(find_device("H20")->sms == 0);  // no published figure
}

}  // namespace collsim
