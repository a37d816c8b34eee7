// Work items on a runner: results in item order for any thread count, heaviest items
// first, the first failing item's error in item order, errors that travel as JSON, the
// journal of finished items (fresh, refused, resumed, cut off, damaged, of other inputs),
// and plan rows that survive their JSON form exactly.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/core/work_journal.hpp"
#include "sim/core/work_pool.hpp"
#include "sim/plan/plan.hpp"
#include "sim/plan/plan_eval.hpp"
#include "sim/plan/plan_row_json.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

std::vector<WorkItem> numbered(int n) {
  std::vector<WorkItem> items;
  for (int i = 0; i < n; ++i) items.push_back(WorkItem{"item " + std::to_string(i), static_cast<double>(i % 3)});
  return items;
}

// Each item's result: its index squared and a double that needs all 17 digits.
nlohmann::json square(std::size_t i) { return {{"i", i}, {"sq", i * i}, {"x", 0.1 * static_cast<double>(i) + 1e-17}}; }

// square(), counting its calls.
struct Counting {
  std::atomic<int> ran{0};
  WorkFn fn = [this](std::size_t i) {
    ++ran;
    return square(i);
  };
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t lines_of(const fs::path& p) {
  const std::string t = read(p);
  return static_cast<std::size_t>(std::count(t.begin(), t.end(), '\n'));
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("collsim-work-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

WorkOptions journaled(const fs::path& file, bool resume, const std::string& fingerprint = "f1") {
  WorkOptions o;
  o.jobs = 2;
  o.journal = file.string();
  o.resume = resume;
  o.command = "test";
  o.fingerprint = fingerprint;
  return o;
}

}  // namespace

TEST_CASE("a thread runner returns results in item order for any thread count", "[work]") {
  const auto items = numbered(23);
  for (int jobs : {1, 2, 7}) {
    WorkOptions o;
    o.jobs = jobs;
    std::size_t calls = 0;
    o.progress = [&](std::size_t done, std::size_t total) {
      ++calls;
      CHECK(done == calls);  // serialised, one call per item
      CHECK(total == 23);
    };
    WorkStats stats;
    const auto r = ThreadRunner{}.run(items, square, o, &stats);
    REQUIRE(r.size() == 23);
    for (std::size_t i = 0; i < r.size(); ++i) CHECK(r[i] == canonical_json(square(i)));
    CHECK(calls == 23);
    CHECK(stats.resumed == 0);
    CHECK(stats.evaluated == 23);
  }
}

TEST_CASE("items start heaviest first, ties in item order", "[work]") {
  // Weights 0,1,2,0,1,2: the 2s (items 2, 5), then the 1s (1, 4), then the 0s (0, 3).
  const auto order = work_order(numbered(6), {0, 1, 2, 3, 4, 5});
  CHECK(order == std::vector<std::size_t>{2, 5, 1, 4, 0, 3});
}

TEST_CASE("failing items: the others still run, and the first failure in item order is thrown", "[work]") {
  std::atomic<int> ran{0};
  const WorkFn fn = [&](std::size_t i) -> nlohmann::json {
    ++ran;
    if (i == 7) throw OverflowError("item seven");
    if (i == 3) throw ConfigError("p.json", "/x", "3", "item three");
    return i;
  };
  WorkOptions o;
  o.jobs = 3;
  try {
    (void)ThreadRunner{}.run(numbered(10), fn, o);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.expected() == "item three");  // item 3 comes before item 7
  }
  CHECK(ran == 10);
}

TEST_CASE("errors keep their type and fields through JSON", "[work]") {
  auto round_trip = [](auto error) {
    return work_error_to_json(std::make_exception_ptr(error));
  };
  try {
    throw_work_error(round_trip(ConfigError("plan.json", "/workloads/0/global_batch", "7", "a batch")));
  } catch (const ConfigError& e) {
    CHECK(e.source() == "plan.json");
    CHECK(e.field() == "/workloads/0/global_batch");
    CHECK(e.value() == "7");
    CHECK(e.expected() == "a batch");
  }
  CHECK_THROWS_AS(throw_work_error(round_trip(OverflowError("a time past 2^63 ps"))), OverflowError);
  CHECK_THROWS_AS(throw_work_error(round_trip(LimitError("too big"))), LimitError);
  CHECK_THROWS_AS(throw_work_error(round_trip(InternalError("bug"))), InternalError);
  CHECK_THROWS_WITH(throw_work_error(round_trip(std::runtime_error("other"))), "other");
}

TEST_CASE("fingerprints: deterministic, and the split between parts counts", "[work]") {
  CHECK(work_fingerprint({"ab", "c"}) == work_fingerprint({"ab", "c"}));
  CHECK(work_fingerprint({"ab", "c"}) != work_fingerprint({"a", "bc"}));
  CHECK(work_fingerprint({"ab", "c"}).size() == 16);
}

TEST_CASE("a journal records every item; a second run without --resume is refused", "[work]") {
  TempDir dir;
  const fs::path file = dir.path / "j.jsonl";
  const auto items = numbered(5);
  const auto fresh = ThreadRunner{}.run(items, square, journaled(file, false));
  CHECK(lines_of(file) == 6);  // the header and 5 items
  CHECK_THROWS_AS(ThreadRunner{}.run(items, square, journaled(file, false)), ConfigError);

  // Resumed with every item done: nothing runs, the results are the same.
  Counting counting;
  WorkStats stats;
  CHECK(ThreadRunner{}.run(items, counting.fn, journaled(file, true), &stats) == fresh);
  CHECK(counting.ran == 0);
  CHECK(stats.resumed == 5);
  CHECK(lines_of(file) == 6);
}

TEST_CASE("a killed run's journal: whole lines are kept, a cut-off line is dropped, the rest runs", "[work]") {
  TempDir dir;
  const fs::path file = dir.path / "j.jsonl";
  const auto items = numbered(6);
  const auto fresh = ThreadRunner{}.run(items, square, journaled(file, false));
  // Keep the header and two items, then half of the third item's line.
  std::istringstream in(read(file));
  std::string kept, line;
  for (int i = 0; i < 3 && std::getline(in, line); ++i) kept += line + "\n";
  std::getline(in, line);
  kept += line.substr(0, line.size() / 2);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << kept;

  Counting counting;
  WorkStats stats;
  CHECK(ThreadRunner{}.run(items, counting.fn, journaled(file, true), &stats) == fresh);
  CHECK(stats.resumed == 2);
  CHECK(stats.evaluated == 4);
  CHECK(counting.ran == 4);
  CHECK(lines_of(file) == 7);
  CHECK(read(file).back() == '\n');
}

TEST_CASE("journals that cannot be continued are refused with the file and line", "[work]") {
  TempDir dir;
  const fs::path file = dir.path / "j.jsonl";
  const auto items = numbered(4);
  (void)ThreadRunner{}.run(items, square, journaled(file, false));
  SECTION("other inputs") {
    try {
      (void)ThreadRunner{}.run(items, square, journaled(file, true, "f2"));
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.source() == "--journal");
      CHECK_THAT(e.expected(), Catch::Contains("fingerprint f2") && Catch::Contains("fingerprint f1"));
    }
  }
  SECTION("a batch of another size") { CHECK_THROWS_AS(ThreadRunner{}.run(numbered(5), square, journaled(file, true)), ConfigError); }
  SECTION("a damaged line in the middle") {
    std::string t = read(file);
    t.replace(t.find("\"item\""), 6, "\"itex\"");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << t;
    try {
      (void)ThreadRunner{}.run(items, square, journaled(file, true));
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.source() == file.string());
      CHECK(e.field() == "line 2");
    }
  }
  SECTION("a first line whose fields have the wrong types (fuzz finding)") {
    // libFuzzer's input: "command" a number. Describing it threw nlohmann's type_error,
    // an internal error, instead of refusing the journal.
    std::ofstream(file, std::ios::binary | std::ios::trunc) << "{\"collsim_journal\":1,\"command\":3,\"items\":\"x\"}\n";
    try {
      (void)ThreadRunner{}.run(items, square, journaled(file, true));
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.source() == "--journal");
      CHECK_THAT(e.expected(), Catch::Contains("command \"3\", fingerprint ?, x items"));
    }
  }
  SECTION("not a journal") {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << "{\"name\": \"a plan\"}\n";
    CHECK_THROWS_AS(ThreadRunner{}.run(items, square, journaled(file, true)), ConfigError);
  }
  SECTION("a folder") { CHECK_THROWS_AS(ThreadRunner{}.run(items, square, journaled(dir.path, true)), ConfigError); }
}

TEST_CASE("a resumed run without a journal file starts fresh", "[work]") {
  TempDir dir;
  const fs::path file = dir.path / "new.jsonl";
  WorkStats stats;
  (void)ThreadRunner{}.run(numbered(3), square, journaled(file, true), &stats);
  CHECK(stats.resumed == 0);
  CHECK(lines_of(file) == 4);
}

TEST_CASE("plan rows survive their JSON form exactly, and a resumed plan equals a fresh one", "[work][plan]") {
  const auto doc = nlohmann::json::parse(R"({
    "name": "t",
    "candidates": [{"name": "c", "topology": {"generator": {"kind": "cluster", "server": {"kind": "dgx_h100"},
                    "fabric": {"kind": "star", "link_kind": "ib", "nic_bandwidth": "400Gbps"}}},
                    "world_sizes": [8, 16], "price": {"per_gpu_hour": 2.0}}],
    "workloads": [{"file": "workloads/bert-large.json", "global_batch": 256}],
    "strategies": [{"name": "ddp", "kind": "ddp", "bucket_mb": [25], "accumulate": [1, 2]},
                   {"name": "fsdp", "kind": "fsdp", "sharding": ["full_shard"]}]
  })");
  const Plan p = parse_plan(doc, "p.json", COLLSIM_SOURCE_DIR);
  const PlanResult fresh = evaluate_plan(p, 2);
  REQUIRE(fresh.rows.size() == 6);
  for (const auto& r : fresh.rows) CHECK(plan_row_to_json(plan_row_from_json(plan_row_to_json(r))) == plan_row_to_json(r));

  TempDir dir;
  const fs::path file = dir.path / "plan.jsonl";
  WorkOptions o = journaled(file, false);
  o.command = "plan";
  (void)evaluate_plan(p, ThreadRunner{}, o);
  o.resume = true;
  WorkStats stats;
  const PlanResult resumed = evaluate_plan(p, ThreadRunner{}, o, &stats);
  CHECK(stats.resumed == 2);  // both world sizes came from the journal
  REQUIRE(resumed.rows.size() == fresh.rows.size());
  for (std::size_t i = 0; i < fresh.rows.size(); ++i) {
    CHECK(plan_row_to_json(resumed.rows[i]) == plan_row_to_json(fresh.rows[i]));
    CHECK(resumed.rows[i].pareto == fresh.rows[i].pareto);
    CHECK(resumed.rows[i].scaling_efficiency == fresh.rows[i].scaling_efficiency);
  }
  CHECK(resumed.simulations == fresh.simulations);
}

}  // namespace collsim
