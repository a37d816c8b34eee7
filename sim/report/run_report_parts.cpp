#include "sim/report/run_report_parts.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace collsim {

std::string hours(double s) { return fmt::format("{:.3f} h", s / 3600); }
std::string minutes(double s) { return fmt::format("{:.2f} min", s / 60); }

void write_run_heading(std::ostream& out, int gpus, int hosts, int links, const RunModel& m) {
  fmt::print(out, "# collsim run: {} GPUs ({} hosts, {} links), {} steps of {:g} s = {} of training\n", gpus, hosts, links,
             m.steps, m.step_s, hours(m.work_s()));
}

void write_checkpoint_line(std::ostream& out, const RunModel& m, const std::string& choice) {
  fmt::print(out, "# checkpoint every {} of training ({} steps; {}), write {}, restart {}, restore {}\n",
             minutes(static_cast<double>(m.steps_per_checkpoint()) * m.step_s), m.steps_per_checkpoint(), choice,
             minutes(m.checkpoint_s), minutes(m.restart_s), minutes(m.restore_s));
}

void write_time_lost(std::ostream& out, double lost_s, double checkpoint_s, double recovery_s) {
  fmt::print(out, "{:<24}{:>12}   (training and checkpoints undone)\n", "lost work", hours(lost_s));
  fmt::print(out, "{:<24}{:>12}\n", "checkpointing", hours(checkpoint_s));
  fmt::print(out, "{:<24}{:>12}   (restarts and restores)\n", "recovery", hours(recovery_s));
}

void add_run_fields(Json& doc, int gpus, int hosts, int links, const RunModel& m) {
  doc["gpus"] = gpus;
  doc["hosts"] = hosts;
  doc["links"] = links;
  doc["step_s"] = m.step_s;
  doc["steps"] = m.steps;
  doc["training_s"] = m.work_s();
}

void add_checkpoint_fields(Json& doc, const RunModel& m, const std::string& choice) {
  doc["checkpoint_interval_s"] = static_cast<double>(m.steps_per_checkpoint()) * m.step_s;
  doc["checkpoint_interval_steps"] = m.steps_per_checkpoint();
  doc["checkpoint_interval_choice"] = choice;
  doc["checkpoint_write_s"] = m.checkpoint_s;
  doc["restart_s"] = m.restart_s;
  doc["restore_s"] = m.restore_s;
}

void add_time_lost(Json& doc, double lost_s, double checkpoint_s, double recovery_s) {
  doc["lost_s"] = lost_s;
  doc["checkpointing_s"] = checkpoint_s;
  doc["recovery_s"] = recovery_s;
}

}  // namespace collsim
