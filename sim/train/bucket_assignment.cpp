#include "sim/train/bucket_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace collsim {

namespace {

struct Accumulator {
  DType dtype = DType::Float32;
  std::vector<std::size_t> indices;
  std::int64_t bytes = 0;
  std::size_t limit = 0;  // index into the limits list (the key's limit iterator)
};

Bucket make_bucket(const std::vector<Parameter>& params, std::vector<std::size_t> indices) {
  Bucket b;
  b.dtype = params[indices.front()].dtype;
  b.sparse = params[indices.front()].sparse_gradient;
  for (std::size_t i : indices) {
    b.bytes += params[i].bytes();
    b.numel += params[i].numel;
  }
  b.params = std::move(indices);
  return b;
}

}  // namespace

std::vector<Bucket> compute_bucket_assignment_by_size(const std::vector<Parameter>& params,
                                                      const std::vector<std::size_t>& order,
                                                      const std::vector<std::int64_t>& limits,
                                                      bool sort_by_min_index) {
  std::vector<Bucket> result;
  // One accumulator per dtype, in order of first appearance (the reducer keys an
  // unordered_map by (dtype, device); everything is on one device here).
  std::vector<Accumulator> acc;
  for (std::size_t index : order) {
    const Parameter& p = params[index];
    if (p.sparse_gradient) {
      result.push_back(make_bucket(params, {index}));
      continue;
    }
    auto it = std::find_if(acc.begin(), acc.end(), [&](const Accumulator& a) { return a.dtype == p.dtype; });
    if (it == acc.end()) {
      acc.push_back(Accumulator{p.dtype, {}, 0, 0});
      it = acc.end() - 1;
    }
    it->indices.push_back(index);
    it->bytes += p.bytes().count;
    if (it->bytes >= limits[it->limit]) {
      result.push_back(make_bucket(params, std::move(it->indices)));
      it->indices.clear();
      it->bytes = 0;
      if (it->limit + 1 < limits.size()) ++it->limit;
    }
  }
  // Leftovers. The reducer iterates its std::unordered_map of accumulators; with
  // libstdc++ a map that never rehashed past its first buckets lists keys in reverse
  // insertion order (each new node goes to the front of the singly linked node list).
  // This only matters on the unsorted (rebuild) path with more than one dtype, and is
  // checked against real PyTorch by tests/unit/train_bucket_truth_test.cpp.
  for (auto a = acc.rbegin(); a != acc.rend(); ++a) {
    if (!a->indices.empty()) result.push_back(make_bucket(params, std::move(a->indices)));
  }
  if (sort_by_min_index) {
    std::stable_sort(result.begin(), result.end(), [](const Bucket& a, const Bucket& b) {
      return *std::min_element(a.params.begin(), a.params.end()) < *std::min_element(b.params.begin(), b.params.end());
    });
  }
  return result;
}

BucketPlan construction_buckets(const Workload& w, const BucketOptions& o) {
  std::vector<std::int64_t> limits;
  if (o.static_graph || !o.find_unused_parameters) {
    limits = {kNoBucketLimit};
  } else {
    limits = {o.first_bucket_cap.count, o.bucket_cap.count};
  }
  std::vector<std::size_t> order(w.parameters.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  BucketPlan plan;
  plan.buckets = compute_bucket_assignment_by_size(w.parameters, order, limits, true);
  std::reverse(plan.buckets.begin(), plan.buckets.end());
  return plan;
}

BucketPlan rebuilt_buckets(const Workload& w, const std::vector<std::size_t>& ready_order, const BucketOptions& o) {
  if (o.find_unused_parameters && !o.static_graph) return construction_buckets(w, o);
  BucketPlan plan;
  plan.buckets = compute_bucket_assignment_by_size(w.parameters, ready_order,
                                                   {o.first_bucket_cap.count, o.bucket_cap.count}, false);
  return plan;
}

Bytes bucket_cap_from_mb(double mb) { return Bytes{static_cast<std::int64_t>(mb * 1024.0 * 1024.0)}; }

double bucket_cap_mb_of(Bytes cap) {
  const double exact = static_cast<double>(cap.count) / (1024.0 * 1024.0);
  for (int digits = 1; digits <= 17; ++digits) {
    const double shorter = std::strtod(fmt::format("{:.{}g}", exact, digits).c_str(), nullptr);
    if (bucket_cap_from_mb(shorter) == cap) return shorter;
  }
  return exact;
}

}  // namespace collsim
