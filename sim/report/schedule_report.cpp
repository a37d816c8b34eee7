#include "sim/report/schedule_report.hpp"

#include <memory>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/algo/schedule_stats.hpp"
#include "sim/core/name_table.hpp"

namespace collsim {

namespace {

constexpr auto kKindNames =
    name_table<TransferKind>({{TransferKind::Reduce, "reduce"}, {TransferKind::Copy, "copy"}, {TransferKind::Join, "join"}});
constexpr auto kLegNames = name_table<TransferLeg>(
    {{TransferLeg::EndToEnd, "end-to-end"}, {TransferLeg::ToSwitch, "to-switch"}, {TransferLeg::FromSwitch, "from-switch"}, {TransferLeg::Span, "span"}});

std::vector<std::size_t> indices(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), std::size_t{0});
  return v;
}

using I = std::size_t;

std::vector<Column<I>> step_columns(const ScheduleStats& st) {
  return {{.name = "step", .value = [](I i) { return Json(i + 1); }, .shown = kInTable, .title = "step", .width = 6},
          {.name = "transfers", .value = [&st](I i) { return Json(st.steps[i].transfers); }, .title = "transfers", .width = 10},
          {.name = "bytes", .value = [&st](I i) { return Json(st.steps[i].bytes.count); }, .title = "bytes", .width = 14}};
}

std::vector<Column<I>> schedule_rank_columns(const ScheduleStats& st) {
  return {{.name = "rank", .value = [](I r) { return Json(r); }, .title = "rank", .width = 6},
          {.name = "sent_bytes", .value = [&st](I r) { return Json(st.sent[r].count); }, .title = "sent (B)", .width = 14},
          {.name = "received_bytes", .value = [&st](I r) { return Json(st.received[r].count); }, .title = "received (B)",
           .width = 14}};
}

std::vector<Column<I>> transfer_columns(const Schedule& s, const ScheduleStats& st) {
  const auto t = [&s](I id) { return s.transfer(static_cast<TransferId>(id)); };
  const auto deps = [&s](I id) {
    const auto d = s.deps(static_cast<TransferId>(id));
    return std::vector<TransferId>(d.begin(), d.end());
  };
  return {{.name = "id", .value = [](I id) { return Json(id); }, .title = "id", .width = 8},
          {.name = "step", .value = [&st](I id) { return Json(st.level[id]); }, .title = "step", .width = 5},
          {.name = "src", .value = [t](I id) { return Json(t(id).src); }, .title = "src", .width = 6},
          {.name = "dst", .value = [t](I id) { return Json(t(id).dst); }, .title = "dst", .width = 6},
          {.name = "bytes", .value = [t](I id) { return Json(t(id).bytes.count); }, .title = "bytes", .width = 12},
          {.name = "chunk", .value = [t](I id) { return Json(t(id).chunk); }, .title = "chunk", .width = 7},
          {.name = "kind", .value = [t](I id) { return Json(kKindNames.name(t(id).kind)); }, .title = "kind", .width = 7,
           .align = Align::Left},
          {.name = "leg", .value = [t](I id) { return Json(kLegNames.name(t(id).leg)); }, .title = "leg", .width = 11,
           .align = Align::Left},
          {.name = "pipelined", .value = [t](I id) { return Json(t(id).pipelined); }, .shown = kInJson},
          {.name = "deps", .value = [deps](I id) { return Json(deps(id)); }, .title = "deps",
           .text = [deps](I id) { return fmt::format("{}", fmt::join(deps(id), ",")); }}};
}

void schedule_table(std::ostream& out, const Schedule& s, const ScheduleStats& st, const ScheduleReportOptions& opt) {
  const Collective& c = s.collective();
  fmt::print(out, "# collsim schedule: {} {} on {} ranks ({} hosts), root {}, size {} B\n", s.algorithm(), to_string(c.op),
             c.ranks, opt.hosts, c.root, c.size.count);
  fmt::print(out, "# steps {}  transfers {}  chunks {}  bytes moved {}\n", st.steps.size(), st.transfers,
             s.chunks().size(), st.total.count);
  write_text_table(out, step_columns(st), indices(st.steps.size()), {.mark = '#'});
  write_text_table(out, schedule_rank_columns(st), indices(st.sent.size()), {.mark = '#'});
  if (opt.list_transfers) write_text_table(out, transfer_columns(s, st), indices(s.size()), {.mark = '#'});
  if (opt.verification) {
    if (opt.verification->ok) {
      fmt::print(out, "# verification: ok ({} transfers)\n", opt.verification->transfers);
    } else {
      fmt::print(out, "# verification: FAILED: {}\n", opt.verification->error);
    }
  }
}

Json schedule_json(const Schedule& s, const ScheduleStats& st, const ScheduleReportOptions& opt) {
  const Collective& c = s.collective();
  Json doc = report_document({{"algorithm", s.algorithm()}, {"op", to_string(c.op)}, {"ranks", c.ranks},
                              {"hosts", opt.hosts}, {"root", c.root}, {"size_bytes", c.size.count},
                              {"steps", st.steps.size()}, {"transfers", st.transfers}, {"chunks", s.chunks().size()},
                              {"bytes_moved", st.total.count}, {"per_step", json_rows(step_columns(st), indices(st.steps.size()))},
                              {"per_rank", json_rows(schedule_rank_columns(st), indices(st.sent.size()))}});
  if (opt.list_transfers) doc["transfer_list"] = json_rows(transfer_columns(s, st), indices(s.size()));
  if (opt.verification) doc["verification"] = {{"ok", opt.verification->ok}, {"error", opt.verification->error}};
  return doc;
}

}  // namespace

ReportViews schedule_report_views(const Schedule& s, const ScheduleReportOptions& opt) {
  auto st = std::make_shared<const ScheduleStats>(schedule_stats(s));
  return {[&s, &opt, st](std::ostream& o) { schedule_table(o, s, *st, opt); }, [&s, &opt, st] { return schedule_json(s, *st, opt); }, {}};
}

}  // namespace collsim
