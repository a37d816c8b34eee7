// The one CSV writer: RFC 4180 quoting (a field with a comma, quote, CR or LF is quoted,
// inner quotes doubled) and LF line ends, as every collsim CSV has always ended its lines.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace collsim {

// `s` as one CSV field: unchanged unless it holds , " CR or LF.
[[nodiscard]] std::string csv_field(std::string_view s);

class CsvWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}
  // One record: fields quoted as needed, separated by commas, ended by "\n".
  void row(const std::vector<std::string>& fields);

 private:
  std::ostream& out_;
};

}  // namespace collsim
