// What the two reports of `collsim run` (failure rates: goodput_report; a failure trace:
// trace_run_report) print alike: the run's heading, its checkpoint settings, where the
// time went, and the same fields in JSON.
#pragma once

#include <ostream>
#include <string>

#include "sim/report/table_model.hpp"
#include "sim/train/goodput.hpp"

namespace collsim {

[[nodiscard]] std::string hours(double s);    // "1.234 h"
[[nodiscard]] std::string minutes(double s);  // "40.25 min"

// "# collsim run: G GPUs (H hosts, L links), N steps of S s = T of training"
void write_run_heading(std::ostream& out, int gpus, int hosts, int links, const RunModel& m);
// "# checkpoint every ... (k steps; choice), write ..., restart ..., restore ..."
void write_checkpoint_line(std::ostream& out, const RunModel& m, const std::string& choice);
// The lost work, checkpointing and recovery lines.
void write_time_lost(std::ostream& out, double lost_s, double checkpoint_s, double recovery_s);

// The JSON fields of the same, appended to `doc` in this order: gpus, hosts, links,
// step_s, steps, training_s; then (add_checkpoint_fields) the checkpoint interval, its
// steps and choice, the write, restart and restore; then (add_time_lost) lost_s,
// checkpointing_s, recovery_s.
void add_run_fields(Json& doc, int gpus, int hosts, int links, const RunModel& m);
void add_checkpoint_fields(Json& doc, const RunModel& m, const std::string& choice);
void add_time_lost(Json& doc, double lost_s, double checkpoint_s, double recovery_s);

}  // namespace collsim
