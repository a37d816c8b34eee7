// Issue 7 acceptance 2's bucket check: among DDP runs that differ only in bucket_cap_mb,
// the predicted best cap must be the measured best, or its measured iteration time must
// be within a tolerance (3 %) of the measured best. Times in ps, caps in MiB.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/measure/validation.hpp"

namespace collsim {

struct BucketChoice {
  std::string group;              // "mlp:... n=2 gloo on topo.json"
  std::vector<double> caps;       // distinct bucket_cap_mb, ascending
  bool judged = false;            // two or more caps, all predicted
  std::string note;               // why not judged
  double measured_best_cap = 0;
  Time measured_best;             // its measured time (mean over repeated runs of one cap)
  double predicted_best_cap = 0;  // cap with the smallest predicted time (ties: smaller cap)
  std::vector<double> predicted_ties;  // other caps predicted exactly as fast (same buckets, say)
  Time measured_at_predicted;     // measured time of predicted_best_cap
  double shortfall = 0;           // measured_at_predicted / measured_best - 1
  bool ok = false;
};

// Groups the ddp rows by ValidationRow::group (in order of first appearance) and judges
// each with `tolerance` (a fraction, 0.03 = 3 %).
[[nodiscard]] std::vector<BucketChoice> judge_bucket_choices(const std::vector<ValidationRow>& rows, double tolerance);

}  // namespace collsim
