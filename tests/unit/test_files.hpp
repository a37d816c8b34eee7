// Input files for unit tests. ctest runs every test case as its own process, two at a time,
// so each process writes into its own folder under the system's temporary directory: test
// cases never read a file another one is writing.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
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

}  // namespace collsim::test
