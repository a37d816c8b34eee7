#include "sim/report/elastic_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace collsim {

namespace {

std::string proofs_text(const std::vector<ScheduleProof>& proofs) {
  if (proofs.empty()) return "none (one rank)";
  std::string text;
  for (const auto& p : proofs) {
    text += fmt::format("{}{} on {} ranks ({} transfers)", text.empty() ? "" : ", ", p.algorithm, p.ranks, p.transfers);
  }
  return text;
}

}  // namespace

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
                 "+ state broadcast {:.3f} ms ({} B from rank 0 in {} broadcast(s)){}\n",
                 r.step, r.from_ranks, r.to_ranks, r.total.ms(), r.rendezvous.ms(),
                 r.rendezvous_given                 ? ""
                 : r.rendezvous.ps > 0 ? " (torchelastic's last-call wait: below the largest size so far; --rendezvous)"
                                       : " (back at the largest size: no last-call wait; --rendezvous)",
                 r.comm_init ? fmt::format("{:.3f} ms", r.comm_init->ms()) : std::string("not modelled (--comm-init)"),
                 r.state_broadcast.ms(), r.state_bytes.count, r.broadcasts,
                 r.reshard_bytes.count > 0 ? fmt::format(" + re-shard {:.3f} ms ({} B of sharded state, {} B to each rank)",
                                                         r.reshard.ms(), r.reshard_bytes.count, r.reshard_per_rank.count)
                                           : std::string());
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
                        {"state_broadcast_ms", r.state_broadcast.ms()}, {"reshard_bytes", r.reshard_bytes.count},
                        {"reshard_bytes_per_rank", r.reshard_per_rank.count}, {"reshard_ms", r.reshard.ms()},
                        {"total_ms", r.total.ms()}, {"total_ps", r.total.ps}});
  }
  return {{"phases", std::move(phases)}, {"rebuilds", std::move(rebuilds)}, {"steps_ms", e.steps_time.ms()},
          {"rebuilds_ms", e.rebuild_time.ms()}, {"total_ms", e.total.ms()}, {"total_ps", e.total.ps}};
}

}  // namespace collsim
