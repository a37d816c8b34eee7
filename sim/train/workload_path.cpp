#include "sim/train/workload_path.hpp"

#include "sim/core/data_dir.hpp"

namespace collsim {

std::string resolve_workload_path(const std::string& name_or_path) {
  return resolve_shipped_file(name_or_path, "workloads");
}

}  // namespace collsim
