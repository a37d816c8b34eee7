#include "sim/report/validation_table.hpp"
#include "sim/core/version.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/report/csv_writer.hpp"

namespace collsim {

namespace {

double us(Time t) { return static_cast<double>(t.ps) / Time::kPerUs; }
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

void write_table(std::ostream& out, const ValidationReport& r) {
  std::size_t wsrc = 6, wcase = 4;
  for (const auto& row : r.rows) {
    wsrc = std::max(wsrc, row.source.size());
    wcase = std::max(wcase, row.case_name.size());
  }
  out << fmt::format("{:<{}}  {:<{}}  {:>14}  {:>14}  {:>8}\n", "source", wsrc, "case", wcase, "measured(us)", "predicted(us)",
                     "error");
  for (const auto& row : r.rows) {
    const auto e = row.error();
    out << fmt::format("{:<{}}  {:<{}}  {:>14.1f}  {:>14}  {:>8}{}\n", row.source, wsrc, row.case_name, wcase, us(row.measured),
                       row.predicted ? fmt::format("{:.1f}", us(*row.predicted)) : "-",
                       e ? fmt::format("{:+.2f}%", *e * 100) : "-", row.note.empty() ? "" : "  " + row.note);
  }
  out << summary_line(r) << "\n";
  if (!r.bucket_choices.empty()) {
    out << fmt::format("bucket choice (predicted best bucket_cap_mb = measured best, or within {:g}% of it):\n",
                       r.bucket_tolerance * 100);
    for (const auto& c : r.bucket_choices) out << "  " << choice_line(c, r.bucket_tolerance) << "\n";
  }
}

void write_json(std::ostream& out, const ValidationReport& r) {
  nlohmann::ordered_json doc;
  doc[kVersionKey] = version_string();
  doc["rows"] = nlohmann::ordered_json::array();
  for (const auto& row : r.rows) {
    nlohmann::ordered_json j;
    j["source"] = row.source;
    j["kind"] = row.kind;
    j["case"] = row.case_name;
    j["algorithm"] = row.algorithm;
    j["ranks"] = row.ranks;
    j["size_bytes"] = row.size.count;
    j["measured_us"] = round_to(us(row.measured), 1e-3);
    j["predicted_us"] = row.predicted ? nlohmann::ordered_json(round_to(us(*row.predicted), 1e-3)) : nlohmann::ordered_json();
    const auto e = row.error();
    j["error"] = e ? nlohmann::ordered_json(round_to(*e, 1e-6)) : nlohmann::ordered_json();
    if (!row.note.empty()) j["note"] = row.note;
    doc["rows"].push_back(std::move(j));
  }
  nlohmann::ordered_json s;
  s["rows"] = r.summary.rows;
  s["predicted"] = r.summary.predicted;
  s["median_abs_error"] = round_to(r.summary.median_abs_error, 1e-6);
  s["max_abs_error"] = round_to(r.summary.max_abs_error, 1e-6);
  s["geomean_ratio"] = round_to(r.summary.geomean_ratio, 1e-6);
  if (r.tolerance) s["tolerance"] = *r.tolerance;
  if (r.median_tolerance) s["median_tolerance"] = *r.median_tolerance;
  s["rows_beyond_tolerance"] = r.rows_beyond_tolerance;
  for (const auto& [kind, k] : r.by_kind) {
    nlohmann::ordered_json j;
    j["rows"] = k.rows;
    j["predicted"] = k.predicted;
    j["median_abs_error"] = round_to(k.median_abs_error, 1e-6);
    j["max_abs_error"] = round_to(k.max_abs_error, 1e-6);
    j["geomean_ratio"] = round_to(k.geomean_ratio, 1e-6);
    s["by_kind"][kind] = j;
  }
  doc["summary"] = s;
  if (!r.bucket_choices.empty()) {
    doc["bucket_choice"] = nlohmann::ordered_json::array();
    for (const auto& c : r.bucket_choices) {
      nlohmann::ordered_json j;
      j["group"] = c.group;
      j["caps_mb"] = c.caps;
      j["judged"] = c.judged;
      if (c.judged) {
        j["measured_best_mb"] = c.measured_best_cap;
        j["measured_best_us"] = round_to(us(c.measured_best), 1e-3);
        j["predicted_best_mb"] = c.predicted_best_cap;
        j["predicted_ties_mb"] = c.predicted_ties;
        j["measured_at_predicted_best_us"] = round_to(us(c.measured_at_predicted), 1e-3);
        j["shortfall"] = round_to(c.shortfall, 1e-6);
        j["tolerance"] = r.bucket_tolerance;
        j["ok"] = c.ok;
      } else {
        j["note"] = c.note;
      }
      doc["bucket_choice"].push_back(std::move(j));
    }
  }
  out << doc.dump(2) << "\n";
}

void write_csv(std::ostream& out, const ValidationReport& r) {
  CsvWriter csv(out);
  csv.row({"source", "kind", "case", "algorithm", "ranks", "size_bytes", "measured_us", "predicted_us", "error", "note"});
  for (const auto& row : r.rows) {
    const auto e = row.error();
    csv.row({row.source, fmt::format("{}", row.kind), row.case_name, row.algorithm, fmt::format("{}", row.ranks),
             fmt::format("{}", row.size.count), fmt::format("{:.3f}", us(row.measured)),
             row.predicted ? fmt::format("{:.3f}", us(*row.predicted)) : "", e ? fmt::format("{:.6f}", *e) : "", row.note});
  }
}

}  // namespace

void write_validation_report(std::ostream& out, const ValidationReport& report, OutputFormat format) {
  switch (format) {
    case OutputFormat::Table: write_table(out, report); break;
    case OutputFormat::Json: write_json(out, report); break;
    case OutputFormat::Csv: write_csv(out, report); break;
  }
}

}  // namespace collsim
