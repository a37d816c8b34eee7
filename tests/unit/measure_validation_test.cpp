// Harness records, validation summaries and the calibration fit.
#include <catch2/catch.hpp>

#include <cmath>

#include <fmt/format.h>

#include "sim/coll/link_class.hpp"
#include "sim/core/error.hpp"
#include "sim/measure/measurement.hpp"
#include "sim/measure/calibration_fit.hpp"
#include "sim/measure/validation.hpp"
#include "tests/unit/test_files.hpp"

using namespace collsim;

namespace {

const char* kRecord =
    R"({"kind":"collective","source":"collsim-exec","op":"allreduce","algorithm":"ring","ranks":2,"size":1048576,)"
    R"("warmup":1,"iterations":3,"time_us":1000.5,"mean_us":1001,"min_us":999,"max_us":1003,"stddev_us":2,)"
    R"("algbw_gbps":1.04,"busbw_gbps":1.04,"wrong":0,"topology":"topo.json"})";

// Three hosts on one switch at 1 GB/s, 10 us per link; InfiniBand links, so the loader
// charges no TCP/IP header overhead (payload = line rate).
std::string write_topology() {
  return test::write_test_file(
      "collsim_measure_test_topo.json",
      R"({"name":"two","nodes":[{"id":"h0","kind":"host"},{"id":"h1","kind":"host"},)"
      R"({"id":"h2","kind":"host"},{"id":"sw","kind":"switch"}],"links":[)"
      R"({"endpoints":["h0","sw"],"kind":"ib","bandwidth":"1GB/s","latency":"10us","duplex":true},)"
      R"({"endpoints":["h1","sw"],"kind":"ib","bandwidth":"1GB/s","latency":"10us","duplex":true},)"
      R"({"endpoints":["h2","sw"],"kind":"ib","bandwidth":"1GB/s","latency":"10us","duplex":true}]})");
}

}  // namespace

TEST_CASE("harness records: collective fields and topology path", "[measure]") {
  const auto set = parse_harness_records(kRecord, "m.jsonl", "/data/run1");
  REQUIRE(set.collectives.size() == 1);
  const auto& m = set.collectives[0];
  CHECK(m.op == CollectiveOp::AllReduce);
  CHECK(m.algorithm == "ring");
  CHECK(m.ranks == 2);
  CHECK(m.size == Bytes{1048576});
  CHECK(m.time == Time::from_ns(1000500));  // time_us 1000.5
  CHECK(m.topology == "/data/run1/topo.json");  // relative to the measurement file
  CHECK(m.source == "m.jsonl:1");
}

TEST_CASE("harness records: bad input is a ConfigError naming line and field", "[measure]") {
  std::string wrong = kRecord;
  wrong.replace(wrong.find("\"wrong\":0"), 9, "\"wrong\":5");
  CHECK_THROWS_AS(parse_harness_records(wrong, "m.jsonl", ""), ConfigError);
  std::string times = kRecord;
  times.insert(1, "\"iteration_us\":[1,-2],");
  try {
    (void)parse_harness_records(times, "m.jsonl", "");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.field() == "/iteration_us/1");
    CHECK_THAT(e.what(), Catch::Contains("a time in us from 0 to 1e12"));
  }
  std::string unknown = kRecord;
  unknown.insert(1, "\"colour\":\"red\",");
  CHECK_THROWS_AS(parse_harness_records(unknown, "m.jsonl", ""), ConfigError);
  CHECK_THROWS_AS(parse_harness_records("{\"kind\":\"collective\"}", "m.jsonl", ""), ConfigError);
  CHECK_THROWS_AS(parse_harness_records("{not json", "m.jsonl", ""), ConfigError);
  try {
    (void)parse_harness_records(std::string("\n") + "{\"kind\":\"teapot\"}", "m.jsonl", "");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.source() == "m.jsonl:2");
    CHECK(e.field() == "/kind");
  }
  CHECK_THROWS_AS(load_measurements("/nonexistent/m.jsonl"), ConfigError);
}

TEST_CASE("harness records: ddp", "[measure]") {
  const auto set = parse_harness_records(
      R"({"kind":"ddp","model":"mlp","ranks":2,"bucket_cap_mb":25,"time_us":52000,"stddev_us":800,"buckets":[],"layers":[]})",
      "d.jsonl", "");
  REQUIRE(set.ddp.size() == 1);
  CHECK(set.ddp[0].bucket_cap_mb == 25);
  CHECK(set.ddp[0].iteration == Time::from_us(52000));
}

TEST_CASE("summary: median, max and geometric mean of the errors", "[measure]") {
  std::vector<ValidationRow> rows(4);
  // errors +10 %, -5 %, +2 %, and one row without prediction
  rows[0].measured = Time::from_us(100), rows[0].predicted = Time::from_us(110);
  rows[1].measured = Time::from_us(100), rows[1].predicted = Time::from_us(95);
  rows[2].measured = Time::from_us(100), rows[2].predicted = Time::from_us(102);
  rows[3].measured = Time::from_us(100);
  const auto s = summarize(rows);
  CHECK(s.rows == 4);
  CHECK(s.predicted == 3);
  CHECK(s.median_abs_error == Approx(0.05));  // |errors| sorted 0.02, 0.05, 0.10
  CHECK(s.max_abs_error == Approx(0.10));
  CHECK(s.geomean_ratio == Approx(std::cbrt(1.10 * 0.95 * 1.02)));
}

TEST_CASE("validate predicts with the record's topology cut to its ranks", "[measure]") {
  const std::string topo = write_topology();
  CasePredictor p(topo, "ring");
  CollectiveMeasurement m;
  m.source = "t";
  m.op = CollectiveOp::AllReduce;
  m.ranks = 2;
  m.size = Bytes{1000000};
  m.algorithm = "ring";
  // Ring on 2 ranks: 2 steps, each 500000 B over two links at 1 GB/s (0.5 ms) after
  // 2 x 10 us of route latency: 2 x 520 us = 1040 us.
  CHECK(p.predict(m) == Time::from_us(1040));
  m.ranks = 4;  // the topology has 3 hosts
  CHECK_THROWS_AS(p.predict(m), ConfigError);
  m.ranks = 2;
  m.algorithm = "no-such-algo";
  CHECK_THROWS_AS(p.predict(m), ConfigError);
}

TEST_CASE("calibration fit recovers a known efficiency and latency", "[measure]") {
  const std::string topo = write_topology();
  // Synthetic "measurements": the same model with the links at 80 % efficiency and 50 us
  // per link. The fit starts from efficiency 1 and 10 us and should land on 0.8 / 50 us.
  Calibration truth;
  truth.links[LinkKind::Ib] = LinkClassCalibration{0.8, Time::from_us(50)};
  CasePredictor p(topo, "ring");
  p.set_calibration(truth);
  std::vector<CollectiveMeasurement> cases;
  for (int ranks : {2, 3}) {
    for (std::int64_t size : {64 * 1024, 1024 * 1024, 16 * 1024 * 1024}) {
      for (const char* algo : {"ring", "ps"}) {
        CollectiveMeasurement m;
        m.source = "synthetic";
        m.ranks = ranks;
        m.size = Bytes{size};
        m.algorithm = algo;
        m.time = p.predict(m);
        cases.push_back(m);
      }
    }
  }
  const Calibration c = fit_calibration(cases, p);
  REQUIRE(c.links.count(LinkKind::Ib) == 1);
  CHECK(c.links.at(LinkKind::Ib).efficiency == Approx(0.8).epsilon(0.005));
  CHECK(c.links.at(LinkKind::Ib).latency->us() == Approx(50).margin(1.0));
  CHECK(c.median_error_before > 0.1);  // uncalibrated: 25 % too fast on bandwidth alone
  CHECK(c.max_error_after < 0.005);
}

TEST_CASE("NCCL-protocol fit recovers a network's efficiency and step latency, and transfers to more hosts",
          "[measure][calibration]") {
  // Synthetic nccl-tests rows (no algorithm: NCCL's choice) of 2 DGX A100 hosts whose IB runs
  // at 60 % and whose every network step costs 20 us more than NCCL's figures. The fit sees
  // only the 2-host rows; its calibration then predicts 4 hosts as the truth does.
  const std::string topo = test::shipped_topology("4x-dgx-a100-8x200g-ib.json");
  Calibration truth;
  truth.links[LinkKind::Ib] = LinkClassCalibration{0.6, std::nullopt};
  truth.protocol = nccl_default_model();
  const auto net = static_cast<std::size_t>(LinkClass::Net);
  for (auto& row : truth.protocol->step_latency[net]) {
    for (Time& t : row) {
      if (t > Time{}) t += Time::from_us(20);
    }
  }
  CasePredictor p(topo, "auto", "auto");
  p.set_calibration(truth);
  const auto cases_on = [&](int ranks) {
    std::vector<CollectiveMeasurement> cases;
    for (std::int64_t size : {std::int64_t{8}, std::int64_t{1} << 16, std::int64_t{1} << 22, std::int64_t{1} << 26,
                              std::int64_t{1} << 28}) {
      CollectiveMeasurement m;
      m.source = fmt::format("synthetic-{}.txt:{}", ranks, size);
      m.op = CollectiveOp::AllReduce;
      m.ranks = ranks;
      m.size = Bytes{size};
      m.time = p.predict(m);
      cases.push_back(m);
    }
    return cases;
  };
  const std::vector<CollectiveMeasurement> two_hosts = cases_on(16), four_hosts = cases_on(32);
  const Calibration c = fit_calibration(two_hosts, p);
  CHECK(c.median_error_before > 0.2);
  CHECK(c.max_error_after < 0.02);
  REQUIRE(c.links.count(LinkKind::Ib) == 1);
  CHECK(c.links.at(LinkKind::Ib).efficiency == Approx(0.6).epsilon(0.02));
  CHECK_FALSE(c.links.at(LinkKind::Ib).latency);  // NCCL's step latencies, not the links', price the steps
  CHECK(c.links.at(LinkKind::NvSwitch).efficiency == 1.0);  // inside the hosts: NCCL's figures stand
  REQUIRE(c.protocol);
  p.set_calibration(c);
  for (const CollectiveMeasurement& m : four_hosts) {
    INFO(m.size.count << " B on 4 hosts");
    CHECK(static_cast<double>(p.predict(m).ps) == Approx(static_cast<double>(m.time.ps)).epsilon(0.03));
  }
}

TEST_CASE("validate runs an nccl-tests row as its log's run was launched", "[measure][nccl-tests]") {
  const std::string topo = test::shipped_topology("dgx-a100.json");
  const MeasurementSet s =
      load_measurements(std::string(COLLSIM_TEST_DATA) + "/nccl-tests/constructed_nccl_info_env_allreduce.txt");
  REQUIRE(s.collectives.size() == 3);
  const CollectiveMeasurement& m = s.collectives[1];  // 4 MiB; the log sets NCCL_ALGO=Tree, NCCL_MAX_NCHANNELS=4
  CollectiveMeasurement bare = m;
  bare.nccl_env.clear();

  CasePredictor from_log(topo, "auto", "auto");
  const CollectivePrediction logged = from_log.predict_case(m);
  CHECK(from_log.log_knobs_applied(m) == std::vector<std::string>{"NCCL_ALGO=Tree", "NCCL_MAX_NCHANNELS=4"});
  // The same as giving those knobs on the command line (what resolve_nccl_knobs makes of
  // NCCL_ALGO=Tree: the default algorithm "tree").
  CasePredictor by_hand(topo, "tree", "auto");
  by_hand.set_nccl_env(parse_nccl_env("NCCL_MAX_NCHANNELS=4", "--nccl-env"));
  const CollectivePrediction hand = by_hand.predict_case(bare);
  CHECK(logged.algorithm == "tree");
  CHECK(logged.channels == 4);
  CHECK(logged.time == hand.time);
  CHECK(logged.protocol == hand.protocol);
  // Without the log's knobs NCCL's default choice differs.
  CasePredictor plain(topo, "auto", "auto");
  const CollectivePrediction dflt = plain.predict_case(bare);
  CHECK((dflt.channels != 4 || dflt.algorithm != "tree"));
  CHECK(plain.log_knobs_applied(bare).empty());

  // The command's knobs replace the log's: its channel cap, its algorithm.
  CasePredictor over(topo, "auto", "auto");
  over.set_nccl_env(parse_nccl_env("NCCL_MAX_NCHANNELS=2", "--nccl-env"));
  CHECK(over.log_knobs_applied(m) == std::vector<std::string>{"NCCL_ALGO=Tree"});
  CHECK(over.predict_case(m).channels == 2);
  CasePredictor ring(topo, "ring", "auto");
  CHECK(ring.log_knobs_applied(m) == std::vector<std::string>{"NCCL_MAX_NCHANNELS=4"});
  CHECK(ring.predict_case(m).algorithm == "ring");

  // A bad value, or two values on different ranks: an error naming the log's line.
  CollectiveMeasurement bad = m;
  bad.nccl_env = {{"NCCL_MAX_NCHANNELS", "99", 23}};
  CHECK_THROWS_WITH(from_log.predict_case(bad), Catch::Contains("line 23") && Catch::Contains("NCCL_MAX_NCHANNELS") &&
                                                    Catch::Contains("99") && Catch::Contains("1 to 64"));
  bad.nccl_env = {{"NCCL_ALGO", "Tree", 21}, {"NCCL_ALGO", "Ring", 30}};
  CHECK_THROWS_WITH(from_log.predict_case(bad), Catch::Contains("line 30") && Catch::Contains("line 21") &&
                                                    Catch::Contains("one value on every rank"));
  // An algorithm the log forces that cannot run the collective: the error says where it came from.
  bad = m;
  bad.op = CollectiveOp::AllGather;
  CHECK_THROWS_WITH(from_log.predict_case(bad), Catch::Contains("\"tree\"") && Catch::Contains("the log's NCCL_ALGO"));
}
