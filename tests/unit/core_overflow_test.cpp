// Arithmetic that cannot wrap: Time and Bytes throw OverflowError where int64 would wrap,
// Time::max() stays "never" under + and -, and inputs are held to their documented ranges
// (docs/file-formats.md#input-ranges).
#include <limits>

#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/core/size_list.hpp"
#include "sim/core/unit_parse.hpp"

using namespace collsim;

TEST_CASE("Time arithmetic throws instead of wrapping", "[core][units][overflow]") {
  const Time big{INT64_MAX - 10};
  CHECK_THROWS_AS(big + Time{11}, OverflowError);
  CHECK_THROWS_AS(big + Time{10}, OverflowError);  // INT64_MAX itself is "never", not a time
  CHECK((big + Time{9}).ps == INT64_MAX - 1);
  CHECK_THROWS_AS(Time{INT64_MIN + 1} - Time{2}, OverflowError);
  CHECK_THROWS_AS(Time::from_s(1) * (INT64_MAX / 1'000'000'000'000 + 1), OverflowError);
  Time t = big;
  CHECK_THROWS_AS(t += Time{100}, OverflowError);
  CHECK_THROWS_AS(Time::from_ms(INT64_MAX / 1'000'000), OverflowError);
  CHECK(Time::from_s(3).ps == 3'000'000'000'000);
}

TEST_CASE("Time::max() is never: adding to it or measuring from it stays never", "[core][units][overflow]") {
  CHECK(Time::max() + Time::from_s(1) == Time::max());
  CHECK(Time::from_s(1) + Time::max() == Time::max());
  CHECK(Time::max() - Time::from_s(1) == Time::max());
  CHECK(Time::max() * 3 == Time::max());
  Time best = Time::max();
  best += Time{5};
  CHECK(best == Time::max());
}

TEST_CASE("Bytes arithmetic throws instead of wrapping", "[core][units][overflow]") {
  CHECK_THROWS_AS(Bytes{INT64_MAX} + Bytes{1}, OverflowError);
  CHECK_THROWS_AS(Bytes{INT64_MIN} - Bytes{1}, OverflowError);
  CHECK_THROWS_AS(Bytes{std::int64_t{1} << 50} * (std::int64_t{1} << 14), OverflowError);
  CHECK((kMaxMessageBytes * 4096).count == std::int64_t{1} << 62);  // the largest size over 4096 ranks
  Bytes b{INT64_MAX - 1};
  CHECK_THROWS_AS(b += Bytes{2}, OverflowError);
}

TEST_CASE("conversions into picoseconds refuse what the clock cannot hold", "[core][units][overflow]") {
  CHECK_THROWS_AS(Time::from_seconds(1e7), OverflowError);  // 116 days
  CHECK_THROWS_AS(Time::from_seconds(std::numeric_limits<double>::infinity()), OverflowError);
  CHECK_THROWS_AS(Time::from_seconds(std::numeric_limits<double>::quiet_NaN()), OverflowError);
  CHECK(Time::from_seconds(9e6).ps == 9'000'000'000'000'000'000);  // 104 days still fits
  CHECK(Time::from_seconds(2.5e-12).ps == 3);                      // half away from zero
  // 1 TiB at 1 Kbps is 278 years.
  CHECK_THROWS_AS(transfer_time(Bytes{std::int64_t{1} << 40}, Bandwidth::bits_per_second(1000)), OverflowError);
  CHECK(transfer_time(Bytes{std::int64_t{1} << 50}, Bandwidth::gbps(100)).seconds() == Approx(90071.99).epsilon(1e-6));
}

TEST_CASE("input times and sizes are held to their documented ranges", "[core][units][overflow]") {
  CHECK(parse_time("1s", kMaxLatency) == Time::from_s(1));
  CHECK_THROWS_AS(parse_time("1.5s", kMaxLatency), UnitError);
  CHECK_THROWS_AS(parse_time("2000ms", kMaxLatency), UnitError);
  CHECK(parse_time("3600s", kMaxTaskTime) == Time::from_s(3600));
  CHECK_THROWS_AS(parse_time("3601s", kMaxTaskTime), UnitError);
  try {
    (void)parse_time("86400s", kMaxTaskTime);
    FAIL("a day-long task time was accepted");
  } catch (const UnitError& e) {
    CHECK(e.expected().find("from 0 to 3600s") != std::string::npos);
  }
  CHECK(parse_size_list("1024TiB", 2.0).front() == kMaxMessageBytes);
  CHECK_THROWS_AS(parse_size_list("1025TiB", 2.0), UnitError);
  CHECK_THROWS_AS(parse_size_list("8000000TiB", 2.0), UnitError);
  CHECK_THROWS_AS(parse_size_list("1MiB:2048TiB", 2.0), UnitError);
}
