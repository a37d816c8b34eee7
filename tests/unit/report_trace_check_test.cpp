// The Perfetto import-rule checker and the trace builder that must satisfy it: slices on
// one track nest or stay apart, times are read in whole ns as the importer reads them.
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/report/chrome_trace.hpp"
#include "sim/report/trace_check.hpp"

namespace collsim {
namespace {

nlohmann::json slice(const char* name, int tid, double ts, double dur) {
  return {{"name", name}, {"ph", "X"}, {"pid", 1}, {"tid", tid}, {"ts", ts}, {"dur", dur}};
}

nlohmann::json doc(std::initializer_list<nlohmann::json> events) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : events) list.push_back(e);
  return nlohmann::json{{"traceEvents", list}};
}

}  // namespace

TEST_CASE("trace check accepts nested and disjoint slices", "[report][trace]") {
  // [0,10] contains [2,5] and [5,10] (sharing an end is nesting); [10,12] starts where
  // [0,10] ends, which is not an overlap.
  CHECK_FALSE(first_trace_violation(
      doc({slice("outer", 1, 0, 10), slice("a", 1, 2, 3), slice("b", 1, 5, 5), slice("next", 1, 10, 2)})));
  // The same partial overlap on two tracks is allowed.
  CHECK_FALSE(first_trace_violation(doc({slice("a", 1, 0, 10), slice("b", 2, 5, 10)})));
}

TEST_CASE("trace check reports a partial overlap on one track", "[report][trace]") {
  // [0,10] and [5,15] overlap without nesting.
  const auto v = first_trace_violation(doc({slice("a", 1, 0, 10), slice("b", 1, 5, 10)}));
  REQUIRE(v);
  CHECK_THAT(*v, Catch::Contains("\"b\"") && Catch::Contains("\"a\"") && Catch::Contains("pid 1 tid 1"));
}

TEST_CASE("trace check reads ts/dur in ns the way Perfetto does", "[report][trace]") {
  // 1.005 us x 1000 is 1004.9999999999999 in doubles: a truncating importer ends a at
  // 1004 ns, where b (1.004 us = 1004 ns) starts; a rounding importer ends a at 1005 ns,
  // 1 ns into b, which outlives it: a partial overlap under that reading.
  const auto v = first_trace_violation(doc({slice("a", 1, 0, 1.005), slice("b", 1, 1.004, 1)}));
  REQUIRE(v);
  CHECK_THAT(*v, Catch::Contains("rounding"));
  // Integer microseconds are exact.
  CHECK_FALSE(first_trace_violation(doc({slice("a", 1, 0, 3), slice("b", 1, 3, 1)})));
}

TEST_CASE("trace check rejects malformed slices", "[report][trace]") {
  CHECK(first_trace_violation(nlohmann::json{{"events", nlohmann::json::array()}}));
  CHECK(first_trace_violation(doc({{{"name", "x"}, {"ph", "X"}, {"pid", 1}, {"tid", 1}, {"ts", 0}}})));
  CHECK(first_trace_violation(doc({slice("neg", 1, -1, 2)})));
  CHECK(first_trace_violation(doc({{{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1}}})));
  // A metadata event whose name is not a string is a violation, not a JSON type error.
  const auto v = first_trace_violation(doc({{{"name", 5}, {"ph", "M"}, {"pid", 1}, {"tid", 1}}}));
  REQUIRE(v);
  CHECK_THAT(*v, Catch::Contains("\"name\" that is not a string"));
}

TEST_CASE("perfetto_us turns back into the same ns under truncation and rounding", "[report][trace]") {
  // Every ns value up to 2 ms (and a few large ones): trunc(x * 1000) == llround(x * 1000) == ns.
  for (std::int64_t ns = 0; ns <= 2'000'000; ++ns) {
    const double x = perfetto_us(ns);
    REQUIRE(static_cast<std::int64_t>(x * 1000.0) == ns);
    REQUIRE(std::llround(x * 1000.0) == ns);
  }
  for (std::int64_t ns : {123'456'789'012LL, 3'600'000'000'001LL}) {
    const double x = perfetto_us(ns);
    CHECK(static_cast<std::int64_t>(x * 1000.0) == ns);
    CHECK(std::llround(x * 1000.0) == ns);
  }
}

TEST_CASE("ChromeTrace puts overlapping slices of one track on extra lanes", "[report][trace]") {
  ChromeTrace t;
  const int pid = t.add_process("p");
  const int track = t.add_track(pid, "comm");
  // a [0,10] us, b [5,15] us overlaps a partially -> lane 2; c [10,20] fits after a on lane 1.
  t.add_slice(track, "a", "x", Time::from_us(0), Time::from_us(10));
  t.add_slice(track, "b", "x", Time::from_us(5), Time::from_us(15));
  t.add_slice(track, "c", "x", Time::from_us(10), Time::from_us(20));
  std::ostringstream out;
  t.write(out);
  const auto j = nlohmann::json::parse(out.str());
  CHECK_FALSE(first_trace_violation(j));
  std::map<std::string, int> tid_of;
  std::map<int, std::string> lane_name;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") tid_of[e["name"].get<std::string>()] = e["tid"].get<int>();
    if (e["ph"] == "M" && e["name"] == "thread_name") lane_name[e["tid"].get<int>()] = e["args"]["name"];
  }
  CHECK(tid_of["a"] == tid_of["c"]);
  CHECK(tid_of["b"] != tid_of["a"]);
  CHECK(lane_name[tid_of["a"]] == "comm");
  CHECK(lane_name[tid_of["b"]] == "comm #2");
  // Same input, same bytes.
  std::ostringstream again;
  t.write(again);
  CHECK(again.str() == out.str());
}

}  // namespace collsim
