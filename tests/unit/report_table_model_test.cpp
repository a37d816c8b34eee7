// The output model: one column declaration gives the text table, CSV and JSON.
#include <sstream>

#include <catch2/catch.hpp>

#include "sim/report/table_model.hpp"

namespace collsim {

namespace {

struct Item {
  std::string name;
  std::int64_t bytes = 0;
  double ms = 0;
  std::string note;
};

std::vector<Column<Item>> item_columns() {
  return {{.name = "name", .value = [](const Item& i) { return Json(i.name); }, .title = "name", .width = kFitWidth,
           .align = Align::Left},
          {.name = "bytes", .value = [](const Item& i) { return Json(i.bytes); }, .title = "bytes", .unit = "(B)", .width = 8},
          {.name = "time_ms", .value = [](const Item& i) { return Json(i.ms); }, .title = "time", .unit = "(ms)", .width = 8,
           .text_format = "{:.2f}", .csv_format = "{:.4f}"},
          {.name = "time_ps", .value = [](const Item& i) { return Json(static_cast<std::int64_t>(i.ms * 1e9)); },
           .shown = kInJson},
          {.name = "note", .value = [](const Item& i) { return i.note.empty() ? Json() : Json(i.note); }, .shown = kInCsv | kInJson,
           .omit_null = true}};
}

const std::vector<Item> kItems{{"ring", 1024, 1.5, ""}, {"tree, \"fast\"", 64, 0.25, "two, words"}};

}  // namespace

// What `write` prints.
template <typename Write>
std::string printed(Write write) {
  std::ostringstream out;
  write(out);
  return out.str();
}

TEST_CASE("A text table pads each column to its width, fits a fit-width column to its widest cell", "[report]") {
  // name fits "tree, \"fast\"" (12 characters), left-aligned; bytes and time right-aligned in 8;
  // the unit line names (B) and (ms); time_ps and note are not table columns.
  CHECK(printed([](std::ostream& o) { write_text_table(o, item_columns(), kItems); }) ==
        "name            bytes     time\n"
        "                  (B)     (ms)\n"
        "ring             1024     1.50\n"
        "tree, \"fast\"       64     0.25\n");
}

TEST_CASE("A header mark replaces the first character of the header lines; trim drops trailing blanks", "[report]") {
  std::vector<Column<Item>> cols{
      {.name = "bytes", .value = [](const Item& i) { return Json(i.bytes); }, .title = "bytes", .unit = "(B)", .width = 6},
      {.name = "name", .value = [](const Item& i) { return Json(i.name); }, .title = "name", .width = 5, .align = Align::Left}};
  std::ostringstream marked, trimmed;
  write_text_table(marked, cols, std::vector<Item>{{"ab", 7, 0, ""}}, {.mark = '#'});
  // "{:>6}" of "bytes" is " bytes": the mark takes its first blank, as nccl-tests' "#  size".
  CHECK(marked.str() == "#bytes name \n#  (B)\n     7 ab   \n");
  write_text_table(trimmed, cols, std::vector<Item>{{"ab", 7, 0, ""}}, {.trim = true});
  CHECK(trimmed.str() == " bytes name\n   (B)\n     7 ab\n");
}

TEST_CASE("CSV quotes a user-supplied name with a comma or a quote (RFC 4180)", "[report][csv]") {
  std::ostringstream out;
  write_csv_table(out, item_columns(), kItems);
  // The CSV has its own format for time (four decimals) and an empty field for no note.
  CHECK(out.str() ==
        "name,bytes,time_ms,note\n"
        "ring,1024,1.5000,\n"
        "\"tree, \"\"fast\"\"\",64,0.2500,\"two, words\"\n");
}

TEST_CASE("JSON rows keep the column order and leave out null values marked omit_null", "[report]") {
  const Json rows = json_rows(item_columns(), kItems);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].dump() == R"({"name":"ring","bytes":1024,"time_ms":1.5,"time_ps":1500000000})");
  CHECK(rows[1].dump() == R"({"name":"tree, \"fast\"","bytes":64,"time_ms":0.25,"time_ps":250000000,"note":"two, words"})");
}

TEST_CASE("Summary fields print labelled lines and JSON keys from one list", "[report]") {
  const std::vector<Field> fields{{"iteration_ms", "iteration", 12.5, "{:>8.3f} ms"}, {"iteration_ps", "", 12500000000}};
  std::ostringstream out;
  write_field_lines(out, fields);
  // The label is padded to 24; a field without a label is JSON only.
  CHECK(out.str() == "iteration                 12.500 ms\n");
  Json doc = Json::object();
  add_fields(doc, fields);
  CHECK(doc.dump() == R"({"iteration_ms":12.5,"iteration_ps":12500000000})");
}

TEST_CASE("write_report prints the format asked for; a report without CSV prints its table", "[report]") {
  const ReportViews views{[](std::ostream& o) { o << "table\n"; }, [] { return Json{{"a", 1}}; }, {}};
  std::ostringstream table, json, csv;
  write_report(table, OutputFormat::Table, views);
  write_report(json, OutputFormat::Json, views);
  write_report(csv, OutputFormat::Csv, views);
  CHECK(table.str() == "table\n");
  CHECK(json.str() == "{\n  \"a\": 1\n}\n");
  CHECK(csv.str() == "table\n");
}

}  // namespace collsim
