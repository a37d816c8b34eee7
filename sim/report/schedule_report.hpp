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

void write_schedule_report(std::ostream& out, const Schedule& s, const ScheduleReportOptions& opt, OutputFormat format);

}  // namespace collsim
