// Resolves --workload: a path to a workload JSON file, or the name of a shipped workload
// (resnet50, bert-base, bert-large, gpt2-medium) found in the shipped workloads/ (see
// sim/core/data_dir.hpp).
#pragma once

#include <string>

namespace collsim {

[[nodiscard]] std::string resolve_workload_path(const std::string& name_or_path);

}  // namespace collsim
