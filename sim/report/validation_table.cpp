#include "sim/report/validation_table.hpp"

#include <cmath>

#include <fmt/format.h>

namespace collsim {

namespace {

double to_us(Time t) { return static_cast<double>(t.ps) / Time::kPerUs; }
double round_to(double v, double unit) { return std::round(v / unit) * unit; }

std::string summary_line(const ValidationReport& r) {
  const auto& s = r.summary;
  std::string line = fmt::format("{} of {} rows predicted; median |error| {:.2f}%, max |error| {:.2f}%, geomean predicted/measured {:.4f} ({:+.2f}%)",
                                 s.predicted, s.rows, s.median_abs_error * 100, s.max_abs_error * 100, s.geomean_ratio,
                                 (s.geomean_ratio - 1) * 100);
  const std::string none = "not judged (no row predicted)";
  if (r.tolerance) {
    line += fmt::format("\ntolerance {:g}% per row: {}", *r.tolerance * 100,
                        s.predicted == 0                ? none
                        : r.rows_beyond_tolerance == 0 ? std::string("ok")
                                                       : fmt::format("broken by {} rows", r.rows_beyond_tolerance));
  }
  if (r.median_tolerance) {
    line += fmt::format("\nmedian tolerance {:g}%: {}", *r.median_tolerance * 100,
                        s.predicted == 0 ? none : s.median_abs_error <= *r.median_tolerance ? "ok" : "broken");
  }
  for (const auto& [kind, k] : r.by_kind) {
    line += fmt::format("\n{} rows: {} of {} predicted; median |error| {:.2f}%, max |error| {:.2f}%, geomean {:+.2f}%", kind,
                        k.predicted, k.rows, k.median_abs_error * 100, k.max_abs_error * 100, (k.geomean_ratio - 1) * 100);
  }
  return line;
}

std::string choice_line(const BucketChoice& c, double tolerance) {
  if (!c.judged) return fmt::format("{}: not judged ({})", c.group, c.note);
  const std::string ties =
      c.predicted_ties.empty() ? std::string() : fmt::format(", predicted tie with {} MB", fmt::join(c.predicted_ties, ", "));
  return fmt::format("{}: measured best {:g} MB ({:.1f} ms), predicted best {:g} MB (measured {:.1f} ms, {:+.2f}%{}): {}", c.group,
                     c.measured_best_cap, c.measured_best.ms(), c.predicted_best_cap, c.measured_at_predicted.ms(), c.shortfall * 100, ties,
                     c.ok ? (c.predicted_best_cap == c.measured_best_cap ? "ok (same cap)" : fmt::format("ok (within {:g}%)", tolerance * 100))
                          : fmt::format("broken (beyond {:g}%)", tolerance * 100));
}

using V = ValidationRow;

Json rounded_or_null(const std::optional<double>& v, double unit) { return v ? Json(round_to(*v, unit)) : Json(); }
std::optional<double> predicted_us(const V& row) {
  return row.predicted ? std::optional<double>(to_us(*row.predicted)) : std::nullopt;
}
Json or_null(const std::optional<double>& v) { return v ? Json(*v) : Json(); }

// The table shows times to 0.1 to_us and the error in %; CSV to 1 ns and the error as a
// fraction; JSON rounds both to those units.
const std::vector<Column<V>>& validation_row_columns() {
  static const std::vector<Column<V>> cols{
      {.name = "source", .value = [](const V& r) { return Json(r.source); }, .title = "source", .width = kFitWidth,
       .align = Align::Left},
      {.name = "kind", .value = [](const V& r) { return Json(r.kind); }, .shown = kInCsv | kInJson},
      {.name = "case", .value = [](const V& r) { return Json(r.case_name); }, .title = "case", .width = kFitWidth,
       .align = Align::Left, .gap = 2},
      {.name = "algorithm", .value = [](const V& r) { return Json(r.algorithm); }, .shown = kInCsv | kInJson},
      {.name = "ranks", .value = [](const V& r) { return Json(r.ranks); }, .shown = kInCsv | kInJson},
      {.name = "size_bytes", .value = [](const V& r) { return Json(r.size.count); }, .shown = kInCsv | kInJson},
      {.name = "measured_us", .value = [](const V& r) { return Json(to_us(r.measured)); }, .title = "measured(us)", .width = 14,
       .gap = 2, .text_format = "{:.1f}", .csv_format = "{:.3f}",
       .json = [](const V& r) { return Json(round_to(to_us(r.measured), 1e-3)); }},
      {.name = "predicted_us", .value = [](const V& r) { return or_null(predicted_us(r)); }, .title = "predicted(us)",
       .width = 14, .gap = 2, .text_format = "{:.1f}", .csv_format = "{:.3f}",
       .json = [](const V& r) { return rounded_or_null(predicted_us(r), 1e-3); }},
      {.name = "error", .value = [](const V& r) { return or_null(r.error()); }, .title = "error", .width = 8, .gap = 2,
       .csv_format = "{:.6f}",
       .text = [](const V& r) { const auto e = r.error(); return e ? fmt::format("{:+.2f}%", *e * 100) : "-"; },
       .json = [](const V& r) { return rounded_or_null(r.error(), 1e-6); }},
      {.name = "note", .value = [](const V& r) { return r.note.empty() ? Json() : Json(r.note); }, .gap = 0,
       .text = [](const V& r) { return r.note.empty() ? std::string() : "  " + r.note; }, .omit_null = true},
  };
  return cols;
}

void validation_table(std::ostream& out, const ValidationReport& r) {
  write_text_table(out, validation_row_columns(), r.rows);
  out << summary_line(r) << "\n";
  if (!r.bucket_choices.empty()) {
    out << fmt::format("bucket choice (predicted best bucket_cap_mb = measured best, or within {:g}% of it):\n",
                       r.bucket_tolerance * 100);
    for (const auto& c : r.bucket_choices) out << "  " << choice_line(c, r.bucket_tolerance) << "\n";
  }
}

Json validation_summary_json(const ValidationSummary& k) {
  return Json{{"rows", k.rows}, {"predicted", k.predicted}, {"median_abs_error", round_to(k.median_abs_error, 1e-6)},
              {"max_abs_error", round_to(k.max_abs_error, 1e-6)}, {"geomean_ratio", round_to(k.geomean_ratio, 1e-6)}};
}

Json bucket_choice_json(const BucketChoice& c, double tolerance) {
  Json j{{"group", c.group}, {"caps_mb", c.caps}, {"judged", c.judged}};
  if (!c.judged) {
    j["note"] = c.note;
    return j;
  }
  j["measured_best_mb"] = c.measured_best_cap;
  j["measured_best_us"] = round_to(to_us(c.measured_best), 1e-3);
  j["predicted_best_mb"] = c.predicted_best_cap;
  j["predicted_ties_mb"] = c.predicted_ties;
  j["measured_at_predicted_best_us"] = round_to(to_us(c.measured_at_predicted), 1e-3);
  j["shortfall"] = round_to(c.shortfall, 1e-6);
  j["tolerance"] = tolerance;
  j["ok"] = c.ok;
  return j;
}

Json validation_json(const ValidationReport& r) {
  Json s = validation_summary_json(r.summary);
  if (r.tolerance) s["tolerance"] = *r.tolerance;
  if (r.median_tolerance) s["median_tolerance"] = *r.median_tolerance;
  s["rows_beyond_tolerance"] = r.rows_beyond_tolerance;
  for (const auto& [kind, k] : r.by_kind) s["by_kind"][kind] = validation_summary_json(k);
  Json doc = report_document({{"rows", json_rows(validation_row_columns(), r.rows)}, {"summary", s}});
  if (!r.bucket_choices.empty()) {
    doc["bucket_choice"] = Json::array();
    for (const auto& c : r.bucket_choices) doc["bucket_choice"].push_back(bucket_choice_json(c, r.bucket_tolerance));
  }
  return doc;
}

void validation_csv(std::ostream& o, const ValidationReport& r) { write_csv_table(o, validation_row_columns(), r.rows); }

}  // namespace

ReportViews validation_report_views(const ValidationReport& report) { return views_of(report, validation_table, validation_json, validation_csv); }

}  // namespace collsim
