// The output model of sim/report: a report declares each table's columns once (CSV header
// and JSON key, the cell's value, how the text table and CSV format it, the text table's
// title, unit, width and alignment) and its summary figures once (JSON key, text label,
// value); one writer each renders the aligned text table, the CSV (through CsvWriter,
// RFC 4180) and the JSON (nlohmann::ordered_json). Units are those the names say.
#pragma once

#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/units.hpp"
#include "sim/report/csv_writer.hpp"

namespace collsim {

enum class OutputFormat { Table, Json, Csv };

using Json = nlohmann::ordered_json;

// The writers that show a column (bits, combined with |).
enum ColumnShown : unsigned { kInTable = 1, kInCsv = 2, kInJson = 4, kEverywhere = 7 };

enum class Align { Left, Right };

// A text-table width that fits the widest of the title and every cell.
inline constexpr int kFitWidth = -1;

template <typename Row>
struct Column {
  std::string name{};                      // CSV header and JSON key
  std::function<Json(const Row&)> value{}; // the cell; null: none (table "-", CSV empty, JSON null)
  unsigned shown = kEverywhere;
  std::string title{};                     // text table: header line
  std::string unit{};                      // text table: second header line ("(ms)")
  int width = 0;                           // text table: cells padded to it (kFitWidth: to the widest)
  Align align = Align::Right;
  int gap = 1;                             // text table: spaces before the column
  std::string text_format = "{}";          // fmt format of the value in the text table
  std::string csv_format = "{}";           // fmt format of the value in CSV
  std::function<std::string(const Row&)> text{};  // the text cell, where a format of the value cannot say it
  std::function<Json(const Row&)> json{};  // the JSON value, where it is not the cell's value
  bool omit_null = false;                  // JSON: a null value leaves the key out
};

// How a text table draws its header: `mark` (when not 0) replaces the first character of
// each header line ("#  size"); `trim` drops trailing blanks from every line.
struct TableStyle {
  char mark = 0;
  bool trim = false;
};

// `value` in the fmt format `format` ("{:.3f}"); a string is itself, null is "".
[[nodiscard]] std::string format_value(const Json& value, const std::string& format);

// Lays out text-table lines from their cells (one vector per line, header lines first).
struct TextLayout {
  std::vector<int> width;  // per column; kFitWidth is resolved against the cells
  std::vector<Align> align;
  std::vector<int> gap;
  TableStyle style;
  std::size_t header_lines = 1;
};
void write_text_lines(std::ostream& out, TextLayout layout, const std::vector<std::vector<std::string>>& lines);

template <typename Row>
[[nodiscard]] std::string text_cell(const Column<Row>& c, const Row& row) {
  if (c.text) return c.text(row);
  const Json v = c.value(row);
  return v.is_null() ? "-" : format_value(v, c.text_format);
}

template <typename Row>
[[nodiscard]] std::string csv_cell(const Column<Row>& c, const Row& row) {
  return format_value(c.value(row), c.csv_format);
}

// The text table: the titles, the units (up to the last column that has one, when any
// does), then one line per row.
template <typename Row, typename Rows>
void write_text_table(std::ostream& out, const std::vector<Column<Row>>& columns, const Rows& rows, TableStyle style = {}) {
  TextLayout layout{{}, {}, {}, style, 1};
  std::vector<std::vector<std::string>> lines(2);
  std::size_t with_unit = 0;
  for (const auto& c : columns) {
    if (!(c.shown & kInTable)) continue;
    layout.width.push_back(c.width);
    layout.align.push_back(c.align);
    layout.gap.push_back(c.gap);
    lines[0].push_back(c.title);
    lines[1].push_back(c.unit);
    if (!c.unit.empty()) with_unit = lines[1].size();
  }
  lines[1].resize(with_unit);
  if (with_unit > 0) layout.header_lines = 2;
  else lines.pop_back();
  for (const Row& row : rows) {
    auto& cells = lines.emplace_back();
    for (const auto& c : columns) {
      if (c.shown & kInTable) cells.push_back(text_cell(c, row));
    }
  }
  write_text_lines(out, std::move(layout), lines);
}

template <typename Row, typename Rows>
void write_csv_table(std::ostream& out, const std::vector<Column<Row>>& columns, const Rows& rows) {
  CsvWriter csv(out);
  std::vector<std::string> cells;
  for (const auto& c : columns) {
    if (c.shown & kInCsv) cells.push_back(c.name);
  }
  csv.row(cells);
  for (const Row& row : rows) {
    cells.clear();
    for (const auto& c : columns) {
      if (c.shown & kInCsv) cells.push_back(csv_cell(c, row));
    }
    csv.row(cells);
  }
}

template <typename Row>
[[nodiscard]] Json json_object(const std::vector<Column<Row>>& columns, const Row& row) {
  Json j = Json::object();
  for (const auto& c : columns) {
    if (!(c.shown & kInJson)) continue;
    Json v = c.json ? c.json(row) : c.value(row);
    if (v.is_null() && c.omit_null) continue;
    j[c.name] = std::move(v);
  }
  return j;
}

// The rows as a JSON array of objects, keys in column order.
template <typename Row, typename Rows>
[[nodiscard]] Json json_rows(const std::vector<Column<Row>>& columns, const Rows& rows) {
  Json a = Json::array();
  for (const Row& row : rows) a.push_back(json_object(columns, row));
  return a;
}

// A time in milliseconds: the text table with three decimals in `width`, CSV with six, JSON
// (when `shown` says so) as a double.
template <typename Row>
[[nodiscard]] Column<Row> ms_column(std::string name, std::string title, std::string unit, int width,
                                    std::function<Time(const Row&)> time, unsigned shown = kInTable | kInCsv) {
  return {.name = std::move(name), .value = [time](const Row& r) { return Json(time(r).ms()); }, .shown = shown,
          .title = std::move(title), .unit = std::move(unit), .width = width, .text_format = "{:.3f}", .csv_format = "{:.6f}"};
}

// A time in integer picoseconds, for JSON only.
template <typename Row>
[[nodiscard]] Column<Row> ps_column(std::string name, std::function<Time(const Row&)> time) {
  return {.name = std::move(name), .value = [time](const Row& r) { return Json(time(r).ps); }, .shown = kInJson};
}

// One summary figure: JSON key, text label (empty: JSON only) and value; the text line is
// the label padded to 24 characters, then the value in `text_format` ("{:>12.3f} ms").
struct Field {
  std::string key{};
  std::string label{};
  Json value{};
  std::string text_format = "{}";
};

void write_field_lines(std::ostream& out, const std::vector<Field>& fields);
void add_fields(Json& doc, const std::vector<Field>& fields);

// A report's JSON document: collsim's version first, then `members` in order.
[[nodiscard]] Json report_document(std::initializer_list<std::pair<const char*, Json>> members);

// A report in each format, each made only when asked for.
struct ReportViews {
  std::function<void(std::ostream&)> table{};
  std::function<Json()> json{};
  std::function<void(std::ostream&)> csv{};  // empty: the report has no CSV and prints its table
};

// The views of `report` made by its writers: the table, the JSON document and the CSV
// (none: the table serves for CSV too). They read `report`, which must outlive them.
template <typename Report>
[[nodiscard]] ReportViews views_of(const Report& report, void (*table)(std::ostream&, const Report&),
                                   Json (*json)(const Report&), void (*csv)(std::ostream&, const Report&) = nullptr) {
  ReportViews v{[&report, table](std::ostream& o) { table(o, report); }, [&report, json] { return json(report); }, {}};
  if (csv) v.csv = [&report, csv](std::ostream& o) { csv(o, report); };
  return v;
}

// Writes `views` in `format`; JSON is dumped with two-space indents and a final newline.
void write_report(std::ostream& out, OutputFormat format, const ReportViews& views);

}  // namespace collsim
