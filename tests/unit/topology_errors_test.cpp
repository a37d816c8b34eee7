// Topology validation: every rule throws a ConfigError that names the file, the JSON
// pointer, the bad value and what was expected.
#include <catch2/catch.hpp>

#include <string>

#include "sim/core/error.hpp"
#include "sim/core/json_fields.hpp"
#include "sim/topo/loader.hpp"

using namespace collsim;

namespace {

// A valid two-GPU box; each test breaks one thing.
std::string two_gpus(const std::string& link_extra = "", const std::string& gpu1 = R"({"id": "g1", "kind": "gpu"})") {
  return R"({"name": "pair", "nodes": [{"id": "g0", "kind": "gpu", "model": "H100"}, )" + gpu1 +
         R"(, {"id": "sw", "kind": "nvswitch"}],
    "links": [{"endpoints": ["g0", "sw"], "kind": "nvswitch", "bandwidth": "450GB/s", "latency": "0.25us"},
              {"endpoints": ["g1", "sw"], "kind": "nvswitch", "bandwidth": "450GB/s", "latency": "0.25us")" +
         link_extra + "}]}";
}

ConfigError error_of(const std::string& text) {
  try {
    (void)load_topology_json(parse_json_text(text, "t.json"), "t.json");
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError for: " << text);
  throw;
}

}  // namespace

TEST_CASE("a valid topology loads: ranks are the GPUs in file order", "[topo][errors]") {
  const Topology t = load_topology_json(parse_json_text(two_gpus(), "t.json"), "t.json");
  REQUIRE(t.rank_count() == 2);
  CHECK(t.nodes[t.ranks[0]].id == "g0");
  CHECK(t.links.size() == 4);  // two duplex links
}

TEST_CASE("malformed JSON names the line and column", "[topo][errors]") {
  REQUIRE_THROWS_AS(parse_json_text("{\n  \"nodes\": [,]\n}", "t.json"), ConfigError);
  const auto e = [] {
    try {
      (void)parse_json_text("{\n  \"nodes\": [,]\n}", "t.json");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  CHECK_THAT(e, Catch::Contains("t.json") && Catch::Contains("line 2") && Catch::Contains("well-formed JSON"));
}

namespace {
std::string parse_error_of(const std::string& text) {
  try {
    (void)parse_json_text(text, "t.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("hostile JSON is a ConfigError: deep nesting, numbers beyond double", "[topo][errors][json]") {
  // 100,000 levels: refused at level 257 before anything recurses over it.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK_THAT(parse_error_of(deep), Catch::Contains("line 1, column 257") && Catch::Contains("nested at most 256"));
  // 256 levels are fine; brackets inside strings do not count.
  CHECK_NOTHROW(parse_json_text(std::string(256, '[') + std::string(256, ']'), "t.json"));
  CHECK_NOTHROW(parse_json_text("{\"a\": \"" + std::string(1000, '[') + "\\\"\"}", "t.json"));
  CHECK_THAT(parse_error_of("{\"bandwidth\": 1e400}"), Catch::Contains("t.json") && Catch::Contains("number overflow") &&
                                                         Catch::Contains("range of a double"));
}

TEST_CASE("a bandwidth without a unit", "[topo][errors]") {
  std::string text = two_gpus();
  text.replace(text.find("\"450GB/s\""), 9, "\"450\"");
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  const ConfigError e = error_of(text);
  CHECK(e.source() == "t.json");
  CHECK(e.field() == "/links/0/bandwidth");
  CHECK(e.value() == "\"450\"");
  CHECK_THAT(e.expected(), Catch::Contains("bandwidth with a unit"));
}

TEST_CASE("a negative latency", "[topo][errors]") {
  std::string text = two_gpus();
  text.replace(text.rfind("\"0.25us\""), 8, "\"-3us\"");
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  const ConfigError e = error_of(text);
  CHECK(e.field() == "/links/1/latency");
  CHECK(e.value() == "\"-3us\"");
  CHECK_THAT(e.expected(), Catch::Contains("non-negative time"));
}

TEST_CASE("a link to an unknown node", "[topo][errors]") {
  std::string text = two_gpus();
  text.replace(text.find("[\"g1\", \"sw\"]"), 12, "[\"g9\", \"sw\"]");
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  const ConfigError e = error_of(text);
  CHECK(e.field() == "/links/1/endpoints/0");
  CHECK(e.value() == "\"g9\"");
  CHECK_THAT(e.expected(), Catch::Contains("node listed in /nodes"));
}

TEST_CASE("a missing field", "[topo][errors]") {
  std::string text = two_gpus();
  text.replace(text.find(", \"latency\": \"0.25us\""), 21, "");
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  const ConfigError e = error_of(text);
  CHECK(e.field() == "/links/0/latency");
  CHECK_THAT(e.expected(), Catch::Contains("required"));
}

TEST_CASE("an unknown key", "[topo][errors]") {
  const std::string text = two_gpus(R"(, "colour": "blue")");
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  const ConfigError e = error_of(text);
  CHECK(e.field() == "/links/1/colour");
  CHECK_THAT(e.value(), Catch::Contains("colour"));
  CHECK_THAT(e.expected(), Catch::Contains("bandwidth") && Catch::Contains("latency"));
}

TEST_CASE("a GPU with no path to the others", "[topo][errors]") {
  // g1 only connects to g0 through ... nothing: its link goes to a NIC that leads nowhere.
  const std::string text = R"({"nodes": [{"id": "g0", "kind": "gpu"}, {"id": "g1", "kind": "gpu"},
      {"id": "sw", "kind": "nvswitch"}, {"id": "nic", "kind": "nic"}],
    "links": [{"endpoints": ["g0", "sw"], "kind": "nvswitch", "bandwidth": "450GB/s", "latency": "1us"},
              {"endpoints": ["g1", "nic"], "kind": "pcie", "bandwidth": "32GB/s", "latency": "1us"}]})";
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  const ConfigError e = error_of(text);
  CHECK(e.field() == "/nodes/0");
  CHECK_THAT(e.value(), Catch::Contains("\"g0\"") && Catch::Contains("no path") && Catch::Contains("\"g1\""));
  CHECK_THAT(e.expected(), Catch::Contains("path of links"));
}

TEST_CASE("a path through another GPU does not count", "[topo][errors]") {
  // g0 - g1 - g2 chained by direct links: g0 cannot reach g2 without transiting g1.
  const std::string text = R"({"nodes": [{"id": "g0", "kind": "gpu"}, {"id": "g1", "kind": "gpu"}, {"id": "g2", "kind": "gpu"}],
    "links": [{"endpoints": ["g0", "g1"], "kind": "nvlink", "bandwidth": "25GB/s", "latency": "1us"},
              {"endpoints": ["g1", "g2"], "kind": "nvlink", "bandwidth": "25GB/s", "latency": "1us"}]})";
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  CHECK_THAT(error_of(text).value(), Catch::Contains("no path"));
}

TEST_CASE("duplicate node ids", "[topo][errors]") {
  const std::string text = two_gpus("", R"({"id": "g0", "kind": "gpu"})");
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  const ConfigError e = error_of(text);
  CHECK(e.field() == "/nodes/1/id");
  CHECK_THAT(e.expected(), Catch::Contains("not used by an earlier node"));
}

TEST_CASE("an unknown node or link kind", "[topo][errors]") {
  const std::string text = two_gpus("", R"({"id": "g1", "kind": "tpu"})");
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  const ConfigError e = error_of(text);
  CHECK(e.field() == "/nodes/1/kind");
  CHECK(e.value() == "\"tpu\"");
  CHECK_THAT(e.expected(), Catch::Contains("gpu") && Catch::Contains("nvswitch"));
  std::string bad_link = two_gpus();
  const std::string good_kind = R"("kind": "nvswitch", "bandwidth")";
  bad_link.replace(bad_link.find(good_kind), good_kind.size(), R"("kind": "carrier-pigeon", "bandwidth")");
  CHECK(error_of(bad_link).field() == "/links/0/kind");
}

TEST_CASE("a link from a node to itself", "[topo][errors]") {
  std::string text = two_gpus();
  text.replace(text.find("[\"g1\", \"sw\"]"), 12, "[\"sw\", \"sw\"]");
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  CHECK(error_of(text).field() == "/links/1/endpoints");
}

TEST_CASE("a rank that is not a GPU or host", "[topo][errors]") {
  std::string text = two_gpus();
  text.insert(text.size() - 1, R"(, "ranks": ["g0", "sw"])");
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  const ConfigError e = error_of(text);
  CHECK(e.field() == "/ranks/1");
  CHECK_THAT(e.expected(), Catch::Contains("\"gpu\" or \"host\""));
}

TEST_CASE("a topology that is not a JSON object", "[topo][errors]") {
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text("[1, 2]", "t.json"), "t.json"), ConfigError);
}

TEST_CASE("generator parameters are validated too", "[topo][errors]") {
  const std::string text = R"({"generator": {"kind": "star", "hosts": 0, "bandwidth": "10Gbps", "latency": "1us"}})";
  REQUIRE_THROWS_AS(load_topology_json(parse_json_text(text, "t.json"), "t.json"), ConfigError);
  CHECK(error_of(text).field() == "/generator/hosts");
}
