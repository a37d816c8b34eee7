// PyTorch DDP's gradient bucket assignment (reducer.cpp compute_bucket_assignment_by_size
// and the construction / rebuild rules of distributed.py), reproduced exactly. Sizes in
// bytes; 1 MiB = 1,048,576 B, bucket_cap_mb is MiB.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/train/workload.hpp"

namespace collsim {

// One bucket: parameter indices in bucket order (their offsets in the flat buffer).
struct Bucket {
  std::vector<std::size_t> params;
  Bytes bytes;                 // sum of member sizes
  DType dtype = DType::Float32;
  bool sparse = false;         // a lone sparse-gradient parameter
  std::int64_t numel = 0;
};

// Buckets in reducer order: bucket 0 is reduced first.
struct BucketPlan {
  std::vector<Bucket> buckets;
};

// Limit list value standing for Python's sys.maxsize ("no limit").
inline constexpr std::int64_t kNoBucketLimit = INT64_MAX;

// compute_bucket_assignment_by_size: walks `order` (parameter indices), one accumulator
// and one limit iterator per dtype (all on one device here); a sparse-gradient parameter
// is a bucket of its own; a bucket closes once its bytes reach the current limit (the
// tensor that crossed it stays in); the limit iterator advances after each close until
// the last limit. When `sort_by_min_index` (construction path: no tensor_indices) the
// buckets are sorted by their smallest parameter index; otherwise (rebuild path) they keep
// the order in which they closed, leftovers last in dtype first-seen order.
[[nodiscard]] std::vector<Bucket> compute_bucket_assignment_by_size(const std::vector<Parameter>& params,
                                                                    const std::vector<std::size_t>& order,
                                                                    const std::vector<std::int64_t>& limits,
                                                                    bool sort_by_min_index);

struct BucketOptions {
  Bytes bucket_cap{25 * 1024 * 1024};       // bucket_cap_mb = 25 (MiB)
  Bytes first_bucket_cap{1024 * 1024};      // dist._DEFAULT_FIRST_BUCKET_BYTES
  bool find_unused_parameters = false;
  bool static_graph = false;
};

// The buckets DDP builds in its constructor (used by iteration 0): with
// static_graph or !find_unused_parameters (the default) one bucket per dtype holding
// everything ([sys.maxsize]); otherwise limits [first cap, cap]. Buckets are computed in
// registration order and then reversed, so bucket 0 holds the last-registered parameters.
[[nodiscard]] BucketPlan construction_buckets(const Workload& w, const BucketOptions& o);

// The buckets after DDP's one rebuild (before iteration 1's forward): limits
// [first cap, cap] over the gradient-ready order, unsorted. DDP never rebuilds with
// find_unused_parameters (unless static_graph); then this returns the construction buckets.
[[nodiscard]] BucketPlan rebuilt_buckets(const Workload& w, const std::vector<std::size_t>& ready_order,
                                         const BucketOptions& o);

// Converts bucket_cap_mb (MiB, may be fractional) to bytes as int(mb * 1024 * 1024).
[[nodiscard]] Bytes bucket_cap_from_mb(double mb);
// The other way, for reports: the bucket_cap_mb with the fewest significant digits that
// bucket_cap_from_mb turns into `cap` (25 for 26,214,400 B, 0.1 for 104,857 B), so a
// value given as bucket_cap_mb prints as it was written.
[[nodiscard]] double bucket_cap_mb_of(Bytes cap);

}  // namespace collsim
