// The Chrome trace of a DDP step: valid JSON in the trace event format, one track per
// stream, and slices that agree with the per-bucket table and the layer times.
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/report/trace_check.hpp"
#include "sim/report/trace_writer.hpp"

namespace collsim {
namespace {

// Two layers (1 ms forward, 2 ms backward each), one fp32 parameter of 250,000 elements
// (1e6 B) each; HBM 1e12 B/s; collectives cost `ps_per_byte` (default 1 ns per byte).
DdpResult two_layer_step(DdpBackend backend = DdpBackend::Nccl, std::int64_t ps_per_byte = 1000) {
  nlohmann::json j = {{"name", "two"}, {"measured_on", "test"}, {"optimizer", {{"time", "500us"}}}};
  for (int i = 0; i < 2; ++i) {
    j["parameters"].push_back({{"name", "p" + std::to_string(i)}, {"numel", 250000}, {"dtype", "float32"}});
    j["layers"].push_back({{"name", "L" + std::to_string(i)}, {"forward_time", "1ms"}, {"backward_time", "2ms"},
                           {"params", {"p" + std::to_string(i)}}});
  }
  DeviceSpec d;
  d.name = "test";
  d.hbm_bandwidth = Bandwidth{1e12};
  DdpOptions o;
  o.buckets.first_bucket_cap = Bytes{1'000'000};
  o.buckets.bucket_cap = Bytes{1'000'000};
  o.backend = backend;
  return simulate_ddp(parse_workload(j, "two"), ComputeModel{d, "fp32", 1.0},
                      [ps_per_byte](CollectiveOp, Bytes b) { return Time{b.count * ps_per_byte}; }, o);
}

}  // namespace

TEST_CASE("trace is Chrome trace event JSON whose slices match the bucket table", "[train][trace]") {
  const DdpResult r = two_layer_step();
  std::ostringstream out;
  write_chrome_trace(out, r, "test step");
  const auto doc = nlohmann::json::parse(out.str());  // throws if not valid JSON
  REQUIRE(doc.contains("traceEvents"));
  const auto& events = doc["traceEvents"];
  REQUIRE(events.is_array());

  std::map<int, std::string> threads;
  std::map<std::string, nlohmann::json> slices;
  for (const auto& e : events) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    REQUIRE(e.contains("tid"));
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    if (e["ph"] == "X") {
      // Complete events need a name, a start and a non-negative duration in us.
      REQUIRE(e["ts"].is_number());
      REQUIRE(e["dur"].get<double>() >= 0);
      slices[e["name"].get<std::string>()] = e;
    }
  }
  // One track per stream.
  CHECK(threads.size() == 2);
  CHECK(threads[1] == "compute stream");
  CHECK(threads[2] == "communication stream");

  // One slice per bucket all-reduce on the communication track, at the table's times:
  // b0 = {p1} ready after L1's backward (2 + 2 ms) and its 2 us copy: 4002-5002 us;
  // b1 = {p0}: L0 backward 4002-6002 us, copy -> 6004 us, all-reduce 6004-7004 us.
  REQUIRE(r.buckets.size() == 2);
  for (const auto& b : r.buckets) {
    const auto& s = slices.at("allreduce bucket " + std::to_string(b.index));
    CHECK(s["tid"] == 2);
    CHECK(s["ts"].get<double>() == Approx(b.start.us()));
    CHECK(s["dur"].get<double>() == Approx((b.end - b.start).us()));
    CHECK(s["args"]["bytes"] == b.wire_bytes.count);
  }
  CHECK(slices.at("allreduce bucket 0")["ts"].get<double>() == Approx(4002));
  CHECK(slices.at("allreduce bucket 1")["ts"].get<double>() == Approx(6004));
  // One slice per layer and pass on the compute track: L1's backward runs 2000-4000 us.
  CHECK(slices.at("fwd L0")["tid"] == 1);
  CHECK(slices.at("bwd L1")["ts"].get<double>() == Approx(2000));
  CHECK(slices.at("bwd L1")["dur"].get<double>() == Approx(2000));
  CHECK(slices.at("optimizer")["dur"].get<double>() == Approx(500));
  // The last slice ends at the iteration time.
  double last = 0;
  for (const auto& [name, s] : slices) last = std::max(last, s["ts"].get<double>() + s["dur"].get<double>());
  CHECK(last == Approx(r.iteration.us()));
}

TEST_CASE("Gloo's concurrent all-reduces go on two communication lanes that Perfetto accepts", "[train][trace]") {
  // At 5 ns per byte bucket 0 runs from 4002 us for 5 ms alone; bucket 1 is issued at
  // 6004 us while it still runs, and Gloo's second worker starts it at once: the two
  // slices overlap partially, which one Perfetto track cannot hold.
  const DdpResult r = two_layer_step(DdpBackend::Gloo, 5000);
  REQUIRE(r.buckets.size() == 2);
  REQUIRE(r.buckets[1].start < r.buckets[0].end);
  REQUIRE(r.buckets[1].end > r.buckets[0].end);
  std::ostringstream out;
  write_chrome_trace(out, r, "gloo step");
  const auto doc = nlohmann::json::parse(out.str());
  CHECK_FALSE(first_trace_violation(doc));
  std::map<int, std::string> threads;
  std::map<std::string, int> tid;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    if (e["ph"] == "X") tid[e["name"].get<std::string>()] = e["tid"].get<int>();
  }
  CHECK(threads.size() == 3);
  CHECK(threads[tid.at("allreduce bucket 0")] == "communication stream");
  CHECK(threads[tid.at("allreduce bucket 1")] == "communication stream #2");
}

}  // namespace collsim
