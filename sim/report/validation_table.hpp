// Writes `collsim validate` results: per row the measured and predicted time (us) and the
// error (predicted/measured - 1, in %), then the summary (median / max |error|, geometric
// mean of predicted/measured), per kind when collective and DDP rows are mixed, and the
// DDP bucket-choice verdicts, as a table, JSON or CSV (CSV: rows only).
#pragma once

#include <optional>
#include <ostream>
#include <vector>

#include "sim/measure/bucket_choice.hpp"
#include "sim/measure/validation.hpp"
#include "sim/report/collective_table.hpp"

namespace collsim {

struct ValidationReport {
  std::vector<ValidationRow> rows;
  ValidationSummary summary;
  std::optional<double> tolerance;         // per-row |error| bound (fraction)
  std::optional<double> median_tolerance;  // bound on the median |error| (fraction)
  int rows_beyond_tolerance = 0;
  std::vector<std::pair<std::string, ValidationSummary>> by_kind;  // filled when kinds are mixed
  std::vector<BucketChoice> bucket_choices;
  double bucket_tolerance = 0.03;  // fraction
};

// The report in each format; the views read `report`, which must outlive them.
[[nodiscard]] ReportViews validation_report_views(const ValidationReport& report);

}  // namespace collsim
