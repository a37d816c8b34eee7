// Training runs with failures: hand-derived wall times without failures and for one
// segment, the Monte Carlo estimate against the closed form at 16,384 GPUs, the optimal
// checkpoint interval against Young's and Daly's, determinism, and refused models.
#include <cmath>

#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/train/goodput.hpp"

namespace collsim {
namespace {

RunModel no_failures() {
  RunModel m;
  m.step_s = 2;
  m.steps = 100;
  m.interval_s = 50;  // 25 steps
  m.checkpoint_s = 10;
  m.restart_s = 600;
  m.restore_s = 60;
  return m;
}

// The README's example: 16,384 GPUs at a per-GPU MTBF of 50,000 h (Llama 3's 419
// unexpected interruptions in 54 days on 16,384 GPUs: 54 x 24 x 16,384 / 419 = 50,677 GPU-hours
// per interruption), 5 s steps, 100,000 steps (138.9 h), 5 min checkpoints, 10 min restarts.
RunModel llama3_scale() {
  RunModel m;
  m.step_s = 5;
  m.steps = 100'000;
  m.failure_rate = 16384 / (50'000.0 * 3600);  // job MTBF 10,986 s = 3.05 h
  m.checkpoint_s = 300;
  m.restart_s = 600;
  m.restore_s = 300;
  m.interval_s = daly_interval_s(m.checkpoint_s, m.mtbf_s());
  return m;
}

}  // namespace

TEST_CASE("without failures a run is its steps plus one checkpoint per interval", "[goodput]") {
  RunModel m = no_failures();
  CHECK(m.steps_per_checkpoint() == 25);  // 50 s / 2 s
  // 100 steps x 2 s + 4 checkpoints x 10 s = 240 s.
  CHECK(expected_wall_s(m) == Approx(240));
  const RunOutcome o = simulate_run(m, 7);
  CHECK(o.wall_s == Approx(240));
  CHECK(o.failures == 0);
  CHECK(o.checkpoint_s == Approx(40));
  // 110 steps: 4 full intervals and one of 10 steps, each ending with a checkpoint:
  // 220 + 5 x 10 = 270 s.
  m.steps = 110;
  CHECK(expected_wall_s(m) == Approx(270));
  CHECK(monte_carlo(m, 3, 1).mean_wall_s == Approx(270));
  CHECK(monte_carlo(m, 3, 1).goodput == Approx(220.0 / 270));
}

TEST_CASE("one interval under failures: Daly's expectation e^(l b) (e^(l a) - 1) / l", "[goodput]") {
  RunModel m;
  m.step_s = 1800;  // one step, one interval of 30 min
  m.steps = 1;
  m.interval_s = 1800;
  m.checkpoint_s = 60;
  m.restart_s = 600;
  m.restore_s = 60;
  m.failure_rate = 1.0 / 3600;
  // a = 1800 + 60 s, b = 600 + 60 s: e^(660/3600) (e^(1860/3600) - 1) 3600 = 1.2012 x 0.6764 x
  // 3600 = 2925.1 s.
  const double expected = std::exp(660.0 / 3600) * std::expm1(1860.0 / 3600) * 3600;
  CHECK(expected_wall_s(m) == Approx(expected).epsilon(1e-12));
  CHECK(expected == Approx(2925.14).epsilon(1e-5));
  // 20,000 runs: the mean within 2 % (its standard error is about 0.7 % here).
  CHECK(monte_carlo(m, 20'000, 3).mean_wall_s == Approx(expected).epsilon(0.02));
}

TEST_CASE("16,384 GPUs: the Monte Carlo goodput is within 2 % of the closed form", "[goodput]") {
  const RunModel m = llama3_scale();
  const GoodputEstimate e = monte_carlo(m, 1000, 1);
  const double closed = m.work_s() / expected_wall_s(m);
  CHECK(e.goodput == Approx(closed).epsilon(0.02));
  // About 138.9 h of training over a 3.05 h MTBF, stretched by the losses: dozens of
  // interruptions per run, and goodput well below 1.
  CHECK(e.mean_failures > 40);
  CHECK(e.goodput < 0.9);
  CHECK(e.ci95_wall_s > 0);
}

TEST_CASE("Young's and Daly's intervals, and the optimum found by the search", "[goodput]") {
  // C = 300 s, M = 10,986.3 s: Young sqrt(2 C M) = 2567.4 s; Daly 2567.4 x (1 + sqrt(300 /
  // 21972.7) / 3 + 300 / (18 x 10986.3)) - 300 = 2371.3 s.
  const RunModel m = llama3_scale();
  CHECK(young_interval_s(300, m.mtbf_s()) == Approx(2567.4).epsilon(1e-4));
  CHECK(daly_interval_s(300, m.mtbf_s()) == Approx(2371.3).epsilon(1e-4));
  CHECK(daly_interval_s(300, 100) == 100);  // C >= 2M: checkpoint every MTBF
  const IntervalSearch s = search_interval(m, 1000, 1);
  REQUIRE(s.points.size() >= 3);
  const double daly = daly_interval_s(300, m.mtbf_s());
  CHECK(s.expected_optimum_s == Approx(daly).epsilon(0.10));
  CHECK(s.mc_optimum_s == Approx(daly).epsilon(0.10));
  for (std::size_t i = 1; i < s.points.size(); ++i) CHECK(s.points[i].interval_s > s.points[i - 1].interval_s);
}

TEST_CASE("a seed gives the same runs; another seed other runs", "[goodput]") {
  const RunModel m = llama3_scale();
  const RunOutcome a = simulate_run(m, 5, 2), b = simulate_run(m, 5, 2), c = simulate_run(m, 6, 2);
  CHECK(a.wall_s == b.wall_s);
  CHECK(a.failures == b.failures);
  CHECK(a.wall_s != c.wall_s);
  CHECK(monte_carlo(m, 50, 9).mean_wall_s == monte_carlo(m, 50, 9).mean_wall_s);
}

TEST_CASE("a run that would almost never reach a checkpoint is refused, not ground through", "[goodput]") {
  RunModel m = llama3_scale();
  m.failure_rate = 1.0 / 60;  // an interruption a minute against a 40 min interval
  CHECK_THROWS_AS(expected_wall_s(m), LimitError);
  CHECK_THROWS_AS(simulate_run(m, 1), LimitError);
}

TEST_CASE("an estimate that would take more than 2e8 draws is refused, failures or not", "[goodput]") {
  RunModel m = no_failures();
  m.steps = 1'000'000'000;  // 1e9 steps, a checkpoint after each: 1e9 intervals in one run
  m.interval_s = m.step_s;
  CHECK_THROWS_AS(monte_carlo(m, 1, 1), LimitError);
  m.steps = 1'000'000;  // 1e6 intervals: one run is fine, 1,000 runs (1e9 draws) are not
  CHECK_NOTHROW(monte_carlo(m, 1, 1));
  CHECK_THROWS_WITH(monte_carlo(m, 1000, 1), Catch::Contains("use fewer runs"));
}

TEST_CASE("durations take ms, s, min, h and d", "[goodput][units]") {
  CHECK(parse_duration_s("30min") == 1800);
  CHECK(parse_duration_s("50000h") == 1.8e8);
  CHECK(parse_duration_s("1.5d") == 129600);
  CHECK(parse_duration_s("250ms") == 0.25);
  CHECK_THROWS_AS(parse_duration_s("5"), UnitError);
  CHECK_THROWS_AS(parse_duration_s("0h"), UnitError);
  CHECK_THROWS_AS(parse_duration_s("-1h"), UnitError);
  CHECK_THROWS_AS(parse_duration_s("1e13s"), UnitError);
  CHECK_THROWS_AS(parse_duration_s("3 weeks"), UnitError);
}

}  // namespace collsim
