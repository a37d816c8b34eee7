// Writes a schedule for `collsim schedule`: its summary (steps, transfers, bytes), bytes
// per step and per rank, optionally every transfer, and the verification result, as a
// table or JSON. Bytes are bytes.
#pragma once

#include <optional>
#include <ostream>

#include "sim/algo/schedule.hpp"
#include "sim/algo/symbolic_executor.hpp"
#include "sim/report/collective_table.hpp"

namespace collsim {

struct ScheduleReportOptions {
  int hosts = 1;
  bool list_transfers = false;
  std::optional<Verification> verification;
};

// The report as a table (also for --format csv) or JSON; the views read `s` and `opt`,
// which must outlive them.
[[nodiscard]] ReportViews schedule_report_views(const Schedule& s, const ScheduleReportOptions& opt);

}  // namespace collsim
