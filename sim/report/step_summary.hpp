// The figures a training-step report opens with, shared by the DDP and the ZeRO/FSDP
// reports: times in ms (table "{:>12.3f} ms", JSON doubles), the exact iteration in ps
// (JSON only) and the overlap of communication with compute in %.
#pragma once

#include <string>
#include <vector>

#include "sim/report/table_model.hpp"

namespace collsim {

[[nodiscard]] inline Field ms_field(std::string key, std::string label, Time t) {
  return {std::move(key), std::move(label), t.ms(), "{:>12.3f} ms"};
}

// `Result` has iteration, forward, backward, optimizer, comm_total, comm_busy and
// exposed_comm times and overlap_percent; `compute` are its own figures between backward
// and the optimizer, which is labelled `optimizer`.
template <typename Result>
[[nodiscard]] std::vector<Field> step_fields(const Result& r, const std::vector<Field>& compute, const char* optimizer) {
  std::vector<Field> f{ms_field("iteration_ms", "iteration", r.iteration), ms_field("forward_ms", "forward compute", r.forward),
                       ms_field("backward_ms", "backward compute", r.backward)};
  f.insert(f.end(), compute.begin(), compute.end());
  for (Field x : {ms_field("optimizer_ms", optimizer, r.optimizer), ms_field("communication_ms", "communication (sum)", r.comm_total),
                  ms_field("communication_busy_ms", "communication (busy)", r.comm_busy),
                  ms_field("exposed_communication_ms", "exposed communication", r.exposed_comm), Field{"iteration_ps", "", r.iteration.ps},
                  Field{"overlap_percent", "overlap", r.overlap_percent, "{:>12.1f} %"}}) {
    f.push_back(std::move(x));
  }
  return f;
}

}  // namespace collsim
