#include "sim/report/straggler_report.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace collsim {

namespace {

using W = RankWait;

std::vector<Column<W>> straggler_rank_columns() {
  return {
      {.name = "rank", .value = [](const W& w) { return Json(w.rank); }, .title = "rank", .width = 6},
      {.name = "speed", .value = [](const W& w) { return Json(w.speed); }, .title = "speed", .unit = "(x)", .width = 7,
       .text_format = "{:.3f}"},
      ms_column<W>("compute_ms", "compute", "(ms)", 11, [](const W& w) { return w.compute; }),
      ps_column<W>("compute_ps", [](const W& w) { return w.compute; }),
      ms_column<W>("waiting_ms", "waiting", "(ms)", 11, [](const W& w) { return w.waiting; }),
      ps_column<W>("waiting_ps", [](const W& w) { return w.waiting; }),
  };
}

// The ranks worth a line of text: every rank not at speed 1 (at most 16, slowest first),
// and the first rank at speed 1 standing for the others.
std::vector<W> shown_ranks(const StragglerResult& s) {
  std::vector<W> slow, out;
  for (const auto& w : s.ranks) {
    if (w.speed != 1.0) slow.push_back(w);
  }
  std::stable_sort(slow.begin(), slow.end(), [](const W& a, const W& b) { return a.speed < b.speed; });
  if (slow.size() > 16) slow.resize(16);
  out = slow;
  for (const auto& w : s.ranks) {
    if (w.speed == 1.0) {
      out.push_back(w);
      break;
    }
  }
  return out;
}

}  // namespace

void write_stragglers(std::ostream& out, const StragglerResult& s, double jitter_sigma, std::uint64_t seed) {
  const StragglerStep& first = s.steps.front();
  fmt::print(out, "\n# slow ranks: step 0 runs at its slowest rank's pace, rank {} at {:.3f}x: iteration {:.3f} ms against "
             "{:.3f} ms with every rank at speed 1\n",
             first.slowest_rank, first.slowest_speed, first.iteration.ms(), s.nominal_iteration.ms());
  fmt::print(out, "# waiting = iteration - the rank's own compute (the slowest rank waits only for exposed communication)\n");
  write_text_table(out, straggler_rank_columns(), shown_ranks(s));
  if (s.steps.size() > 1) {
    fmt::print(out, "\n# {} steps with jitter (log-normal sigma {:g}, seed {}): iteration mean {:.3f} ms, p50 {:.3f} ms, "
               "p99 {:.3f} ms, max {:.3f} ms\n",
               s.steps.size(), jitter_sigma, seed, s.mean.ms(), s.p50.ms(), s.p99.ms(), s.max.ms());
  }
}

Json stragglers_json(const StragglerResult& s, double jitter_sigma, std::uint64_t seed) {
  Json steps = Json::array();
  for (const auto& k : s.steps) {
    steps.push_back({{"slowest_rank", k.slowest_rank}, {"slowest_speed", k.slowest_speed},
                     {"iteration_ms", k.iteration.ms()}, {"iteration_ps", k.iteration.ps}});
  }
  return {{"nominal_iteration_ms", s.nominal_iteration.ms()},
          {"jitter_sigma", jitter_sigma},
          {"seed", seed},
          {"iteration_mean_ms", s.mean.ms()},
          {"iteration_p50_ms", s.p50.ms()},
          {"iteration_p99_ms", s.p99.ms()},
          {"iteration_max_ms", s.max.ms()},
          {"ranks", json_rows(straggler_rank_columns(), s.ranks)},
          {"steps", std::move(steps)}};
}

}  // namespace collsim
