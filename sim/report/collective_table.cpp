#include "sim/report/collective_table.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/report/table_model.hpp"

namespace collsim {

namespace {

constexpr int kFloatBytes = 4;

using Prediction = CollectivePrediction;

// nccl-tests conventions: float elements; gather-type collectives print redop "none";
// rootless collectives print root -1.
std::int64_t count(const Prediction& p) {
  const CollectiveOp op = p.collective.op;
  std::int64_t n = p.collective.size.count / kFloatBytes;
  if (op == CollectiveOp::AllGather || op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllToAll) n /= p.collective.ranks;
  return n;
}

const char* redop(const Prediction& p) {
  const CollectiveOp op = p.collective.op;
  return op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter || op == CollectiveOp::Reduce ? "sum" : "none";
}

int root(const Prediction& p) {
  const CollectiveOp op = p.collective.op;
  return op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce ? p.collective.root : -1;
}

// nccl-tests' prediction_columns, then how the row was played.
const std::vector<Column<Prediction>>& prediction_columns() {
  static const std::vector<Column<Prediction>> cols{
      {.name = "op", .value = [](const Prediction& p) { return Json(to_string(p.collective.op)); }, .shown = kInCsv | kInJson},
      {.name = "ranks", .value = [](const Prediction& p) { return Json(p.collective.ranks); }, .shown = kInCsv | kInJson},
      {.name = "size_bytes", .value = [](const Prediction& p) { return Json(p.collective.size.count); }, .title = "size", .unit = "(B)", .width = 12},
      {.name = "count", .value = [](const Prediction& p) { return Json(count(p)); }, .title = "count", .unit = "(elements)", .width = 13},
      {.name = "type", .value = [](const Prediction&) { return Json("float"); }, .title = "type", .width = 9},
      {.name = "redop", .value = [](const Prediction& p) { return Json(redop(p)); }, .title = "redop", .width = 6},
      {.name = "root", .value = [](const Prediction& p) { return Json(root(p)); }, .title = "root", .width = 6},
      {.name = "time_ps", .value = [](const Prediction& p) { return Json(p.time.ps); }, .shown = kInJson},
      {.name = "time_us", .value = [](const Prediction& p) { return Json(p.time.us()); }, .title = "time", .unit = "(us)", .width = 12,
       .text_format = "{:.2f}", .csv_format = "{:.6f}"},
      {.name = "algbw_gbps", .value = [](const Prediction& p) { return Json(p.algbw_gbps); }, .title = "algbw", .unit = "(GB/s)",
       .width = 9, .text_format = "{:.2f}", .csv_format = "{:.6f}"},
      {.name = "busbw_gbps", .value = [](const Prediction& p) { return Json(p.busbw_gbps); }, .title = "busbw", .unit = "(GB/s)",
       .width = 9, .text_format = "{:.2f}", .csv_format = "{:.6f}"},
      {.name = "algorithm", .value = [](const Prediction& p) { return Json(p.algorithm); }, .title = "algorithm", .width = 10,
       .align = Align::Left, .gap = 2},
      {.name = "protocol", .value = [](const Prediction& p) { return Json(to_string(p.protocol)); }, .title = "protocol", .width = 8,
       .align = Align::Left},
      {.name = "channels", .value = [](const Prediction& p) { return Json(p.channels); }, .title = "channels"},
  };
  return cols;
}

const std::vector<Column<Crossover>>& crossover_columns() {
  using X = Crossover;
  static const std::vector<Column<X>> cols{
      {.name = "from_algorithm", .value = [](const X& x) { return Json(x.from_algorithm); }},
      {.name = "from_protocol", .value = [](const X& x) { return Json(to_string(x.from_protocol)); }},
      {.name = "to_algorithm", .value = [](const X& x) { return Json(x.to_algorithm); }},
      {.name = "to_protocol", .value = [](const X& x) { return Json(to_string(x.to_protocol)); }},
      {.name = "size_bytes", .value = [](const X& x) { return Json(x.at.count); }},
  };
  return cols;
}

// The late ranks, latest first (at most 16 named), and how many entered at 0.
void write_late_ranks(std::ostream& out, const std::vector<Time>& at) {
  std::vector<std::size_t> late;
  for (std::size_t k = 0; k < at.size(); ++k) {
    if (at[k].ps > 0) late.push_back(k);
  }
  std::stable_sort(late.begin(), late.end(), [&](std::size_t x, std::size_t y) { return at[x] > at[y]; });
  std::string named;
  for (std::size_t i = 0; i < late.size() && i < 16; ++i) {
    named += fmt::format("{}rank {} at {:.2f} us", i ? ", " : "", late[i], at[late[i]].us());
  }
  if (late.size() > 16) named += fmt::format(", {} more", late.size() - 16);
  fmt::print(out, "# late ranks: {} of {} enter after the first: {}; a transfer starts once both its ranks have entered\n",
             late.size(), at.size(), named.empty() ? "none" : named);
}

void collective_table(std::ostream& out, const CollectiveReport& r) {
  if (!r.rows.empty()) {
    const auto& c = r.rows.front().collective;
    fmt::print(out, "# collsim collective: {} on {} ({} ranks)\n", to_string(c.op), r.topology, c.ranks);
  }
  write_text_table(out, prediction_columns(), r.rows, {.mark = '#'});
  for (const auto& x : r.crossovers) {
    fmt::print(out, "# crossover: {}/{} -> {}/{} at {} B\n", x.from_algorithm, to_string(x.from_protocol),
               x.to_algorithm, to_string(x.to_protocol), x.at.count);
  }
  if (!r.rank_arrival.empty()) write_late_ranks(out, r.rank_arrival);
  const Time last = r.rank_arrival.empty() ? Time{} : *std::max_element(r.rank_arrival.begin(), r.rank_arrival.end());
  const std::string reference = r.scenario.empty() ? "with every rank on time"
                                : r.rank_arrival.empty() ? "healthy"
                                                         : "healthy and with every rank on time";
  for (std::size_t i = 0; i < r.healthy.size() && i < r.rows.size(); ++i) {
    const double with = r.rows[i].time.us(), without = r.healthy[i].time.us();
    const std::string what = r.scenario.empty() ? "late ranks" : fmt::format("scenario {}", r.scenario);
    const std::string after = r.rank_arrival.empty() ? ""
                                                     : fmt::format(" ({:.2f} us after the last rank entered)", with - last.us());
    fmt::print(out, "# {}: {} B takes {:.2f} us{} against {:.2f} us {} ({:+.1f} %)\n", what, r.rows[i].collective.size.count,
               with, after, without, reference, 100.0 * (with - without) / without);
  }
}

Json collective_json(const CollectiveReport& r) {
  Json doc = report_document({{"topology", r.topology}, {"rows", json_rows(prediction_columns(), r.rows)}});
  if (!r.crossovers.empty()) doc["crossovers"] = json_rows(crossover_columns(), r.crossovers);
  if (!r.scenario.empty()) doc["scenario"] = r.scenario;
  if (!r.rank_arrival.empty()) {
    Json late = Json::array();
    for (std::size_t k = 0; k < r.rank_arrival.size(); ++k) {
      if (r.rank_arrival[k].ps > 0) late.push_back({{"rank", k}, {"arrival_us", r.rank_arrival[k].us()}, {"arrival_ps", r.rank_arrival[k].ps}});
    }
    doc["late_ranks"] = std::move(late);
  }
  if (!r.healthy.empty()) doc["healthy_rows"] = json_rows(prediction_columns(), r.healthy);
  return doc;
}

void collective_csv(std::ostream& o, const CollectiveReport& r) { write_csv_table(o, prediction_columns(), r.rows); }

}  // namespace

ReportViews collective_report_views(const CollectiveReport& report) { return views_of(report, collective_table, collective_json, collective_csv); }

}  // namespace collsim
