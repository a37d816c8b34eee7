#include "sim/cli/report_output.hpp"

#include <iostream>

namespace collsim::cli {

void ReportOutput::put(OutputFormat format, const ReportViews& views) {
  if (capturing_) {
    captured_ = views.json();
  } else {
    write_report(std::cout, format, views);
  }
}

}  // namespace collsim::cli
