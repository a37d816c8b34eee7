// Workload files: the loader's validation rules, and the shipped workloads against the
// reference parameter lists in tests/data/models.
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/train/bucket_assignment.hpp"
#include "sim/train/workload.hpp"
#include "tests/unit/test_files.hpp"

namespace collsim {
namespace {

nlohmann::json minimal() {
  return {{"name", "m"},
          {"parameters", {{{"name", "w"}, {"numel", 6}, {"dtype", "float32"}, {"shape", {2, 3}}}}},
          {"layers", {{{"name", "L"}, {"forward_flops", 1e9}, {"backward_flops", 2e9}, {"params", {"w"}}}}}};
}

std::vector<std::pair<std::string, std::int64_t>> read_csv(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::pair<std::string, std::int64_t>> rows;
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    rows.emplace_back(line.substr(0, comma), std::stoll(line.substr(comma + 1)));
  }
  return rows;
}

std::string reference_csv(const std::string& name) { return std::string(COLLSIM_TEST_DATA) + "/models/" + name; }

}  // namespace

TEST_CASE("a minimal workload loads", "[train][workload]") {
  const Workload w = parse_workload(minimal(), "m.json");
  CHECK(w.parameters.size() == 1);
  CHECK(w.parameter_bytes() == Bytes{24});  // 6 fp32 elements
  CHECK(w.grad_ready_order() == std::vector<std::size_t>{0});
}

TEST_CASE("workload validation names the field", "[train][workload]") {
  auto j = minimal();
  SECTION("unknown key") { j["colour"] = "red"; }
  SECTION("unknown dtype") { j["parameters"][0]["dtype"] = "float8"; }
  SECTION("shape disagrees with numel") { j["parameters"][0]["shape"] = {4, 4}; }
  SECTION("shape product overflows") { j["parameters"][0]["shape"] = {1LL << 40, 1LL << 40}; }
  SECTION("optimizer time and bytes together") { j["optimizer"] = {{"time", "1ms"}, {"memory_bytes_per_param", 16}}; }
  SECTION("layer names an unknown parameter") { j["layers"][0]["params"] = {"nope"}; }
  SECTION("parameter never made ready") { j["parameters"].push_back({{"name", "v"}, {"numel", 1}, {"dtype", "float32"}}); }
  SECTION("parameter in two layers") {
    j["layers"].push_back({{"name", "L2"}, {"forward_flops", 0}, {"backward_flops", 0}, {"params", {"w"}}});
  }
  SECTION("times without measured_on") {
    j["layers"][0] = {{"name", "L"}, {"forward_time", "1ms"}, {"backward_time", "2ms"}, {"params", {"w"}}};
  }
  SECTION("time without unit") {
    j["measured_on"] = "cpu";
    j["layers"][0] = {{"name", "L"}, {"forward_time", "1"}, {"backward_time", "2ms"}, {"params", {"w"}}};
  }
  SECTION("times and FLOPs together") { j["layers"][0]["forward_time"] = "1ms"; }
  SECTION("duplicate parameter name") { j["parameters"].push_back(j["parameters"][0]); }
  SECTION("efficiency above 1") { j["compute"] = {{"precision", "fp16"}, {"efficiency", 1.5}}; }
  REQUIRE_THROWS_AS(parse_workload(j, "bad.json"), ConfigError);
}

TEST_CASE("validation error names file and pointer", "[train][workload]") {
  auto j = minimal();
  j["parameters"][0]["dtype"] = "float8";
  try {
    (void)parse_workload(j, "bad.json");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.source() == "bad.json");
    CHECK(e.field() == "/parameters/0/dtype");
  }
}

TEST_CASE("shipped ResNet-50 and BERT parameter lists equal the reference lists", "[train][workload]") {
  for (const auto& [name, csv] : std::vector<std::pair<std::string, std::string>>{
           {"resnet50", "resnet50_params.csv"}, {"bert-base", "bert_base_params.csv"}, {"bert-large", "bert_large_params.csv"}}) {
    INFO(name);
    const Workload w = load_workload_file(test::shipped_workload(name));
    const auto ref = read_csv(reference_csv(csv));
    REQUIRE(w.parameters.size() == ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) {
      CHECK(w.parameters[i].name == ref[i].first);
      CHECK(w.parameters[i].numel == ref[i].second);
    }
  }
  // torchvision's ResNet50_Weights num_params: 25,557,032.
  CHECK(load_workload_file(test::shipped_workload("resnet50")).parameter_count() == 25'557'032);
}

TEST_CASE("shipped GPT-2 medium has GPT-2 medium's parameter count", "[train][workload]") {
  // 24 blocks x 12,596,224 + wte 50257 x 1024 + wpe 1024 x 1024 + ln_f 2048
  // = 302,309,376 + 51,463,168 + 1,048,576 + 2,048 = 354,823,168 (LM head tied to wte).
  CHECK(load_workload_file(test::shipped_workload("gpt2-medium")).parameter_count() == 354'823'168);
}

TEST_CASE("ResNet-50 conv and fc FLOPs are twice the reference MACs", "[train][workload]") {
  // resnet50_layer_macs.csv: forward MACs per 224x224 image; the workload's FLOPs are for
  // its per-GPU batch, 2 FLOPs per MAC, plus one add per output for layers with a bias (fc).
  const Workload w = load_workload_file(test::shipped_workload("resnet50"));
  std::map<std::string, double> flops;
  for (const auto& l : w.layers) flops[l.name] = l.compute.forward_flops;
  const auto macs = read_csv(reference_csv("resnet50_layer_macs.csv"));
  REQUIRE(macs.size() == 54);  // 53 convolutions + fc
  for (const auto& [layer, m] : macs) {
    INFO(layer);
    const double bias = layer == "fc" ? 1000.0 : 0.0;
    CHECK(flops.at(layer) == Approx(w.batch_per_gpu * (2.0 * static_cast<double>(m) + bias)));
  }
}

TEST_CASE("shipped ResNet-50's layer order gives the gradient-ready order real PyTorch observed", "[train][workload]") {
  // tests/data/ddp_bucket_truth.json holds torch 1.13's observed order for torchvision's
  // resnet50 (AccumulateGrad post-hooks); the workload's reverse layer order must equal it.
  const auto truth = nlohmann::json::parse(std::ifstream(COLLSIM_TEST_DATA "/ddp_bucket_truth.json"));
  const auto& c = truth["cases"][0];
  REQUIRE(c["model"] == "resnet50");
  CHECK(load_workload_file(test::shipped_workload("resnet50")).grad_ready_order() == c["grad_ready_order"].get<std::vector<std::size_t>>());
}

}  // namespace collsim
