// Units: parsing against the unit table, and transfer-time rounding.
#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "sim/core/chars_to_double.hpp"
#include "sim/core/error.hpp"
#include "sim/core/size_list.hpp"
#include "sim/core/unit_parse.hpp"

using namespace collsim;

TEST_CASE("bandwidth units: bits vs bytes, decimal vs binary", "[core][units]") {
  // 400 Gb/s = 400e9 bits/s = 50e9 bytes/s.
  CHECK(parse_bandwidth("400Gbps").bytes_per_s == Approx(50e9).epsilon(1e-15));
  CHECK(parse_bandwidth("50GB/s").bytes_per_s == Approx(50e9).epsilon(1e-15));
  // GiB/s is 2^30 bytes per second.
  CHECK(parse_bandwidth("1GiB/s").bytes_per_s == Approx(1073741824.0).epsilon(1e-15));
  CHECK(parse_bandwidth("200Mbps").bytes_per_s == Approx(25e6).epsilon(1e-15));
  CHECK(parse_bandwidth("8bps").bytes_per_s == Approx(1.0));
  CHECK(parse_bandwidth("1.5 Tbps").bytes_per_s == Approx(187.5e9));
  CHECK(parse_bandwidth("3KiB/s").bytes_per_s == Approx(3072.0));
}

TEST_CASE("time units", "[core][units]") {
  CHECK(parse_time("1.5us").ps == 1'500'000);
  CHECK(parse_time("7ps").ps == 7);
  CHECK(parse_time("2ns").ps == 2'000);
  CHECK(parse_time("3ms").ps == 3'000'000'000);
  CHECK(parse_time("1s").ps == 1'000'000'000'000);
  CHECK(parse_time("0us").ps == 0);
}

TEST_CASE("size units: GB is 10^9, GiB is 2^30", "[core][units]") {
  CHECK(parse_size("1GB").count == 1'000'000'000);
  CHECK(parse_size("1GiB").count == 1'073'741'824);
  CHECK(parse_size("25MiB").count == 26'214'400);
  CHECK(parse_size("1.5KiB").count == 1536);
  CHECK(parse_size("8B").count == 8);
  CHECK(parse_size("2TB").count == 2'000'000'000'000);
}

TEST_CASE("a missing, unknown or misused unit is an error", "[core][units]") {
  CHECK_THROWS_AS(parse_bandwidth("400"), UnitError);        // bare number
  CHECK_THROWS_AS(parse_bandwidth("400Gb"), UnitError);      // a size, not a rate
  CHECK_THROWS_AS(parse_bandwidth("0Gbps"), UnitError);      // must be positive
  CHECK_THROWS_AS(parse_bandwidth("1e308TB/s"), UnitError);  // beyond 1e18 B/s (was infinity)
  CHECK_THROWS_AS(parse_bandwidth("0.5bps"), UnitError);     // below 1 bps
  CHECK(parse_bandwidth("1bps").bytes_per_s == Approx(0.125));
  CHECK_THROWS_AS(parse_bandwidth("-1Gbps"), UnitError);
  CHECK_THROWS_AS(parse_time("5"), UnitError);
  CHECK_THROWS_AS(parse_time("5 sec"), UnitError);
  CHECK_THROWS_AS(parse_time("-1us"), UnitError);            // negative latency
  CHECK_THROWS_AS(parse_size("12"), UnitError);
  CHECK_THROWS_AS(parse_size("0.5B"), UnitError);            // not a whole byte
  CHECK_THROWS_AS(parse_size("1Gbps"), UnitError);
  CHECK_THROWS_AS(parse_size(""), UnitError);
  try {
    (void)parse_bandwidth("400");
  } catch (const UnitError& e) {
    CHECK(e.value() == "\"400\"");
    CHECK_THAT(e.expected(), Catch::Contains("Gbps"));
  }
}

TEST_CASE("transfer time rounds up to the next whole picosecond", "[core][units]") {
  // 1e9 B at 1e9 B/s is exactly one second: no spurious extra picosecond.
  CHECK(transfer_time(Bytes{1'000'000'000}, Bandwidth{1e9}).ps == Time::kPerS);
  // 1 B at 3 B/s = 333333333333.33 ps -> rounds up to ...334.
  CHECK(transfer_time(Bytes{1}, Bandwidth{3.0}).ps == 333'333'333'334);
  // 1 MiB at 400 Gb/s (50e9 B/s) = 1048576 / 50e9 s = 20.97152 us = 20971520 ps exactly.
  CHECK(transfer_time(Bytes{1 << 20}, parse_bandwidth("400Gbps")).ps == 20'971'520);
  CHECK(transfer_time(Bytes{0}, Bandwidth{1.0}).ps == 0);
}

TEST_CASE("size lists: single, comma list, range with factor", "[core][units]") {
  CHECK(parse_size_list("1MiB", 2).size() == 1);
  const auto list = parse_size_list("1KiB,4KiB,1MiB", 2);
  REQUIRE(list.size() == 3);
  CHECK(list[1].count == 4096);
  // 1 KiB .. 1 GiB by factor 2: 2^10 .. 2^30 = 21 sizes.
  const auto range = parse_size_list("1KiB:1GiB", 2);
  REQUIRE(range.size() == 21);
  CHECK(range.front().count == 1024);
  CHECK(range.back().count == 1 << 30);
  CHECK_THROWS_AS(parse_size_list("1KiB:", 2), UnitError);
  CHECK_THROWS_AS(parse_size_list("4KiB:1KiB", 2), UnitError);
  CHECK_THROWS_AS(parse_size_list("1KiB:1MiB", 1.0), UnitError);
  CHECK_THROWS_AS(parse_size_list("lots", 2), UnitError);
}

// The web build's reading of a double (sim/core/chars_to_double.hpp) against GCC's
// std::from_chars: the same value, the same end and the same error on every text here.
TEST_CASE("scan_double reads what std::from_chars reads", "[core][units]") {
  const std::vector<std::string> texts{"0",      "12.5",   "-3",    "1e3",     "1e",      "1e+",   "2.5E-2Gbps",
                                       ".5",     "5.",     ".",     "-",       "+1",      " 1",    "0x10",
                                       "inf",    "-Infinity", "nan", "1e999",  "12.5 Gbps", "abc", "",
                                       "007",    "1.2.3",  "4e2x",  "16.0 GT/s PCIe"};
  for (const auto& text : texts) {
    CAPTURE(text);
    double expected = -7.0, got = -7.0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    const auto want = std::from_chars(first, last, expected);
    const auto have = scan_double(first, last, got);
    CHECK(have.ec == want.ec);
    CHECK(have.ptr - first == want.ptr - first);
    if (std::isnan(expected)) {
      CHECK(std::isnan(got));
    } else {
      CHECK(got == expected);
    }
  }
}
