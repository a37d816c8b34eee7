// The Perfetto trace of one collective: one send and one receive track per rank and
// channel, every transfer on both, within the predicted time, and Perfetto's rules kept.
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/coll/predict.hpp"
#include "sim/report/collective_trace.hpp"
#include "sim/report/trace_check.hpp"
#include "sim/topo/generators.hpp"

namespace collsim {

TEST_CASE("collective trace: a track pair per rank and channel, every transfer twice", "[report][trace]") {
  // Ring all-reduce of 1 MiB on a 4-host star with 2 channels: per channel 2 (n - 1) = 6
  // steps of 4 transfers, so 48 transfers; each one is a send slice and a receive slice.
  const Topology topo = make_star(StarSpec{4, Bandwidth::gbps(100), Time::from_us(1)});
  LinkGraph graph(topo);
  CollectiveRequest req;
  req.overrides.channels = 2;
  req.overrides.slice = Bytes{1LL << 40};  // no pipelining: one unit per channel
  const CollectivePrediction p = predict_collective(graph, Collective{CollectiveOp::AllReduce, 4, 0, Bytes{1 << 20}}, req);
  const CollectiveReplay r = replay_collective(graph, p, req);
  REQUIRE(r.schedule.size() == 48);
  // The replay is the prediction's own time (the fast path, when taken, is exact).
  CHECK(r.duration + r.base_latency == p.time);

  std::ostringstream out;
  write_collective_trace(out, p, r, topo.name);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK_FALSE(first_trace_violation(doc));

  std::map<std::pair<int, std::string>, int> lanes;  // (pid, base track name) -> lanes
  std::map<std::string, int> slices_by_cat;
  double last_end = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      std::string name = e["args"]["name"].get<std::string>();
      name = name.substr(0, name.find(" #"));
      ++lanes[{e["pid"].get<int>(), name}];
    }
    if (e["ph"] == "X") {
      ++slices_by_cat[e["cat"].get<std::string>()];
      last_end = std::max(last_end, e["ts"].get<double>() + e["dur"].get<double>());
    }
  }
  // pid 1 is the collective; ranks are pids 2..5, each with channel 0 and 1, send and recv.
  for (int pid = 2; pid <= 5; ++pid) {
    for (const char* name : {"channel 0 send", "channel 0 recv", "channel 1 send", "channel 1 recv"}) {
      CHECK(lanes.count({pid, name}) == 1);
    }
  }
  CHECK(slices_by_cat["send"] == 48);
  CHECK(slices_by_cat["recv"] == 48);
  CHECK(slices_by_cat["collective"] == 1);
  // Nothing ends after the predicted time (rounded to whole ns).
  CHECK(last_end <= p.time.us() + 1e-3);
}

}  // namespace collsim
