#include "sim/report/step_events_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace collsim {

namespace {

using C = EventfulCollective;

std::vector<Column<C>> event_columns() {
  return {
      {.name = "collective", .value = [](const C& c) { return Json(c.name); }, .title = "collective", .width = 32,
       .align = Align::Left},
      ms_column<C>("start_ms", "start", "(ms)", 11, [](const C& c) { return c.start; }),
      ps_column<C>("start_ps", [](const C& c) { return c.start; }),
      ms_column<C>("healthy_ms", "healthy", "(ms)", 11, [](const C& c) { return c.healthy; }),
      ps_column<C>("healthy_ps", [](const C& c) { return c.healthy; }),
      ms_column<C>("with_events_ms", "events", "(ms)", 11, [](const C& c) { return c.during; }),
      ps_column<C>("with_events_ps", [](const C& c) { return c.during; }),
  };
}

}  // namespace

void write_step_events(std::ostream& out, const StepEvents& e, Time iteration) {
  const double with = iteration.ms(), without = e.healthy_iteration.ms();
  fmt::print(out, "\n# link events ({}): iteration {:.3f} ms against {:.3f} ms on healthy links ({:+.1f} %); {} of {} "
             "collectives changed (each priced at its start; settled in {} plays)\n",
             e.scenario, with, without, without > 0 ? 100.0 * (with - without) / without : 0.0, e.changed.size(),
             e.collectives, e.plays);
  if (!e.changed.empty()) write_text_table(out, event_columns(), e.changed);
}

Json step_events_json(const StepEvents& e) {
  return {{"scenario", e.scenario},
          {"healthy_iteration_ms", e.healthy_iteration.ms()},
          {"healthy_iteration_ps", e.healthy_iteration.ps},
          {"plays", e.plays},
          {"collectives", e.collectives},
          {"changed", json_rows(event_columns(), e.changed)}};
}

}  // namespace collsim
