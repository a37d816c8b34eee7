// The calibration file: one format for collective, ddp, llm, validate and plan candidates
// (link classes from `validate --calibrate`, protocol-model constants, or both).
#include <catch2/catch.hpp>

#include "sim/coll/link_class.hpp"
#include "sim/core/error.hpp"
#include "sim/coll/calibration.hpp"
#include "sim/coll/nccl_env.hpp"
#include "sim/topo/generators.hpp"
#include "tests/unit/test_files.hpp"

using namespace collsim;

namespace {

std::string write_cal(const std::string& name, const std::string& text) {
  return test::write_test_file("collsim_calfile_" + name + ".json", text);
}

}  // namespace

TEST_CASE("calibration file: what validate --calibrate writes reads back", "[measure][calibration]") {
  Calibration c;
  c.links[LinkKind::Ethernet] = LinkClassCalibration{0.9321, Time::from_ns(284215)};
  c.fitted_from = {"a.jsonl"};
  c.cases = 4;
  const std::string path = write_cal("fitted", "");
  write_calibration_file(path, c);
  const Calibration r = load_calibration_file(path);
  REQUIRE(r.links.count(LinkKind::Ethernet) == 1);
  CHECK(r.links.at(LinkKind::Ethernet).efficiency == 0.9321);
  CHECK(r.links.at(LinkKind::Ethernet).latency == Time::from_ns(284215));  // written as "284215ns"
  CHECK(r.cases == 4);
  CHECK_FALSE(r.protocol);  // no protocol-model keys: the protocol model stays NCCL's
}

TEST_CASE("calibration file: link classes and protocol constants in one file", "[measure][calibration]") {
  const Calibration both = load_calibration_file(write_cal(
      "both", R"({"kind":"collsim-calibration","links":{"ethernet":{"efficiency":0.5,"latency":"100us"}},"channels":4,)"
              R"("base_latency":{"ring":{"simple":"7us"}}})"));
  REQUIRE(both.links.count(LinkKind::Ethernet) == 1);
  REQUIRE(both.protocol);
  CHECK(both.protocol->channels == 4);
  CHECK(both.protocol->base_latency[1][2] == Time::from_us(7));  // row ring, protocol simple
  // Untouched constants keep NCCL's defaults.
  CHECK(both.protocol->base_latency[1][0] == nccl_default_model().base_latency[1][0]);
  // A protocol-only file (what collective --calibration read before) is still a calibration.
  const Calibration proto = load_calibration_file(write_cal("proto", R"({"efficiency":{"ll":0.4}})"));
  CHECK(proto.links.empty());
  REQUIRE(proto.protocol);
  CHECK(proto.protocol->efficiency[0] == 0.4);
  // Applying: links of a calibrated class get efficiency x bandwidth and the new latency.
  Topology t = make_star(StarSpec{2, Bandwidth{1e9}, Time::from_us(1), LinkKind::Ethernet, 9000});
  const double before = t.links.front().bandwidth.bytes_per_s;
  apply_calibration(t, both);
  CHECK(t.links.front().bandwidth.bytes_per_s == Approx(before * 0.5));
  CHECK(t.links.front().latency == Time::from_us(100));
}

TEST_CASE("calibration file: the protocol model a run prices with is the file's constants, then the knobs",
          "[measure][calibration]") {
  const NcclEnv knobs = parse_nccl_env("NCCL_MAX_NCHANNELS=4 NCCL_NVLS_ENABLE=0", "test");
  // No calibration, or one without protocol constants: NCCL's defaults under the knobs.
  const ProtocolModel plain = calibrated_protocol_model(std::nullopt, knobs);
  CHECK(plain.base_latency == nccl_default_model().base_latency);
  CHECK(plain.max_nchannels == 4);
  CHECK_FALSE(plain.nvls_enabled);
  Calibration links_only;
  links_only.links[LinkKind::Ib] = LinkClassCalibration{0.5, std::nullopt};
  CHECK(calibrated_protocol_model(links_only, knobs).step_latency == nccl_default_model().step_latency);
  // The file's constants, with the knobs over them (the file holds no channel bound).
  const Calibration c = load_calibration_file(write_cal("knobs", R"({"base_latency":{"ring":{"simple":"7us"}}})"));
  const ProtocolModel m = calibrated_protocol_model(c, knobs);
  CHECK(m.base_latency[1][2] == Time::from_us(7));
  CHECK(m.max_nchannels == 4);
  CHECK_FALSE(m.nvls_enabled);
  CHECK(calibrated_protocol_model(c, NcclEnv{}).nvls_enabled == nccl_default_model().nvls_enabled);
}

TEST_CASE("calibration file: fitted NCCL constants and latency-free link classes read back", "[measure][calibration]") {
  // What validate --calibrate writes for nccl-tests logs: link efficiencies without a
  // latency (NCCL's step latencies price the steps), and the protocol constants it moved.
  Calibration c;
  c.links[LinkKind::Roce] = LinkClassCalibration{0.396572, std::nullopt};
  ProtocolModel m = nccl_default_model();
  const auto net = static_cast<std::size_t>(LinkClass::Net);
  m.step_latency[net][1][1] = Time::from_ns(103165);  // ring, LL128
  m.step_latency[net][0][1] = Time::from_ns(107665);  // tree, LL128
  m.efficiency[0] = 0.406794;                          // LL
  c.protocol = m;
  c.cases = 28;
  const std::string path = write_cal("nccl_fit", "");
  write_calibration_file(path, c);
  const std::string text = test::read_test_file(path);
  CHECK(text.find("\"latency\"") == std::string::npos);
  CHECK(text.find("\"ll128\": \"103165ns\"") != std::string::npos);
  CHECK(text.find("\"simple\"") == std::string::npos);  // NCCL's own values are not written
  const Calibration r = load_calibration_file(path);
  REQUIRE(r.links.count(LinkKind::Roce) == 1);
  CHECK(r.links.at(LinkKind::Roce).efficiency == 0.396572);
  CHECK_FALSE(r.links.at(LinkKind::Roce).latency);
  REQUIRE(r.protocol);
  CHECK(r.protocol->step_latency == m.step_latency);
  CHECK(r.protocol->efficiency == m.efficiency);
  CHECK(r.protocol->base_latency == m.base_latency);
  CHECK(r.cases == 28);
  // A link class without a latency keeps every link's own.
  Topology t = make_star(StarSpec{2, Bandwidth{1e9}, Time::from_us(1), LinkKind::Roce, 9000});
  apply_calibration(t, r);
  CHECK(t.links.front().latency == Time::from_us(1));
  CHECK(t.links.front().bandwidth.bytes_per_s == Approx(1e9 * 0.396572));
}

TEST_CASE("calibration file: the DDP section reads back, alone or beside link classes", "[measure][calibration]") {
  Calibration c;
  c.ddp = DdpCalibration{{8, 0.09, 0.02, 0.15, 0.05}, 0.8765};
  c.fitted_from = {"ddp_calibration_set.jsonl"};
  const std::string path = write_cal("ddp_only", "");
  write_calibration_file(path, c);
  const Calibration r = load_calibration_file(path);
  CHECK(r.links.empty());  // no link classes fitted: none written, and the file still loads
  CHECK_FALSE(r.protocol);
  REQUIRE(r.ddp);
  CHECK(r.ddp->comm_slowdown == 0.8765);
  CHECK(r.ddp->cases == 8);
  CHECK(r.ddp->median_error_before == 0.09);
  CHECK(r.ddp->max_error_after == 0.05);
  c.links[LinkKind::Ethernet] = LinkClassCalibration{0.99, Time::from_us(30)};
  write_calibration_file(path, c);
  const Calibration both = load_calibration_file(path);
  CHECK(both.links.count(LinkKind::Ethernet) == 1);
  REQUIRE(both.ddp);
  CHECK(both.ddp->comm_slowdown == 0.8765);
  // A hand-written section needs only the slowdown.
  const Calibration hand = load_calibration_file(write_cal("ddp_hand", R"({"ddp":{"comm_slowdown":0.5}})"));
  REQUIRE(hand.ddp);
  CHECK(hand.ddp->comm_slowdown == 0.5);
  CHECK(hand.ddp->cases == 0);
}

TEST_CASE("calibration file: bad input names the file and field", "[measure][calibration]") {
  CHECK_THROWS_AS(load_calibration_file(write_cal("empty", "{}")), ConfigError);  // neither links nor constants
  CHECK_THROWS_AS(load_calibration_file(write_cal("colour", R"({"links":{"ib":{"efficiency":1,"latency":"1us"}},"colour":1})")),
                  ConfigError);
  CHECK_THROWS_AS(load_calibration_file(write_cal("kind", R"({"kind":"teapot","channels":2})")), ConfigError);
  CHECK_THROWS_AS(load_calibration_file(write_cal("chan", R"({"channels":65})")), ConfigError);
  CHECK_THROWS_AS(load_calibration_file(write_cal("nolinks", R"({"links":{}})")), ConfigError);
  CHECK_THROWS_AS(load_calibration_file(write_cal("ddpneg", R"({"ddp":{"comm_slowdown":-0.1}})")), ConfigError);
  CHECK_THROWS_AS(load_calibration_file(write_cal("ddpnone", R"({"ddp":{}})")), ConfigError);
  CHECK_THROWS_AS(load_calibration_file(write_cal("ddpextra", R"({"ddp":{"comm_slowdown":1,"speedup":2}})")), ConfigError);
  try {
    (void)load_calibration_file(write_cal("warp", R"({"links":{"warp":{"efficiency":1,"latency":"1us"}}})"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("collsim_calfile_warp.json") && Catch::Contains("/links/warp"));
  }
}
