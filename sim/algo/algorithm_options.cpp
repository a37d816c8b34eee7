#include "sim/algo/algorithm_options.hpp"

#include <algorithm>

namespace collsim {

int slice_count(Bytes bytes, const AlgorithmOptions& opt) {
  if (opt.slice_bytes.count <= 0 || bytes.count <= opt.slice_bytes.count) return 1;
  const std::int64_t n = (bytes.count + opt.slice_bytes.count - 1) / opt.slice_bytes.count;
  return static_cast<int>(std::clamp<std::int64_t>(n, 1, std::max(1, opt.max_slices)));
}

}  // namespace collsim
