// ZeRO / FSDP timelines on hand models whose every time is chosen so that the timeline can
// be written down by hand (each comment derives the expected value before it is checked).
//
// Model: layers in forward order, each 1 ms forward and 2 ms backward (measured), each
// owning one parameter of 1,000 elements. Optimizer (whole model) 1 ms, so 0.25 ms on a
// 1/4 shard. Precision: Adam mixed (2 B parameters and gradients), so a 1,000-element
// unit all-gathers 2,000 B and reduce-scatters 2,000 B. Collective costs are lambdas.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/train/ddp_timeline.hpp"
#include "sim/train/sharded_timeline.hpp"
#include "tests/unit/test_time.hpp"

namespace collsim {
namespace {

using test::us;

// Layers named `names` (forward order), one 1,000-element parameter each.
Workload sharded_hand_model(const std::vector<std::string>& names) {
  nlohmann::json j = {{"name", "hand"}, {"measured_on", "test"}, {"optimizer", {{"time", "1ms"}}}};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string p = fmt::format("p{}", i);
    j["parameters"].push_back({{"name", p}, {"numel", 1000}, {"dtype", "float32"}});
    j["layers"].push_back({{"name", names[i]}, {"forward_time", "1ms"}, {"backward_time", "2ms"}, {"params", {p}}});
  }
  return parse_workload(j, "hand");
}

Workload blocks(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(fmt::format("blocks.{}.lin", i));
  return sharded_hand_model(names);
}

ComputeModel sharded_hand_device() {
  DeviceSpec d;
  d.name = "test";
  d.hbm_bandwidth = Bandwidth{1e12};
  return ComputeModel{d, "fp32", 1.0};
}

// All-gather 0.5 ms, reduce-scatter 0.25 ms, all-reduce 0.25 ms, whatever the size.
Time fsdp_cost(CollectiveOp op, Bytes, CommGroup) {
  switch (op) {
    case CollectiveOp::AllGather: return us(500);
    default: return us(250);
  }
}

ShardingOptions fsdp(Sharding s) {
  ShardingOptions o;
  o.strategy = s;
  return o;
}

std::size_t count_comm(const ShardedResult& r, const std::string& category) {
  std::size_t n = 0;
  for (const auto& c : r.program.comm) n += c.category == category ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("a collective waiting for a compute event holds the stream behind it", "[sharded]") {
  // Compute A 0-1 ms, B 1-2 ms. Collective X (0.5 ms) waits for A's end, Y (0.1 ms) is
  // issued after X: the stream runs in issue order, so Y waits too: X 1.0-1.5, Y 1.5-1.6.
  StreamProgram p;
  p.compute.push_back(ComputeTask{"A", "forward", us(1000), {}, {}, Time{}});
  p.compute.push_back(ComputeTask{"B", "forward", us(1000), {}, {}, Time{}});
  p.comm.push_back(CommTask{"X", "allgather", us(500), {}, {}, Bytes{}, true, {0}, Time{}, 0.0});
  p.comm.push_back(CommTask{"Y", "allgather", us(100), {}, {}, Bytes{}, true, {}, Time{}, 0.0});
  const StreamTimeline t = play_streams(p, StreamOptions{});
  CHECK(t.comm[0].start == us(1000));
  CHECK(t.comm[1].start == us(1500));
  CHECK(t.comm[1].end == us(1600));
  CHECK(t.end == us(2000));
}

TEST_CASE("ZeRO-2 reduce-scatters each bucket during backward", "[sharded]") {
  // 4 layers L0..L3, world 4, reduce bucket 4,000 B = 2,000 gradient elements.
  // Reduce-scatter 0.75 us per byte, all-gather 0.25 us per byte: a 2,000-element bucket
  // (4,000 B) reduces in 3 ms, a 2,000-element parameter chunk gathers in 1 ms.
  const Workload w = sharded_hand_model({"L0", "L1", "L2", "L3"});
  ShardingOptions o;
  o.strategy = Sharding::Zero2;
  o.reduce_bucket_bytes = Bytes{4000};
  auto cost = [](CollectiveOp op, Bytes b, CommGroup g) {
    CHECK(g == CommGroup::World);
    return Time{b.count * (op == CollectiveOp::ReduceScatter ? 750'000 : 250'000)};
  };
  const ShardedResult r = simulate_sharded(w, sharded_hand_device(), cost, o, 4);
  // Forward 0-4 ms; backward L3 4-6, L2 6-8, L1 8-10, L0 10-12 ms. Ready order p3 p2 p1
  // p0. DeepSpeed's rule: a gradient that would overflow the bucket reduces it first:
  // p3 (1,000), p2 (2,000: not > 2,000), p1 would make 3,000 > 2,000, so bucket 0 =
  // {p3, p2} is reduced in p1's hook, at the end of L1's backward (10 ms), overlapping
  // L0's backward: 10-13 ms. Bucket 1 = {p1, p0} at the end of backward (12 ms), behind
  // bucket 0 on the one stream: 13-16 ms.
  REQUIRE(r.buckets.size() == 2);
  CHECK(r.buckets[0].params == std::vector<std::size_t>{3, 2});
  CHECK(r.buckets[0].ready == us(10000));
  CHECK(r.buckets[0].reduce_start == us(10000));
  CHECK(r.buckets[0].reduce_end == us(13000));
  CHECK(r.buckets[1].params == std::vector<std::size_t>{1, 0});
  CHECK(r.buckets[1].ready == us(12000));
  CHECK(r.buckets[1].reduce_start == us(13000));
  CHECK(r.buckets[1].reduce_end == us(16000));
  // Optimizer on the 1/4 shard waits for both: 16-16.25 ms. Then the updated parameters
  // (4,000 elements) are all-gathered in two 2,000-element chunks: 16.25-17.25-18.25 ms.
  CHECK(r.optimizer == us(250));
  CHECK(r.iteration == us(18250));
  CHECK(r.forward == us(4000));
  CHECK(r.backward == us(8000));
  // Comm 3 + 3 + 1 + 1 = 8 ms, busy 10-16 and 16.25-18.25 = 8 ms; compute 12.25 ms, so
  // exposed = 18.25 - 12.25 = 6 ms and overlap (8 - 6) / 8 = 25 %.
  CHECK(r.comm_total == us(8000));
  CHECK(r.comm_busy == us(8000));
  CHECK(r.exposed_comm == us(6000));
  CHECK(r.overlap_percent == Approx(25.0));
  // ZeRO paper volume: Ψ reduce-scattered + Ψ all-gathered (Ψ = 4,000).
  CHECK(r.reduced_elements == 4000);
  CHECK(r.gathered_elements == 4000);
  CHECK(r.peak_unsharded == Bytes{0});
  CHECK(r.units.empty());
}

TEST_CASE("ZeRO-Offload: gradient shards down after each reduce, the CPU's step, the shard back", "[sharded]") {
  // The ZeRO-2 case above, its optimizer offloaded. The workload's optimizer moves 16 B per
  // parameter; PCIe 1 MB/s and DRAM 4 MB/s for this rank. A bucket's shard is 2,000 / 4 =
  // 500 gradient elements, 1,000 B: 1 ms down. The CPU's step on the 1,000-element shard:
  // 16,000 B, 4 ms; the updated 16-bit shard, 2,000 B: 2 ms up.
  nlohmann::json j = {{"name", "hand"}, {"measured_on", "test"}, {"optimizer", {{"memory_bytes_per_param", 16}}}};
  for (int i = 0; i < 4; ++i) {
    const std::string p = fmt::format("p{}", i);
    j["parameters"].push_back({{"name", p}, {"numel", 1000}, {"dtype", "float32"}});
    j["layers"].push_back({{"name", fmt::format("L{}", i)}, {"forward_time", "1ms"}, {"backward_time", "2ms"}, {"params", {p}}});
  }
  const Workload w = parse_workload(j, "hand");
  ShardingOptions o;
  o.strategy = Sharding::Zero2;
  o.reduce_bucket_bytes = Bytes{4000};
  o.offload_optimizer = true;
  o.host_link = HostLink{Bandwidth{1e6}, Bandwidth{4e6}};
  auto cost = [](CollectiveOp op, Bytes b, CommGroup) {
    return Time{b.count * (op == CollectiveOp::ReduceScatter ? 750'000 : 250'000)};
  };
  const ShardedResult r = simulate_sharded(w, sharded_hand_device(), cost, o, 4);
  // Bucket 0 reduces 10-13 ms, its shard goes down 13-14; bucket 1 (ready at 12) reduces
  // 14-17, down 17-18. The CPU's step waits for both copies: 18-22; the shard comes up
  // 22-24, then the two 1 ms parameter gathers: 24-26 ms.
  REQUIRE(r.buckets.size() == 2);
  CHECK(r.buckets[0].reduce_end == us(13000));
  CHECK(r.buckets[1].reduce_start == us(14000));
  CHECK(r.optimizer == us(4000));
  CHECK(r.offload_copies == us(4000));
  CHECK(count_comm(r, "offload") == 3);
  CHECK(r.comm_total == us(12000));
  CHECK(r.iteration == us(26000));
  // Offloading needs a host link with a DRAM rate, a workload optimizer in bytes per
  // parameter, and a DeepSpeed stage: each refusal names offload_optimizer.
  const auto field = [&](const ShardingOptions& bad, const Workload& wl) {
    try {
      (void)simulate_sharded(wl, sharded_hand_device(), cost, bad, 4);
    } catch (const ConfigError& e) {
      return e.field();
    }
    return std::string("(no error)");
  };
  ShardingOptions bad = o;
  bad.host_link.memory = Bandwidth{};
  CHECK(field(bad, w) == "offload_optimizer");
  bad = o;
  bad.host_link = HostLink{};
  CHECK(field(bad, w) == "offload_optimizer");
  bad = o;
  bad.strategy = Sharding::FsdpFullShard;
  CHECK(field(bad, w) == "offload_optimizer");
  CHECK(field(o, sharded_hand_model({"L0", "L1", "L2", "L3"})) == "offload_optimizer");  // a measured GPU time only
  bad.strategy = Sharding::Zero3;
  CHECK(field(bad, w) == "(no error)");
}

TEST_CASE("ZeRO-1 reduces only after the whole backward, once per optimizer step", "[sharded]") {
  const Workload w = sharded_hand_model({"L0", "L1", "L2", "L3"});
  ShardingOptions o;
  o.strategy = Sharding::Zero1;
  o.reduce_bucket_bytes = Bytes{4000};
  o.accumulate = 2;
  auto cost = [](CollectiveOp op, Bytes b, CommGroup) {
    return Time{b.count * (op == CollectiveOp::ReduceScatter ? 750'000 : 250'000)};
  };
  const ShardedResult r = simulate_sharded(w, sharded_hand_device(), cost, o, 4);
  // Two micro-steps of 4 + 8 ms compute: backward ends at 24 ms. ZeRO-1 keeps full
  // gradients, so only the last micro-step reduces: both buckets are issued at 24 ms and
  // run 24-27, 27-30 ms; optimizer 30-30.25; two 1 ms gathers: 32.25 ms.
  REQUIRE(r.buckets.size() == 2);
  CHECK(count_comm(r, "reducescatter") == 2);
  CHECK(r.buckets[0].reduce_start == us(24000));
  CHECK(r.buckets[1].reduce_end == us(30000));
  CHECK(r.iteration == us(32250));
  CHECK(r.reduced_elements + r.gathered_elements == 8000);  // 2Ψ per optimizer step

  // ZeRO-2 keeps only its gradient shard, so it reduces in every micro-step: 4 buckets.
  o.strategy = Sharding::Zero2;
  const ShardedResult z2 = simulate_sharded(w, sharded_hand_device(), cost, o, 4);
  CHECK(count_comm(z2, "reducescatter") == 4);
  CHECK(z2.reduced_elements == 8000);
}

TEST_CASE("FSDP FULL_SHARD: gathers prefetched over the previous unit, BACKWARD_PRE", "[sharded]") {
  // Three units blocks.0..2 (one layer each), world 4, all-gather 0.5 ms, reduce-scatter
  // 0.25 ms, at most 2 all-gathers in flight.
  const ShardedResult r = simulate_sharded(blocks(3), sharded_hand_device(), fsdp_cost, fsdp(Sharding::FsdpFullShard), 4);
  REQUIRE(r.units.size() == 3);
  CHECK_FALSE(r.units[0].root);
  const auto& t = r.unit_timings;
  // Forward. AG0 0-0.5; fwd 0 0.5-1.5 (then unit 0 is freed). AG1 needs no free yet (one
  // gather in flight), runs right behind AG0: 0.5-1.0, overlapping unit 0's forward.
  CHECK(t[0].forward_gather_start == us(0));
  CHECK(t[0].forward_gather_end == us(500));
  CHECK(t[1].forward_gather_start == us(500));
  CHECK(t[1].forward_gather_end == us(1000));
  // fwd 1 1.5-2.5. AG2 is the third gather: the limiter waits for unit 0's free (end of
  // its forward, 1.5 ms) although the stream is idle from 1.0 ms: 1.5-2.0. fwd 2 2.5-3.5.
  CHECK(t[2].forward_gather_start == us(1500));
  CHECK(t[2].forward_gather_end == us(2000));
  // Backward, unit order 2, 1, 0. Pre-backward 2: its gather waits for unit 1's free
  // (2.5 ms): 2.5-3.0; BACKWARD_PRE prefetches unit 1 right behind it: 3.0-3.5.
  CHECK(t[2].backward_gather_start == us(2500));
  CHECK(t[2].backward_gather_end == us(3000));
  CHECK(t[1].backward_gather_start == us(3000));
  CHECK(t[1].backward_gather_end == us(3500));
  // bwd 2 3.5-5.5; RS2 5.5-5.75. Pre-backward 1 prefetches unit 0 (limiter: unit 2's
  // forward free, 3.5 ms, long past) behind RS2: 5.75-6.25, overlapping bwd 1 (5.5-7.5),
  // which needed no wait: its gather finished at 3.5 ms.
  CHECK(t[2].reduce_start == us(5500));
  CHECK(t[2].reduce_end == us(5750));
  CHECK(t[0].backward_gather_start == us(5750));
  CHECK(t[0].backward_gather_end == us(6250));
  // RS1 7.5-7.75; bwd 0 7.5-9.5; RS0 9.5-9.75; optimizer on the shard 9.75-10.0 ms.
  CHECK(t[1].reduce_end == us(7750));
  CHECK(t[0].reduce_start == us(9500));
  CHECK(t[0].reduce_end == us(9750));
  CHECK(r.iteration == us(10000));
  // Compute 3 + 6 + 0.25 = 9.25 ms: exposed 0.75 ms (the first gather and the last RS).
  CHECK(r.exposed_comm == us(750));
  // 6 gathers of 0.5 + 3 RS of 0.25 = 3.75 ms.
  CHECK(r.comm_total == us(3750));
  // Peak unsharded: at 3.0 ms unit 2 (forward, freed 3.5) and units 2 and 1 (backward) =
  // 3 x 2,000 B.
  CHECK(r.peak_unsharded == Bytes{6000});
  // Volume: gathered 2Ψ (forward + backward), reduced Ψ, Ψ = 3,000.
  CHECK(r.gathered_elements == 6000);
  CHECK(r.reduced_elements == 3000);
}

TEST_CASE("FSDP backward prefetch POST and None, and the all-gather limit", "[sharded]") {
  ShardingOptions o = fsdp(Sharding::FsdpFullShard);
  SECTION("BACKWARD_POST") {
    o.backward_prefetch = BackwardPrefetch::Post;
    const ShardedResult r = simulate_sharded(blocks(3), sharded_hand_device(), fsdp_cost, o, 4);
    const auto& t = r.unit_timings;
    // Forward as with PRE; bwd 2 3.5-5.5. Post-backward 2 issues unit 1's gather after
    // the gradient computation, before RS2: AG 5.5-6.0, RS2 6.0-6.25 overlapping bwd 1
    // (6.0-8.0). Post-backward 1: AG0 8.0-8.5, RS1 8.5-8.75; bwd 0 8.5-10.5; RS0
    // 10.5-10.75; optimizer 10.75-11.0.
    CHECK(t[1].backward_gather_start == us(5500));
    CHECK(t[2].reduce_start == us(6000));
    CHECK(t[0].backward_gather_start == us(8000));
    CHECK(r.iteration == us(11000));
  }
  SECTION("no backward prefetch") {
    o.backward_prefetch = BackwardPrefetch::None;
    const ShardedResult r = simulate_sharded(blocks(3), sharded_hand_device(), fsdp_cost, o, 4);
    const auto& t = r.unit_timings;
    // bwd 2 3.5-5.5, RS2 5.5-5.75; unit 1's gather only at its pre-backward, behind RS2:
    // 5.75-6.25; bwd 1 6.25-8.25; RS1 8.25-8.5; AG0 8.5-9.0; bwd 0 9.0-11.0; RS0 -11.25;
    // optimizer -11.5 ms.
    CHECK(t[1].backward_gather_start == us(5750));
    CHECK(t[0].backward_gather_start == us(8500));
    CHECK(r.iteration == us(11500));
  }
  SECTION("no limit: the third gather is not held back") {
    o.all_gather_limit = 0;
    const ShardedResult r = simulate_sharded(blocks(3), sharded_hand_device(), fsdp_cost, o, 4);
    // Without the limiter AG2 runs right behind AG1: 1.0-1.5 instead of 1.5-2.0.
    CHECK(r.unit_timings[2].forward_gather_start == us(1000));
  }
  SECTION("forward_prefetch changes nothing when the CPU keeps ahead") {
    o.forward_prefetch = true;
    const ShardedResult r = simulate_sharded(blocks(3), sharded_hand_device(), fsdp_cost, o, 4);
    // The CPU enqueues every gather as early as the limiter allows either way (torch's
    // docs: forward_prefetch helps CPU-bound workloads only): same 10 ms as implicit.
    CHECK(r.iteration == us(10000));
  }
}

TEST_CASE("communication volume per step follows the ZeRO paper", "[sharded]") {
  // Ψ = 4,000 elements on 4 ranks; gathered + reduced elements per optimizer step.
  const Workload w = blocks(4);
  const double psi = 4000;
  // DDP: one all-reduce of every gradient (4 B fp32 each) = Ψ elements all-reduced,
  // which the ZeRO paper counts as reduce-scatter + all-gather = 2Ψ.
  const DdpResult ddp = simulate_ddp(w, sharded_hand_device(), [](CollectiveOp, Bytes) { return us(1); }, DdpOptions{});
  std::int64_t ddp_bytes = 0;
  for (const auto& c : ddp.program.comm) {
    if (c.category == "allreduce") ddp_bytes += c.bytes.count;
  }
  const double ddp_volume = 2.0 * static_cast<double>(ddp_bytes / 4);
  CHECK(ddp_volume == 2 * psi);
  auto volume = [&](Sharding s) {
    const ShardedResult r = simulate_sharded(w, sharded_hand_device(), fsdp_cost, fsdp(s), 4);
    return r.gathered_elements + r.reduced_elements;
  };
  // Stages 1 and 2: reduce-scatter Ψ + all-gather Ψ = 2Ψ, as DDP.
  CHECK(volume(Sharding::Zero1) == 2 * psi);
  CHECK(volume(Sharding::Zero2) == 2 * psi);
  // Stage 3: gather Ψ in forward, Ψ in backward, reduce-scatter Ψ = 3Ψ = 1.5 x DDP.
  CHECK(volume(Sharding::Zero3) == 3 * psi);
  CHECK(volume(Sharding::FsdpFullShard) / ddp_volume == Approx(1.5));
}

TEST_CASE("SHARD_GRAD_OP keeps parameters through backward", "[sharded]") {
  const ShardedResult r = simulate_sharded(blocks(3), sharded_hand_device(), fsdp_cost, fsdp(Sharding::FsdpShardGradOp), 4);
  for (const auto& t : r.unit_timings) {
    CHECK(t.backward_gather_start == Time{});
    CHECK(t.backward_gather_end == Time{});
  }
  CHECK(count_comm(r, "allgather") == 3);
  // No unit is freed after forward, so the limiter never holds a gather: AG0 0-0.5, AG1
  // 0.5-1.0, AG2 1.0-1.5; forward 0.5-3.5; backward 3.5-9.5 without gathers, RS after each
  // unit (RS0 9.5-9.75); optimizer 9.75-10.0 ms.
  CHECK(r.unit_timings[2].forward_gather_start == us(1000));
  CHECK(r.iteration == us(10000));
  // All three units unsharded at once from 1.0 ms until unit 2's backward ends (5.5 ms).
  CHECK(r.peak_unsharded == Bytes{6000});
  CHECK(r.gathered_elements == 3000);
  CHECK(r.reduced_elements == 3000);
}

TEST_CASE("HYBRID_SHARD shards inside a node and all-reduces shards across nodes", "[sharded]") {
  ShardingOptions o = fsdp(Sharding::FsdpHybridShard);
  o.ranks_per_node = 4;
  std::vector<std::tuple<CollectiveOp, std::int64_t, CommGroup>> calls;
  auto cost = [&calls](CollectiveOp op, Bytes b, CommGroup g) {
    calls.emplace_back(op, b.count, g);
    return fsdp_cost(op, b, g);
  };
  const ShardedResult r = simulate_sharded(blocks(3), sharded_hand_device(), cost, o, 8);
  // Every gather and reduce-scatter runs in the node (4 ranks, 2,000 B each); after each
  // reduce-scatter the 1,000 / 4 = 250-element shard (500 B) is all-reduced across nodes.
  int inter = 0;
  for (const auto& [op, bytes, group] : calls) {
    if (op == CollectiveOp::AllReduce) {
      ++inter;
      CHECK(group == CommGroup::InterNode);
      CHECK(bytes == 500);
    } else {
      CHECK(group == CommGroup::IntraNode);
      CHECK(bytes == 2000);
    }
  }
  CHECK(inter == 3);
  // As FULL_SHARD until RS2 5.5-5.75, then its all-reduce 5.75-6.0, so unit 0's prefetch
  // runs 6.0-6.5. bwd 1 5.5-7.5; RS1 + AR1 7.5-8.0; bwd 0 (gather done 6.5) 7.5-9.5; RS0 +
  // AR0 9.5-10.0; optimizer on a 1/4 shard 10.0-10.25 ms.
  CHECK(r.unit_timings[2].reduce_end == us(6000));
  CHECK(r.unit_timings[0].backward_gather_start == us(6000));
  CHECK(r.iteration == us(10250));
  // Volume: 2Ψ gathered + Ψ reduced in the node, plus Ψ/4 all-reduced (counted twice).
  CHECK(r.gathered_elements == 6000 + 750);
  CHECK(r.reduced_elements == 3000 + 750);
}

TEST_CASE("FSDP units: blocks and the root", "[sharded]") {
  // embed, blocks.0, blocks.1, head: the root holds embed and head, first in the list.
  const Workload w = sharded_hand_model({"embed", "blocks.0.attn", "blocks.0.mlp", "blocks.1.attn", "head"});
  const auto units = make_units(w, fsdp(Sharding::FsdpFullShard));
  REQUIRE(units.size() == 3);
  CHECK(units[0].root);
  CHECK(units[0].params == std::vector<std::size_t>{0, 4});
  CHECK(units[1].name == "blocks.0");
  CHECK(units[1].first_layer == 1);
  CHECK(units[1].last_layer == 2);
  CHECK(units[1].numel == 2000);
  CHECK(units[2].name == "blocks.1");
  // Size-based policy, 2,000 elements: layers 0-1, 2-3, then layer 4 stays with the root.
  ShardingOptions o = fsdp(Sharding::FsdpFullShard);
  o.unit_policy = UnitPolicy::MinParams;
  o.min_unit_params = 2000;
  const auto sized = make_units(w, o);
  REQUIRE(sized.size() == 3);
  CHECK(sized[0].root);
  CHECK(sized[0].params == std::vector<std::size_t>{4});
  CHECK(sized[1].params == std::vector<std::size_t>{0, 1});

  // The root is gathered once, first, and kept through forward: 3 forward gathers and 2
  // backward ones (the root is not resharded after forward), and 3 reduce-scatters.
  const ShardedResult r = simulate_sharded(w, sharded_hand_device(), fsdp_cost, fsdp(Sharding::FsdpFullShard), 4);
  CHECK(count_comm(r, "allgather") == 5);
  CHECK(count_comm(r, "reducescatter") == 3);
  CHECK(r.unit_timings[0].backward_gather_end == Time{});
}

TEST_CASE("FSDP with gradient accumulation re-gathers and reduces every micro-step", "[sharded]") {
  ShardingOptions o = fsdp(Sharding::FsdpFullShard);
  o.accumulate = 2;
  const ShardedResult r = simulate_sharded(blocks(3), sharded_hand_device(), fsdp_cost, o, 4);
  // Without no_sync(): 2 x (3 forward + 3 backward) gathers and 2 x 3 reduce-scatters.
  CHECK(count_comm(r, "allgather") == 12);
  CHECK(count_comm(r, "reducescatter") == 6);
  CHECK(r.gathered_elements == 12000);
  CHECK(r.reduced_elements == 6000);
}

TEST_CASE("bad sharded options are ConfigErrors", "[sharded]") {
  const Workload w = blocks(2);
  auto run = [&](const ShardingOptions& o, int world = 4) { return simulate_sharded(w, sharded_hand_device(), fsdp_cost, o, world); };
  REQUIRE_THROWS_AS(run(fsdp(Sharding::Ddp)), ConfigError);
  REQUIRE_THROWS_AS(run(fsdp(Sharding::Zero3), 0), ConfigError);
  ShardingOptions o = fsdp(Sharding::FsdpFullShard);
  o.accumulate = 0;
  REQUIRE_THROWS_AS(run(o), ConfigError);
  o = fsdp(Sharding::FsdpFullShard);
  o.all_gather_limit = -1;
  REQUIRE_THROWS_AS(run(o), ConfigError);
  o = fsdp(Sharding::FsdpHybridShard);
  o.ranks_per_node = 3;
  REQUIRE_THROWS_AS(run(o, 8), ConfigError);
  o = fsdp(Sharding::Zero2);
  o.reduce_bucket_bytes = Bytes{1};
  REQUIRE_THROWS_AS(run(o), ConfigError);
  o = fsdp(Sharding::Zero2);
  o.precision.grad_bytes = 0;
  REQUIRE_THROWS_AS(run(o), ConfigError);
  o = fsdp(Sharding::FsdpFullShard);
  o.unit_policy = UnitPolicy::MinParams;
  o.min_unit_params = 0;
  REQUIRE_THROWS_AS(run(o), ConfigError);
}

// The library speaks in ShardingOptions fields, not flags: the command line and plan files
// map the field to their own words (sim/cli/option_fields, sim/plan/plan_fields).
std::string field_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    CHECK(e.source().empty());
    return e.field();
  }
  return "(no error)";
}

TEST_CASE("sharded option errors name the options field", "[sharded][vocabulary]") {
  const Workload w = blocks(2);
  auto run = [&](const ShardingOptions& o, int world = 4) {
    return [&w, o, world] { (void)simulate_sharded(w, sharded_hand_device(), fsdp_cost, o, world); };
  };
  CHECK(field_of(run(fsdp(Sharding::Ddp))) == "sharding");
  CHECK(field_of(run(fsdp(Sharding::Zero3), 0)) == "world_size");
  ShardingOptions o = fsdp(Sharding::FsdpFullShard);
  o.accumulate = 0;
  CHECK(field_of(run(o)) == "accumulate");
  o = fsdp(Sharding::FsdpFullShard);
  o.all_gather_limit = -1;
  CHECK(field_of(run(o)) == "all_gather_limit");
  o = fsdp(Sharding::FsdpHybridShard);
  o.ranks_per_node = 3;
  CHECK(field_of(run(o, 8)) == "ranks_per_node");
  o = fsdp(Sharding::Zero2);
  o.reduce_bucket_bytes = Bytes{1};  // below one 2-byte gradient element
  CHECK(field_of(run(o)) == "reduce_bucket_bytes");
  o = fsdp(Sharding::Zero2);
  o.precision.grad_bytes = 0;
  CHECK(field_of(run(o)) == "precision");
  o = fsdp(Sharding::FsdpFullShard);
  o.unit_policy = UnitPolicy::MinParams;
  o.min_unit_params = 0;
  CHECK(field_of(run(o)) == "min_unit_params");
  DdpOptions d;
  d.accumulate = 0;
  CHECK(field_of([&] { (void)simulate_ddp(w, sharded_hand_device(), [](CollectiveOp, Bytes) { return Time{}; }, d); }) == "accumulate");
  d = DdpOptions{};
  d.hook = CommHook::PowerSgd;  // the hand model's parameters have no shapes
  CHECK(field_of([&] { (void)simulate_ddp(w, sharded_hand_device(), [](CollectiveOp, Bytes) { return Time{}; }, d); }) == "hook");
}

}  // namespace collsim
