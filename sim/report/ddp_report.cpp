#include "sim/report/ddp_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>


#include "sim/report/step_summary.hpp"
#include "sim/report/straggler_report.hpp"

namespace collsim {

namespace {

using B = BucketTiming;

std::vector<Field> summary(const DdpResult& r) {
  return step_fields(r, {ms_field("bucket_copies_ms", "bucket copies", r.copies), ms_field("hook_compute_ms", "comm hook compute", r.hook_compute)},
                     "optimizer");
}

// One row per bucket; the per-bucket (algorithm/protocol) choice is JSON only.
std::vector<Column<B>> bucket_columns(const DdpReport& rep) {
  const auto count = [](std::int64_t v) { return Json(v); };
  return {
      {.name = "bucket", .value = [](const B& b) { return Json(b.index); }, .shown = kInTable | kInCsv, .title = "bucket", .width = 6},
      {.name = "index", .value = [](const B& b) { return Json(b.index); }, .shown = kInJson},
      {.name = "params", .value = [](const B& b) { return Json(b.params); }, .title = "params", .width = 7},
      {.name = "bytes", .value = [count](const B& b) { return count(b.bytes.count); }, .title = "bytes", .unit = "(B)", .width = 14},
      {.name = "wire_bytes", .value = [count](const B& b) { return count(b.wire_bytes.count); }, .title = "wire bytes",
       .unit = "(B)", .width = 14},
      {.name = "collectives", .value = [](const B& b) { return Json(b.collectives); }, .shown = kInJson},
      ms_column<B>("ready_ms", "ready", "(ms)", 11, [](const B& b) { return b.ready; }),
      ps_column<B>("ready_ps", [](const B& b) { return b.ready; }),
      ms_column<B>("launch_ms", "launch", "(ms)", 11, [](const B& b) { return b.launched; }),
      ps_column<B>("launch_ps", [](const B& b) { return b.launched; }),
      ms_column<B>("start_ms", "start", "(ms)", 11, [](const B& b) { return b.start; }),
      ps_column<B>("start_ps", [](const B& b) { return b.start; }),
      ms_column<B>("end_ms", "end", "(ms)", 11, [](const B& b) { return b.end; }),
      ps_column<B>("end_ps", [](const B& b) { return b.end; }),
      ms_column<B>("comm_ms", "comm", "(ms)", 11, [](const B& b) { return b.end - b.start; }),
      {.name = "choice",
       .value =
           [&rep](const B& b) {
             const auto i = static_cast<std::size_t>(&b - rep.result.buckets.data());
             return i < rep.bucket_choices.size() && !rep.bucket_choices[i].empty() ? Json(rep.bucket_choices[i]) : Json();
           },
       .shown = kInJson,
       .omit_null = true},
  };
}

std::string proofs_text(const std::vector<ScheduleProof>& proofs) {
  if (proofs.empty()) return "none (one rank)";
  std::string text;
  for (const auto& p : proofs) {
    text += fmt::format("{}{} on {} ranks ({} transfers)", text.empty() ? "" : ", ", p.algorithm, p.ranks, p.transfers);
  }
  return text;
}

void write_elastic(std::ostream& out, const ElasticResult& e) {
  fmt::print(out, "\n# elastic run: {} steps, {} change(s) of membership; schedules rebuilt and proved by the symbolic executor\n",
             e.phases.back().last_step + 1, e.rebuilds.size());
  for (std::size_t i = 0; i < e.phases.size(); ++i) {
    const ElasticPhase& p = e.phases[i];
    fmt::print(out, "steps {}-{}: {} ranks, iteration {:.3f} ms; proved: {}\n", p.first_step, p.last_step, p.ranks,
               p.step.iteration.ms(), proofs_text(p.proofs));
    if (i < e.rebuilds.size()) {
      const ElasticRebuild& r = e.rebuilds[i];
      fmt::print(out, "rebuild before step {} ({} -> {} ranks): {:.3f} ms = rendezvous {:.3f} ms{} + communicator init {} "
                 "+ state broadcast {:.3f} ms ({} B from rank 0 in {} broadcast(s))\n",
                 r.step, r.from_ranks, r.to_ranks, r.total.ms(), r.rendezvous.ms(),
                 r.rendezvous_given                 ? ""
                 : r.rendezvous.ps > 0 ? " (torchelastic's last-call wait: below the largest size so far; --rendezvous)"
                                       : " (back at the largest size: no last-call wait; --rendezvous)",
                 r.comm_init ? fmt::format("{:.3f} ms", r.comm_init->ms()) : std::string("not modelled (--comm-init)"),
                 r.state_broadcast.ms(), r.state_bytes.count, r.broadcasts);
    }
  }
  fmt::print(out, "run: steps {:.3f} ms + rebuilds {:.3f} ms = {:.3f} ms\n", e.steps_time.ms(), e.rebuild_time.ms(), e.total.ms());
}

Json elastic_json(const ElasticResult& e) {
  Json phases = Json::array(), rebuilds = Json::array();
  for (const auto& p : e.phases) {
    Json proofs = Json::array();
    for (const auto& q : p.proofs) proofs.push_back({{"algorithm", q.algorithm}, {"ranks", q.ranks}, {"transfers", q.transfers}});
    phases.push_back({{"first_step", p.first_step}, {"last_step", p.last_step}, {"ranks", p.ranks},
                      {"iteration_ms", p.step.iteration.ms()}, {"iteration_ps", p.step.iteration.ps},
                      {"exposed_communication_ms", p.step.exposed_comm.ms()}, {"proved_schedules", std::move(proofs)}});
  }
  for (const auto& r : e.rebuilds) {
    rebuilds.push_back({{"before_step", r.step}, {"from_ranks", r.from_ranks}, {"to_ranks", r.to_ranks},
                        {"rendezvous_ms", r.rendezvous.ms()}, {"rendezvous_given", r.rendezvous_given},
                        {"comm_init_ms", r.comm_init ? Json(r.comm_init->ms()) : Json()},
                        {"state_bytes", r.state_bytes.count}, {"state_broadcasts", r.broadcasts},
                        {"state_broadcast_ms", r.state_broadcast.ms()}, {"total_ms", r.total.ms()}, {"total_ps", r.total.ps}});
  }
  return {{"phases", std::move(phases)}, {"rebuilds", std::move(rebuilds)}, {"steps_ms", e.steps_time.ms()},
          {"rebuilds_ms", e.rebuild_time.ms()}, {"total_ms", e.total.ms()}, {"total_ps", e.total.ps}};
}

void write_table(std::ostream& out, const DdpReport& rep) {
  const DdpResult& r = rep.result;
  fmt::print(out, "# collsim ddp: {} on {} ({} ranks, {}), {} {} all-reduce, bucket_cap_mb {}, iteration {}{}\n",
             rep.workload, rep.topology, rep.ranks, rep.device, rep.backend, rep.algorithm, rep.bucket_cap_mb,
             rep.iteration, r.accumulate > 1 ? fmt::format(", {} micro-steps", r.accumulate) : "");
  write_field_lines(out, summary(r));
  out << "\n";
  write_text_table(out, bucket_columns(rep), r.buckets);
  if (rep.stragglers) write_stragglers(out, *rep.stragglers, rep.jitter_sigma, rep.straggler_seed);
  if (rep.elastic) write_elastic(out, *rep.elastic);
}

Json report_json(const DdpReport& rep) {
  const DdpResult& r = rep.result;
  Json doc = report_document({{"workload", rep.workload}, {"topology", rep.topology}, {"ranks", rep.ranks},
                              {"device", rep.device}, {"backend", rep.backend}, {"algorithm", rep.algorithm},
                              {"bucket_cap_mb", rep.bucket_cap_mb}, {"iteration", rep.iteration}, {"micro_steps", r.accumulate}});
  add_fields(doc, summary(r));
  doc["buckets"] = json_rows(bucket_columns(rep), r.buckets);
  if (rep.stragglers) doc["stragglers"] = stragglers_json(*rep.stragglers, rep.jitter_sigma, rep.straggler_seed);
  if (rep.elastic) doc["elastic"] = elastic_json(*rep.elastic);
  return doc;
}

void write_csv(std::ostream& o, const DdpReport& r) { write_csv_table(o, bucket_columns(r), r.result.buckets); }

}  // namespace

ReportViews ddp_report_views(const DdpReport& report) { return views_of(report, write_table, report_json, write_csv); }

}  // namespace collsim
