#include "sim/measure/bucket_choice.hpp"

#include <algorithm>
#include <map>

namespace collsim {

namespace {

struct CapTimes {
  double measured_ps_sum = 0;
  int runs = 0;
  std::optional<Time> predicted;  // the same for every run of one cap
  bool unpredicted = false;
};

BucketChoice judge(const std::string& group, const std::map<double, CapTimes>& by_cap, double tolerance) {
  BucketChoice c;
  c.group = group;
  for (const auto& [cap, t] : by_cap) c.caps.push_back(cap);
  if (by_cap.size() < 2) {
    c.note = "one bucket_cap_mb only: nothing to choose";
    return c;
  }
  for (const auto& [cap, t] : by_cap) {
    if (t.unpredicted) {
      c.note = "not every bucket_cap_mb is predicted";
      return c;
    }
  }
  const auto measured = [](const CapTimes& t) {
    return Time{static_cast<std::int64_t>(t.measured_ps_sum / t.runs + 0.5)};
  };
  bool first = true;
  Time best_predicted;
  for (const auto& [cap, t] : by_cap) {  // ascending caps: strict < keeps the smaller cap on ties
    const Time m = measured(t);
    if (first || m < c.measured_best) c.measured_best_cap = cap, c.measured_best = m;
    if (first || *t.predicted < best_predicted) c.predicted_best_cap = cap, best_predicted = *t.predicted;
    first = false;
  }
  for (const auto& [cap, t] : by_cap) {
    if (cap != c.predicted_best_cap && *t.predicted == best_predicted) c.predicted_ties.push_back(cap);
  }
  c.measured_at_predicted = measured(by_cap.at(c.predicted_best_cap));
  c.shortfall = static_cast<double>(c.measured_at_predicted.ps) / static_cast<double>(c.measured_best.ps) - 1.0;
  c.judged = true;
  c.ok = c.predicted_best_cap == c.measured_best_cap || c.shortfall <= tolerance;
  return c;
}

}  // namespace

std::vector<BucketChoice> judge_bucket_choices(const std::vector<ValidationRow>& rows, double tolerance) {
  std::vector<std::string> order;
  std::map<std::string, std::map<double, CapTimes>> groups;
  for (const auto& r : rows) {
    if (r.kind != "ddp") continue;
    auto [it, fresh] = groups.try_emplace(r.group);
    if (fresh) order.push_back(r.group);
    CapTimes& t = it->second[r.bucket_cap_mb];
    t.measured_ps_sum += static_cast<double>(r.measured.ps);
    ++t.runs;
    if (r.predicted) {
      t.predicted = r.predicted;
    } else {
      t.unpredicted = true;
    }
  }
  std::vector<BucketChoice> out;
  for (const auto& g : order) out.push_back(judge(g, groups.at(g), tolerance));
  return out;
}

}  // namespace collsim
