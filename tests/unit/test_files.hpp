// Input files for unit tests. ctest runs every test case as its own process, two at a time,
// so each process writes into its own folder under the system's temporary directory: test
// cases never read a file another one is writing.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace collsim::test {

// Writes `text` to `name` in this process's folder and returns the file's path.
inline std::string write_test_file(const std::string& name, const std::string& text) {
  const auto folder = std::filesystem::temp_directory_path() / ("collsim_unit_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const auto path = folder / name;
  std::ofstream(path) << text;
  return path.string();
}

// The whole text of a file (empty when it cannot be read).
inline std::string read_test_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The path of a topology file the repository ships (topologies/NAME).
inline std::string shipped_topology(const std::string& name) { return std::string(COLLSIM_SOURCE_DIR) + "/topologies/" + name; }
// The path of a development-set topology (tests/data/nccl-tests/dev/topologies/NAME.json).
inline std::string dev_nccl_topology(const std::string& name) {
  return std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nccl-tests/dev/topologies/" + name + ".json";
}
// The path of a workload the repository ships (workloads/NAME.json).
inline std::string shipped_workload(const std::string& name) {
  return std::string(COLLSIM_SOURCE_DIR) + "/workloads/" + name + ".json";
}

}  // namespace collsim::test
