#include "sim/train/workload_path.hpp"

#include <filesystem>

namespace collsim {

std::string resolve_workload_path(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  if (fs::exists(name_or_path) || name_or_path.find('/') != std::string::npos ||
      name_or_path.ends_with(".json")) {
    return name_or_path;
  }
  const fs::path shipped = fs::path(COLLSIM_SOURCE_DIR) / "workloads" / (name_or_path + ".json");
  return fs::exists(shipped) ? shipped.string() : name_or_path;
}

}  // namespace collsim
