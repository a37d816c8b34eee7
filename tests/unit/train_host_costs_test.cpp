// Host launch costs of a DDP step, derived by hand on the hand model (ddp_hand_model.hpp).
// Program order of the step's tasks, as one host thread launches them:
//   fwd L0, fwd L1, fwd L2, fwd L3, bwd L3, copy_in p3, [all-reduce b0], bwd L2,
//   copy_in p2, bwd L1, copy_in p1, [all-reduce b1], bwd L0, copy_in p0, [all-reduce b2],
//   copy_out b0, copy_out b1, copy_out b2, optimizer
// Without launch costs the step ends at 14.010 ms (train_ddp_timeline_test.cpp).
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/train/ddp_timeline.hpp"
#include "tests/unit/ddp_hand_model.hpp"
#include "tests/unit/test_time.hpp"

namespace collsim {
namespace {

using test::us;

DdpResult run_host_costs(const DdpOptions& o) { return simulate_ddp(hand::model(), hand::device(), hand::one_ns_per_byte, o); }

Interval task(const DdpResult& r, const std::string& name) {
  for (std::size_t i = 0; i < r.program.compute.size(); ++i) {
    if (r.program.compute[i].name == name) return r.timeline.compute[i];
  }
  FAIL("no task " << name);
  return {};
}

}  // namespace

TEST_CASE("the host thread launches tasks in program order", "[train][host]") {
  StreamProgram p;
  // A (10 us) issues X (5 us of comm) when it ends; then B and C of 1 us each.
  p.compute.push_back(ComputeTask{"A", "forward", us(10), {}, {0}, us(4)});
  p.compute.push_back(ComputeTask{"B", "forward", us(1), {}, {}, us(4)});
  p.compute.push_back(ComputeTask{"C", "forward", us(1), {}, {}, us(4)});
  p.comm.push_back(CommTask{"X", "allreduce", us(5), {}, {}, Bytes{}, false, {}, us(3), 0.0});
  // Host: A at 4, X at 4 + 3 = 7, B at 11, C at 15.
  const HostLaunches h = host_launch_times(p);
  CHECK(h.compute == std::vector<Time>{us(4), us(11), us(15)});
  CHECK(h.comm == std::vector<Time>{us(7)});
  CHECK(h.total == us(15));
  // GPU: A 4-14; X issued at 14 (launched at 7), 14-19; B 14-15; C waits for its launch: 15-16.
  const StreamTimeline t = play_streams(p, StreamOptions{});
  CHECK(t.compute[0].start == us(4));
  CHECK(t.compute[0].end == us(14));
  CHECK(t.comm[0].start == us(14));
  CHECK(t.comm[0].end == us(19));
  CHECK(t.compute[1].start == us(14));
  CHECK(t.compute[2].start == us(15));
  CHECK(t.compute[2].end == us(16));
  CHECK(t.end == us(19));
  // Short kernels become launch-bound: with 1 us of work each, A 4-5, B 11-12, C 15-16.
  p.compute[0].work = us(1);
  const StreamTimeline bound = play_streams(p, StreamOptions{});
  CHECK(bound.compute[1].start == us(11));
  CHECK(bound.compute[1].end == us(12));
  // X is issued at A's end (5) but launched only at 7.
  CHECK(bound.comm_issued[0] == us(7));
  CHECK(bound.comm[0].start == us(7));
  CHECK(bound.end == us(16));
}

TEST_CASE("a cheap host only delays the step by its first launch", "[train][host]") {
  DdpOptions o = hand::options();
  o.host.kernel_launch = us(100);
  o.host.collective_launch = us(300);
  const DdpResult r = run_host_costs(o);
  // Host: fwd L0..L3 at 100..400, bwd L3 500, copy p3 600, b0 900, bwd L2 1000, copy p2
  // 1100, bwd L1 1200, copy p1 1300, b1 1600, bwd L0 1700, copy p0 1800, b2 2100, copy_outs
  // 2200, 2300, 2400, optimizer 2500: always ahead of the GPU after fwd L0, whose launch
  // at 100 us shifts the whole 14.010 ms step.
  CHECK(r.host_launch == us(2500));
  CHECK(task(r, "fwd L0").start == us(100));
  CHECK(r.buckets[0].start == us(6102));
  CHECK(r.buckets[2].end == us(13108));
  CHECK(r.iteration == us(14110));
  // The compute stream idles 100 us for the host, then waits 0.994 ms for b2 as without.
  CHECK(r.host_wait == us(100));
  CHECK(r.exposed_comm == us(994));
}

TEST_CASE("an expensive host makes the step launch-bound", "[train][host]") {
  DdpOptions o = hand::options();
  o.host.kernel_launch = us(3000);
  o.host.collective_launch = us(300);
  const DdpResult r = run_host_costs(o);
  // Host: fwd L0..L3 at 3, 6, 9, 12 ms; bwd L3 15, copy p3 18, b0 18.3; bwd L2 21.3, copy p2
  // 24.3, bwd L1 27.3, copy p1 30.3, b1 30.6; bwd L0 33.6, copy p0 36.6, b2 36.9; copy_outs
  // 39.9, 42.9, 45.9; optimizer 48.9 ms.
  CHECK(r.host_launch == us(48900));
  // GPU: fwd L3 12-13, bwd L3 15-17, copy p3 18-18.002; b0 ready at 18.002, launched at
  // 18.3: 18.3-19.3. b1 launched 30.6: 30.6-32.6; b2 36.9-37.9. The optimizer runs at its
  // launch, 48.9-49.9 ms.
  CHECK(task(r, "fwd L3").start == us(12000));
  CHECK(task(r, "bwd L3").end == us(17000));
  CHECK(r.buckets[0].ready == us(18002));
  CHECK(r.buckets[0].launched == us(18300));
  CHECK(r.buckets[0].start == us(18300));
  CHECK(r.buckets[1].start == us(30600));
  CHECK(r.buckets[2].end == us(37900));
  CHECK(task(r, "copy_out bucket 2").start == us(45900));
  CHECK(r.iteration == us(49900));
  // Idle before each task until its launch: 3 ms before fwd L0; 2 ms before fwd L1..L3 and
  // bwd L3; 1 ms before each copy_in; 3.298 before bwd L2, bwd L0 and copy_out b0; 2.998
  // before bwd L1, copy_out b1 and the optimizer; 2.996 before copy_out b2: 36.884 ms. With
  // 13.016 ms of compute, nothing is left for communication: every collective is hidden.
  CHECK(r.host_wait == us(36884));
  CHECK(r.exposed_comm == Time{});
}

TEST_CASE("a captured CUDA graph pays one launch for the whole step", "[train][host]") {
  DdpOptions o = hand::options();
  o.host.kernel_launch = us(3000);
  o.host.collective_launch = us(300);
  o.host.cuda_graph = true;
  const DdpResult r = run_host_costs(o);
  // One graph launch of 3 ms, then the GPU runs the 14.010 ms step unhindered.
  CHECK(r.host_launch == us(3000));
  CHECK(task(r, "fwd L0").start == us(3000));
  CHECK(r.iteration == us(17010));
}

TEST_CASE("graph capture refuses steps it cannot hold", "[train][host]") {
  DdpOptions o = hand::options();
  o.host.cuda_graph = true;
  const auto refused = [](const DdpOptions& bad, const std::string& why) {
    try {
      (void)run_host_costs(bad);
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(e.field() == "cuda_graph");
      CHECK_THAT(e.expected(), Catch::Contains(why));
    }
  };
  DdpOptions first = o;
  first.first_iteration = true;
  refused(first, "never iteration 0");
  DdpOptions gloo = o;
  gloo.backend = DdpBackend::Gloo;
  refused(gloo, "the nccl backend");
  DdpOptions dynamic = o;
  dynamic.buckets.find_unused_parameters = true;
  refused(dynamic, "a static graph");
  dynamic.buckets.static_graph = true;
  CHECK(run_host_costs(dynamic).iteration.ps > 0);
}

TEST_CASE("default host costs: GPUs of the catalogue launch, CPU ranks do not", "[train][host]") {
  DeviceSpec gpu;
  gpu.name = "H100";
  const HostCosts h = default_host_costs(gpu, us(5));
  CHECK(h.kernel_launch == Time::from_seconds(kKernelLaunchUs * 1e-6));
  CHECK(h.collective_launch == us(5));
  CHECK_FALSE(h.cuda_graph);
  DeviceSpec cpu;
  cpu.name = "Xeon test bed host";
  const HostCosts none = default_host_costs(cpu, us(5));
  CHECK(none.kernel_launch == Time{});
  CHECK(none.collective_launch == Time{});
}

}  // namespace collsim
