// Where a command's report goes: stdout in the format the command was asked for, or, while
// `collsim check` reruns the command, the report's JSON document itself (no text between).
#pragma once

#include <optional>

#include "sim/report/table_model.hpp"

namespace collsim::cli {

class ReportOutput {
 public:
  // Writes `views` on stdout in `format`, or keeps their JSON document when capturing.
  void put(OutputFormat format, const ReportViews& views);
  // From now on keep each report's JSON document (the last one wins) instead of printing.
  void capture_json() { capturing_ = true; }
  [[nodiscard]] const std::optional<Json>& captured() const { return captured_; }

 private:
  bool capturing_ = false;
  std::optional<Json> captured_;
};

}  // namespace collsim::cli
