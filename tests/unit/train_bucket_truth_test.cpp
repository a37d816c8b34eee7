// Bucket assignment vs real PyTorch: tests/data/ddp_bucket_truth.json was recorded by
// scripts/ddp_bucket_truth.py from Debian's torch 1.13 (gloo, world size 1) for ResNet-50,
// a BERT-base encoder, a mixed fp32/fp16 model and a sparse-embedding model at
// bucket_cap_mb 1, 5, 25, 100, with find_unused_parameters false and true.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/core/json_fields.hpp"
#include "sim/train/bucket_assignment.hpp"

namespace collsim {
namespace {

Workload params_only(const nlohmann::json& c) {
  Workload w;
  w.name = c["model"].get<std::string>();
  for (const auto& p : c["parameters"]) {
    Parameter q;
    q.name = p["name"].get<std::string>();
    q.numel = p["numel"].get<std::int64_t>();
    q.dtype = *enum_from<DType>(p["dtype"].get<std::string>());
    q.sparse_gradient = p["sparse"].get<bool>();
    w.parameters.push_back(q);
  }
  return w;
}

std::vector<std::vector<std::size_t>> truth_members(const BucketPlan& plan) {
  std::vector<std::vector<std::size_t>> out;
  for (const auto& b : plan.buckets) out.push_back(b.params);
  return out;
}

std::vector<std::int64_t> byte_sizes(const BucketPlan& plan) {
  std::vector<std::int64_t> out;
  for (const auto& b : plan.buckets) out.push_back(b.bytes.count);
  return out;
}

}  // namespace

TEST_CASE("bucket assignment equals real PyTorch DDP's, construction and rebuild", "[train][buckets][truth]") {
  const auto truth = read_json_file(COLLSIM_TEST_DATA "/ddp_bucket_truth.json");
  const auto& cases = truth["cases"];
  // 4 models x 4 caps x find_unused {false, true}.
  REQUIRE(cases.size() == 32);
  int rebuilt_multi_bucket = 0;
  for (const auto& c : cases) {
    const Workload w = params_only(c);
    BucketOptions o;
    o.bucket_cap = bucket_cap_from_mb(c["bucket_cap_mb"].get<double>());
    o.find_unused_parameters = c["find_unused_parameters"].get<bool>();
    const auto ready = c["grad_ready_order"].get<std::vector<std::size_t>>();
    INFO(w.name << " bucket_cap_mb=" << c["bucket_cap_mb"] << " find_unused=" << o.find_unused_parameters);
    REQUIRE(ready.size() == w.parameters.size());

    // Construction: the reducer's buckets (bucket 0 first) and the logged bucket_sizes.
    const BucketPlan built = construction_buckets(w, o);
    CHECK(truth_members(built) == c["construction"]["buckets"].get<std::vector<std::vector<std::size_t>>>());
    CHECK(byte_sizes(built) == c["construction"]["bucket_sizes"].get<std::vector<std::int64_t>>());

    // After iteration 0: rebuilt from the observed gradient-ready order (or, with
    // find_unused_parameters, unchanged).
    const BucketPlan after = rebuilt_buckets(w, ready, o);
    const auto want = c["after_first_iteration"]["buckets"].get<std::vector<std::vector<std::size_t>>>();
    CHECK(truth_members(after) == want);
    if (!o.find_unused_parameters) {
      // DDP's own log of the rebuild (iteration 2's runtime stats) says the same: sizes,
      // per-bucket indices, and the gradient-ready order it used.
      const auto& logged = c["after_first_iteration"];
      CHECK(byte_sizes(after) == logged["rebuilt_bucket_sizes"].get<std::vector<std::int64_t>>());
      CHECK(truth_members(after) == logged["logged_per_bucket_param_indices"].get<std::vector<std::vector<std::size_t>>>());
      CHECK(ready == logged["logged_grad_ready_order"].get<std::vector<std::size_t>>());
      if (want.size() > 1) ++rebuilt_multi_bucket;
    }
  }
  // The comparison is not vacuous: most rebuilt layouts have several buckets.
  CHECK(rebuilt_multi_bucket >= 12);
}

}  // namespace collsim
