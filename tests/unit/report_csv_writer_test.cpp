// The one CSV writer: RFC 4180 quoting, and ordinary fields byte for byte as before.
#include <sstream>

#include <catch2/catch.hpp>

#include "sim/report/csv_writer.hpp"

namespace collsim {

TEST_CASE("CSV fields are quoted only when they hold a comma, quote, CR or LF", "[report][csv]") {
  // Ordinary fields pass through unchanged: existing CSV output keeps its bytes.
  CHECK(csv_field("allreduce") == "allreduce");
  CHECK(csv_field("12.500000") == "12.500000");
  CHECK(csv_field("") == "");
  // RFC 4180 s. 2.6: fields with a comma, a double quote, CR or LF are enclosed in quotes.
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("line\nbreak") == "\"line\nbreak\"");
  CHECK(csv_field("cr\rhere") == "\"cr\rhere\"");
  // s. 2.7: a quote inside a quoted field is doubled.
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
}

TEST_CASE("CsvWriter joins fields with commas and ends records with LF", "[report][csv]") {
  std::ostringstream out;
  CsvWriter csv(out);
  csv.row({"op", "note"});
  csv.row({"allreduce", "ring, 2 channels"});
  CHECK(out.str() == "op,note\nallreduce,\"ring, 2 channels\"\n");
}

}  // namespace collsim
