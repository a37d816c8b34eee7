#include "sim/report/trace_run_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/report/run_report_parts.hpp"

namespace collsim {

namespace {


const char* phase_name(RunPhase p) {
  switch (p) {
    case RunPhase::Training: return "training";
    case RunPhase::Checkpoint: return "checkpoint";
    case RunPhase::Restart: return "restart";
    case RunPhase::Restore: return "restore";
  }
  return "?";
}

std::vector<Column<TraceStrike>> strike_columns(const FailureTrace& t) {
  using S = TraceStrike;
  auto at = [&t](const S& s) { return t.interruptions[s.index].at_s; };
  auto cause = [&t](const S& s) { return t.interruptions[s.index].cause; };
  return {
      {.name = "index", .value = [](const S& s) { return Json(s.index); }, .title = "index", .width = 6},
      {.name = "at_s", .value = [at](const S& s) { return Json(at(s)); }, .title = "at", .unit = "(h)", .width = 10,
       .text = [at](const S& s) { return fmt::format("{:.3f}", at(s) / 3600); }},
      {.name = "during", .value = [](const S& s) { return Json(phase_name(s.strike.phase)); }, .title = "during",
       .width = 10, .align = Align::Left, .gap = 2},
      {.name = "step", .value = [](const S& s) { return Json(s.strike.step); }, .title = "step", .width = 10},
      {.name = "lost_s", .value = [](const S& s) { return Json(s.strike.undone_s); }, .title = "lost", .unit = "(min)",
       .width = 8, .text = [](const S& s) { return fmt::format("{:.2f}", s.strike.undone_s / 60); }},
      {.name = "cause", .value = [cause](const S& s) { return cause(s).empty() ? Json() : Json(cause(s)); },
       .title = "cause", .width = kFitWidth, .align = Align::Left, .gap = 2},
  };
}

std::vector<Column<TracePoint>> trace_scan_columns(double work_s) {
  using P = TracePoint;
  return {
      {.name = "interval_s", .value = [](const P& p) { return Json(p.interval_s); }, .title = "interval", .unit = "(min)",
       .width = 10, .text = [](const P& p) { return fmt::format("{:.2f}", p.interval_s / 60); }},
      {.name = "wall_s", .value = [](const P& p) { return Json(p.wall_s); }, .title = "wall", .unit = "(h)", .width = 12,
       .text = [](const P& p) { return fmt::format("{:.3f}", p.wall_s / 3600); }},
      {.name = "goodput", .value = [work_s](const P& p) { return Json(work_s / p.wall_s); }, .title = "goodput",
       .unit = "(%)", .width = 9, .text = [work_s](const P& p) { return fmt::format("{:.2f}", 100 * work_s / p.wall_s); }},
      {.name = "interruptions", .value = [](const P& p) { return Json(p.failures); }, .title = "interruptions",
       .width = 14},
  };
}

// How the run and the trace ended against each other.
std::string trace_end_line(const TraceRunReport& r) {
  const double wall = r.replay.outcome.wall_s;
  const std::size_t after = r.trace.interruptions.size() - r.replay.strikes.size();
  if (after > 0) {
    return fmt::format("the trace ends at {}; the run ended at {}, before {} of its interruptions", hours(r.trace.end_s),
                       hours(wall), after);
  }
  if (wall > r.trace.end_s) {
    return fmt::format("the trace ends at {}; the run went on failure-free for {} after it (no interruptions are "
                       "assumed past a trace's end)",
                       hours(r.trace.end_s), hours(wall - r.trace.end_s));
  }
  return fmt::format("the trace ends at {}; the run ended at {}, within it", hours(r.trace.end_s), hours(wall));
}

void trace_run_table(std::ostream& out, const TraceRunReport& r) {
  const RunModel& m = r.model;
  const RunOutcome& o = r.replay.outcome;
  const FailureTrace& t = r.trace;
  write_run_heading(out, r.gpus, r.hosts, r.links, m);
  fmt::print(out, "# interruptions: failure trace {}: {} in {} (job MTBF {}); replayed once, no sampling\n",
             t.source, t.interruptions.size(), hours(t.end_s),
             t.interruptions.empty() ? std::string("infinite") : hours(t.mtbf_s()));
  if (!t.description.empty()) fmt::print(out, "# trace: {}\n", t.description);
  write_checkpoint_line(out, m, r.interval_choice);
  fmt::print(out, "{:<24}{:>12}   (the trace replayed: one run, no sampling)\n", "wall time", hours(o.wall_s));
  fmt::print(out, "{:<24}{:>10.2f} %   (training / wall time)\n", "goodput", 100 * m.work_s() / o.wall_s);
  fmt::print(out, "{:<24}{:>12}   of the trace's {}\n", "interruptions", o.failures, t.interruptions.size());
  write_time_lost(out, o.lost_s, o.checkpoint_s, o.recovery_s);
  fmt::print(out, "# {}\n", trace_end_line(r));
  if (!r.replay.strikes.empty()) {
    fmt::print(out, "\n# the interruptions that struck (index: in the trace's \"interruptions\", from 0)\n");
    write_text_table(out, strike_columns(t), r.replay.strikes, TableStyle{.trim = true});
  }
  if (!r.scan) return;
  const TraceScan& s = *r.scan;
  fmt::print(out,
             "\n# checkpoint interval: best of the scan {}; at the trace's job MTBF of {}, Young (1974) {}, "
             "Daly (2006) {}\n",
             minutes(s.points[s.best].interval_s), hours(t.mtbf_s()), minutes(young_interval_s(m.checkpoint_s, t.mtbf_s())),
             minutes(daly_interval_s(m.checkpoint_s, t.mtbf_s())));
  write_text_table(out, trace_scan_columns(m.work_s()), s.points);
}

Json trace_run_json(const TraceRunReport& r) {
  const RunModel& m = r.model;
  const RunOutcome& o = r.replay.outcome;
  const FailureTrace& t = r.trace;
  Json doc = report_document({});
  add_run_fields(doc, r.gpus, r.hosts, r.links, m);
  doc["failure_trace"] = Json{{"file", t.source},
                              {"description", t.description},
                              {"interruptions", t.interruptions.size()},
                              {"end_s", t.end_s},
                              {"job_mtbf_s", t.interruptions.empty() ? Json() : Json(t.mtbf_s())}};
  add_checkpoint_fields(doc, m, r.interval_choice);
  doc["wall_s"] = o.wall_s;
  doc["goodput"] = m.work_s() / o.wall_s;
  doc["interruptions"] = o.failures;
  add_time_lost(doc, o.lost_s, o.checkpoint_s, o.recovery_s);
  doc["interruptions_after_run"] = t.interruptions.size() - r.replay.strikes.size();
  doc["failure_free_after_trace_s"] = o.wall_s > t.end_s ? o.wall_s - t.end_s : 0.0;
  doc["interruptions_hit"] = json_rows(strike_columns(t), r.replay.strikes);
  if (r.scan) {
    const TraceScan& s = *r.scan;
    doc["interval_search"] = {{"best_s", s.points[s.best].interval_s},
                              {"job_mtbf_s", t.mtbf_s()},
                              {"young_s", young_interval_s(m.checkpoint_s, t.mtbf_s())},
                              {"daly_s", daly_interval_s(m.checkpoint_s, t.mtbf_s())},
                              {"points", json_rows(trace_scan_columns(m.work_s()), s.points)}};
  }
  return doc;
}

void trace_run_csv(std::ostream& out, const TraceRunReport& r) {
  const std::vector<TracePoint> none;
  write_csv_table(out, trace_scan_columns(r.model.work_s()), r.scan ? r.scan->points : none);
}

}  // namespace

ReportViews trace_run_report_views(const TraceRunReport& report) {
  return views_of(report, trace_run_table, trace_run_json, trace_run_csv);
}

}  // namespace collsim
