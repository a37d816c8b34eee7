// Failure traces: the file format (one REQUIRE_THROWS_AS per rule), runs replayed against
// hand-derived traces (interruptions while training, while writing a checkpoint, during a
// restart and a restore, at a phase's very end, after the run), an empty trace against the
// failure-free run, and the interval scan.
#include <cmath>

#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/train/failure_trace.hpp"
#include "sim/train/trace_replay.hpp"

namespace collsim {
namespace {

using nlohmann::json;

FailureTrace trace_of(const char* text) { return parse_failure_trace(json::parse(text), "t.json"); }

FailureTrace trace_at(std::initializer_list<double> times_s) {
  FailureTrace t;
  t.source = "test";
  for (double at : times_s) t.interruptions.push_back(TraceInterruption{at, ""});
  t.end_s = t.interruptions.empty() ? 0 : t.interruptions.back().at_s;
  return t;
}

// 10 steps of 1 s, a checkpoint every 5 steps written in 1 s, restart 2 s, restore 1 s.
// Without interruptions: [0, 5) train, [5, 6) checkpoint, [6, 11) train, [11, 12) checkpoint.
RunModel small_run() {
  RunModel m;
  m.step_s = 1;
  m.steps = 10;
  m.interval_s = 5;
  m.checkpoint_s = 1;
  m.restart_s = 2;
  m.restore_s = 1;
  return m;
}

}  // namespace

TEST_CASE("a failure trace reads times with units, causes and an optional end", "[goodput][trace]") {
  const FailureTrace t = trace_of(R"({"description": "two", "interruptions":
      [{"at": "90min", "cause": "GPU HBM3 ECC"}, {"at": "3.2h"}], "end": "1d"})");
  REQUIRE(t.interruptions.size() == 2);
  CHECK(t.description == "two");
  CHECK(t.interruptions[0].at_s == 5400);
  CHECK(t.interruptions[0].cause == "GPU HBM3 ECC");
  CHECK(t.interruptions[1].at_s == Approx(11520));
  CHECK(t.interruptions[1].cause.empty());
  CHECK(t.end_s == 86400);
  CHECK(t.mtbf_s() == 43200);  // one day over two interruptions
  // Without "end" the trace ends at its last interruption; without any it has no MTBF.
  CHECK(trace_of(R"({"interruptions": [{"at": "1h"}, {"at": "3h"}]})").mtbf_s() == 5400);
  CHECK(trace_of(R"({"interruptions": []})").interruptions.empty());
  CHECK(std::isinf(trace_of(R"({"interruptions": []})").mtbf_s()));
}

TEST_CASE("a failure trace refuses each bad field", "[goodput][trace]") {
  REQUIRE_THROWS_AS(trace_of(R"([])"), ConfigError);
  REQUIRE_THROWS_AS(trace_of(R"({})"), ConfigError);                                       // no interruptions
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": {"at": "1h"}})"), ConfigError);          // not an array
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": ["1h"]})"), ConfigError);                // not an object
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"cause": "x"}]})"), ConfigError);      // no at
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"at": "3.2"}]})"), ConfigError);       // no unit
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"at": 3.2}]})"), ConfigError);         // a number
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"at": "-1h"}]})"), ConfigError);       // negative
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"at": "0s"}]})"), ConfigError);        // not after the start
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"at": "2h"}, {"at": "1h"}]})"), ConfigError);  // back in time
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"at": "1h"}, {"at": "60min"}]})"), ConfigError);  // twice at once
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"at": "1h", "cause": 7}]})"), ConfigError);
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"at": "1h", "node": "h0"}]})"), ConfigError);  // unknown key
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [], "repeat": true})"), ConfigError);           // unknown key
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [], "description": 1})"), ConfigError);
  REQUIRE_THROWS_AS(trace_of(R"({"interruptions": [{"at": "2h"}], "end": "1h"})"), ConfigError);  // end before it
  // The message names the pointer, the value and what was expected.
  CHECK_THROWS_WITH(trace_of(R"({"interruptions": [{"at": "2h"}, {"at": "3h"}, {"at": "1h"}]})"),
                    Catch::Contains("/interruptions/2/at") && Catch::Contains("\"1h\"") &&
                        Catch::Contains("after the interruption before it"));
}

TEST_CASE("an interruption while training, by hand", "[goodput][trace]") {
  // At t = 8 s the job is 2 s into its second interval (steps 6..10, from t = 6 s), in step 8:
  // 2 s of training are lost; restart [8, 10), restore [10, 11); the interval again from
  // step 6: [11, 16) train, [16, 17) checkpoint. Wall 17 s = 10 s training + 2 checkpoints of
  // 1 s + 2 s lost + 3 s recovery.
  const TraceReplay r = replay_trace(small_run(), trace_at({8}));
  CHECK(r.outcome.wall_s == 17);
  CHECK(r.outcome.lost_s == 2);
  CHECK(r.outcome.checkpoint_s == 2);
  CHECK(r.outcome.recovery_s == 3);
  CHECK(r.outcome.failures == 1);
  REQUIRE(r.strikes.size() == 1);
  CHECK(r.strikes[0].index == 0);
  CHECK(r.strikes[0].strike.phase == RunPhase::Training);
  CHECK(r.strikes[0].strike.step == 8);
  CHECK(r.strikes[0].strike.wall_s == 8);
  CHECK(r.strikes[0].strike.undone_s == 2);
}

TEST_CASE("interruptions during a restart and a restore start the recovery again", "[goodput][trace]") {
  // t = 8 s as above; t = 9 s is 1 s into the restart [8, 10): recovery again, restart
  // [9, 11), restore [11, 12); t = 11.5 s is 0.5 s into that restore (2.5 s into the
  // recovery): recovery again [11.5, 14.5); then the second interval [14.5, 19.5) and its
  // checkpoint [19.5, 20.5). Wall 20.5 s = 12 s failure-free + 2 s lost + 1 + 2.5 + 3 s recovery.
  const TraceReplay r = replay_trace(small_run(), trace_at({8, 9, 11.5}));
  CHECK(r.outcome.wall_s == 20.5);
  CHECK(r.outcome.lost_s == 2);
  CHECK(r.outcome.recovery_s == 6.5);
  CHECK(r.outcome.failures == 3);
  REQUIRE(r.strikes.size() == 3);
  CHECK(r.strikes[1].strike.phase == RunPhase::Restart);
  CHECK(r.strikes[1].strike.step == 5);  // restoring the checkpoint of step 5
  CHECK(r.strikes[1].strike.undone_s == 1);
  CHECK(r.strikes[2].strike.phase == RunPhase::Restore);
  CHECK(r.strikes[2].strike.undone_s == 2.5);
}

TEST_CASE("an interruption while writing a checkpoint loses the checkpoint too", "[goodput][trace]") {
  // t = 5.5 s is half-way through the first checkpoint [5, 6): 5.5 s lost, none saved;
  // recovery [5.5, 8.5), steps 1..5 again [8.5, 13.5), checkpoint [13.5, 14.5), steps 6..10
  // [14.5, 19.5), checkpoint [19.5, 20.5).
  const TraceReplay r = replay_trace(small_run(), trace_at({5.5}));
  CHECK(r.outcome.wall_s == 20.5);
  CHECK(r.outcome.lost_s == 5.5);
  REQUIRE(r.strikes.size() == 1);
  CHECK(r.strikes[0].strike.phase == RunPhase::Checkpoint);
  CHECK(r.strikes[0].strike.step == 5);
}

TEST_CASE("an interruption at the very end of a checkpoint strikes the next interval", "[goodput][trace]") {
  // The first checkpoint is whole at t = 6 s; an interruption then strikes step 6 with
  // nothing to lose: recovery [6, 9), steps 6..10 [9, 14), checkpoint [14, 15).
  const TraceReplay r = replay_trace(small_run(), trace_at({6}));
  CHECK(r.outcome.wall_s == 15);
  CHECK(r.outcome.lost_s == 0);
  REQUIRE(r.strikes.size() == 1);
  CHECK(r.strikes[0].strike.step == 6);
}

TEST_CASE("an empty trace is the failure-free run; interruptions after the run never strike", "[goodput][trace]") {
  const RunModel m = small_run();
  const TraceReplay none = replay_trace(m, trace_at({}));
  CHECK(none.outcome.wall_s == 12);  // 10 s of steps and two 1 s checkpoints
  CHECK(none.outcome.wall_s == simulate_run(m, 1).wall_s);
  CHECK(none.outcome.wall_s == expected_wall_s(m));
  CHECK(none.outcome.failures == 0);
  // The run ends at 12 s; an interruption at exactly 12 s or later is past it.
  const TraceReplay late = replay_trace(m, trace_at({12, 40}));
  CHECK(late.outcome.wall_s == 12);
  CHECK(late.strikes.empty());
}

TEST_CASE("the interval scan replays the trace at each interval and keeps the fastest", "[goodput][trace]") {
  RunModel m = small_run();
  m.steps = 1000;
  m.restart_s = 20;
  const FailureTrace t = trace_at({50, 180, 333, 470, 800, 900});
  // Empirical MTBF 900 / 6 = 150 s; Daly's interval at C = 1 s: about 16.6 s.
  const TraceScan s = scan_trace_interval(m, t);
  CHECK(t.mtbf_s() == 150);
  CHECK(s.centre_s == Approx(daly_interval_s(1, 150)));
  REQUIRE(s.points.size() >= 3);
  CHECK(s.points.front().interval_s == Approx(4));   // 16.6 / 4 rounded to whole steps
  CHECK(s.points.back().interval_s == Approx(67));  // 16.66 x 4 = 66.6, rounded
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    RunModel v = m;
    v.interval_s = s.points[i].interval_s;
    const TraceReplay r = replay_trace(v, t);
    CHECK(s.points[i].wall_s == r.outcome.wall_s);  // deterministic: the same replay
    CHECK(s.points[i].failures == r.outcome.failures);
    CHECK(s.points[s.best].wall_s <= s.points[i].wall_s);
    if (i > 0) CHECK(s.points[i].interval_s > s.points[i - 1].interval_s);
  }
  CHECK_THROWS_AS(scan_trace_interval(m, trace_at({})), InternalError);
}

}  // namespace collsim
