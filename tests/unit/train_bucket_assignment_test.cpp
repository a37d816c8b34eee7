// compute_bucket_assignment_by_size rules on hand-sized tensors (the real-PyTorch
// comparison is train_bucket_truth_test.cpp), and the device catalogue.
#include <catch2/catch.hpp>

#include "sim/topo/gpu_catalogue.hpp"
#include "sim/train/bucket_assignment.hpp"
#include "sim/train/device_catalogue.hpp"

namespace collsim {
namespace {

Parameter param(std::int64_t numel, DType t = DType::Float32, bool sparse = false) {
  return Parameter{.name = "p", .numel = numel, .dtype = t, .sparse_gradient = sparse};
}

std::vector<std::vector<std::size_t>> assignment_members(const std::vector<Bucket>& bs) {
  std::vector<std::vector<std::size_t>> out;
  for (const auto& b : bs) out.push_back(b.params);
  return out;
}

}  // namespace

TEST_CASE("a bucket closes once it reaches the limit, keeping the tensor that crossed it", "[train][buckets]") {
  // fp32 sizes 40, 40, 40, 200, 8 B with limits [100, 160]: 40+40+40 = 120 >= 100 closes
  // {0,1,2}; the limit moves to 160 and stays there: 200 >= 160 closes {3} alone (a tensor
  // bigger than the cap is never split); {4} is left over.
  const std::vector<Parameter> ps{param(10), param(10), param(10), param(50), param(2)};
  const auto bs = compute_bucket_assignment_by_size(ps, {0, 1, 2, 3, 4}, {100, 160}, true);
  CHECK(assignment_members(bs) == std::vector<std::vector<std::size_t>>{{0, 1, 2}, {3}, {4}});
  CHECK(bs[0].bytes == Bytes{120});
  CHECK(bs[1].bytes == Bytes{200});
}

TEST_CASE("dtypes fill separate buckets; sparse gradients sit alone", "[train][buckets]") {
  // fp32 24 B, fp16 8 B, sparse 400 B, fp32 24 B, fp16 8 B; limit 40 B: the fp32 pair
  // reaches 48 >= 40 at index 3 (closed then); the sparse one is emitted at once; the fp16
  // pair (16 B) is left over. Sorted by smallest index: {0,3} (0), {1,4} (1), {2} (2).
  const std::vector<Parameter> ps{param(6), param(4, DType::Float16), param(100, DType::Float32, true), param(6),
                                  param(4, DType::Float16)};
  const auto sorted = compute_bucket_assignment_by_size(ps, {0, 1, 2, 3, 4}, {40}, true);
  CHECK(assignment_members(sorted) == std::vector<std::vector<std::size_t>>{{0, 3}, {1, 4}, {2}});
  CHECK(sorted[2].sparse);
  CHECK(sorted[1].dtype == DType::Float16);
  // Unsorted (rebuild path): emission order: sparse {2} first, then {0,3}, then leftovers.
  const auto unsorted = compute_bucket_assignment_by_size(ps, {0, 1, 2, 3, 4}, {40}, false);
  CHECK(assignment_members(unsorted) == std::vector<std::vector<std::size_t>>{{2}, {0, 3}, {1, 4}});
}

TEST_CASE("construction reverses, rebuild follows the ready order", "[train][buckets]") {
  Workload w;
  for (int i = 0; i < 4; ++i) w.parameters.push_back(param(250));  // 1,000 B each
  BucketOptions o;
  o.first_bucket_cap = Bytes{1000};
  o.bucket_cap = Bytes{2000};
  // Default (no find_unused): one bucket of everything at construction.
  CHECK(assignment_members(construction_buckets(w, o).buckets) == std::vector<std::vector<std::size_t>>{{0, 1, 2, 3}});
  // find_unused: [1000, 2000] over 0..3 gives {0} {1,2} {3}, reversed.
  o.find_unused_parameters = true;
  CHECK(assignment_members(construction_buckets(w, o).buckets) == std::vector<std::vector<std::size_t>>{{3}, {1, 2}, {0}});
  // ...and no rebuild.
  CHECK(assignment_members(rebuilt_buckets(w, {3, 2, 1, 0}, o).buckets) == std::vector<std::vector<std::size_t>>{{3}, {1, 2}, {0}});
  // Without find_unused the rebuild takes the ready order as is: {3} {2,1} {0}.
  o.find_unused_parameters = false;
  CHECK(assignment_members(rebuilt_buckets(w, {3, 2, 1, 0}, o).buckets) == std::vector<std::vector<std::size_t>>{{3}, {2, 1}, {0}});
}

TEST_CASE("bucket_cap_mb is MiB truncated to whole bytes", "[train][buckets]") {
  CHECK(bucket_cap_from_mb(25) == Bytes{26'214'400});  // int(25 * 1024 * 1024)
  CHECK(bucket_cap_from_mb(0.5) == Bytes{524'288});
}

TEST_CASE("device catalogue", "[train][device]") {
  const auto h100 = find_device("h100");
  REQUIRE(h100);
  // H100 SXM datasheet: BF16 1,979 TFLOPS with sparsity = 989.5 dense; 3.35 TB/s.
  CHECK(h100->peak_flops("bf16") == Approx(989.5e12));
  CHECK(h100->hbm_bandwidth.bytes_per_s == Approx(3.35e12));
  CHECK(find_device("B200"));
  CHECK_FALSE(find_device("TPUv4"));
  CHECK(device_names().size() == gpu_catalogue().size());  // a view of the GPU catalogue
  CHECK_THROWS_AS(h100->peak_flops("fp8"), std::invalid_argument);
}

}  // namespace collsim
