#include "sim/report/schedule_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "sim/algo/schedule_stats.hpp"
#include "sim/core/version.hpp"

namespace collsim {

namespace {

std::string_view kind_name(TransferKind k) {
  switch (k) {
    case TransferKind::Reduce: return "reduce";
    case TransferKind::Copy: return "copy";
    case TransferKind::Join: return "join";
  }
  return "?";
}

std::string_view leg_name(TransferLeg l) {
  switch (l) {
    case TransferLeg::EndToEnd: return "end-to-end";
    case TransferLeg::ToSwitch: return "to-switch";
    case TransferLeg::FromSwitch: return "from-switch";
  }
  return "?";
}

void write_table(std::ostream& out, const Schedule& s, const ScheduleStats& st, const ScheduleReportOptions& opt) {
  const Collective& c = s.collective();
  fmt::print(out, "# collsim schedule: {} {} on {} ranks ({} hosts), root {}, size {} B\n", s.algorithm(), to_string(c.op),
             c.ranks, opt.hosts, c.root, c.size.count);
  fmt::print(out, "# steps {}  transfers {}  chunks {}  bytes moved {}\n", st.steps.size(), st.transfers,
             s.chunks().size(), st.total.count);
  fmt::print(out, "#{:>5} {:>10} {:>14}\n", "step", "transfers", "bytes");
  for (std::size_t i = 0; i < st.steps.size(); ++i) {
    fmt::print(out, "{:>6} {:>10} {:>14}\n", i + 1, st.steps[i].transfers, st.steps[i].bytes.count);
  }
  fmt::print(out, "#{:>5} {:>14} {:>14}\n", "rank", "sent (B)", "received (B)");
  for (std::size_t r = 0; r < st.sent.size(); ++r) {
    fmt::print(out, "{:>6} {:>14} {:>14}\n", r, st.sent[r].count, st.received[r].count);
  }
  if (opt.list_transfers) {
    fmt::print(out, "#{:>7} {:>5} {:>6} {:>6} {:>12} {:>7} {:<7} {:<11} {}\n", "id", "step", "src", "dst", "bytes", "chunk",
               "kind", "leg", "deps");
    for (TransferId id = 0; id < s.size(); ++id) {
      const Transfer& t = s.transfer(id);
      const auto deps = s.deps(id);
      fmt::print(out, "{:>8} {:>5} {:>6} {:>6} {:>12} {:>7} {:<7} {:<11} {}\n", id, st.level[id], t.src, t.dst,
                 t.bytes.count, t.chunk, kind_name(t.kind), leg_name(t.leg), fmt::join(deps.begin(), deps.end(), ","));
    }
  }
  if (opt.verification) {
    if (opt.verification->ok) {
      fmt::print(out, "# verification: ok ({} transfers)\n", opt.verification->transfers);
    } else {
      fmt::print(out, "# verification: FAILED: {}\n", opt.verification->error);
    }
  }
}

void write_json(std::ostream& out, const Schedule& s, const ScheduleStats& st, const ScheduleReportOptions& opt) {
  const Collective& c = s.collective();
  nlohmann::ordered_json doc;
  doc[kVersionKey] = version_string();
  doc["algorithm"] = s.algorithm();
  doc["op"] = to_string(c.op);
  doc["ranks"] = c.ranks;
  doc["hosts"] = opt.hosts;
  doc["root"] = c.root;
  doc["size_bytes"] = c.size.count;
  doc["steps"] = st.steps.size();
  doc["transfers"] = st.transfers;
  doc["chunks"] = s.chunks().size();
  doc["bytes_moved"] = st.total.count;
  auto& steps = doc["per_step"] = nlohmann::ordered_json::array();
  for (const auto& step : st.steps) steps.push_back({{"transfers", step.transfers}, {"bytes", step.bytes.count}});
  auto& ranks = doc["per_rank"] = nlohmann::ordered_json::array();
  for (std::size_t r = 0; r < st.sent.size(); ++r) {
    ranks.push_back({{"rank", r}, {"sent_bytes", st.sent[r].count}, {"received_bytes", st.received[r].count}});
  }
  if (opt.list_transfers) {
    auto& list = doc["transfer_list"] = nlohmann::ordered_json::array();
    for (TransferId id = 0; id < s.size(); ++id) {
      const Transfer& t = s.transfer(id);
      const auto deps = s.deps(id);
      nlohmann::ordered_json j;
      j["id"] = id;
      j["step"] = st.level[id];
      j["src"] = t.src;
      j["dst"] = t.dst;
      j["bytes"] = t.bytes.count;
      j["chunk"] = t.chunk;
      j["kind"] = kind_name(t.kind);
      j["leg"] = leg_name(t.leg);
      j["pipelined"] = t.pipelined;
      j["deps"] = std::vector<TransferId>(deps.begin(), deps.end());
      list.push_back(std::move(j));
    }
  }
  if (opt.verification) {
    doc["verification"] = {{"ok", opt.verification->ok}, {"error", opt.verification->error}};
  }
  out << doc.dump(2) << "\n";
}

}  // namespace

void write_schedule_report(std::ostream& out, const Schedule& s, const ScheduleReportOptions& opt, OutputFormat format) {
  const ScheduleStats st = schedule_stats(s);
  if (format == OutputFormat::Json) {
    write_json(out, s, st, opt);
  } else {
    write_table(out, s, st, opt);
  }
}

}  // namespace collsim
