// A plan row as JSON and back, exactly (times as integer ps, sizes as integer bytes,
// doubles in their shortest round-trip form): the form in which a plan's work items
// travel between MPI ranks and sit in a resumable run's journal.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/plan/plan_eval.hpp"

namespace collsim {

[[nodiscard]] nlohmann::json plan_row_to_json(const PlanRow& row);
// Throws InternalError when `j` is not what plan_row_to_json writes.
[[nodiscard]] PlanRow plan_row_from_json(const nlohmann::json& j);

}  // namespace collsim
