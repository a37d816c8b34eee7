// Where the shipped data lives: the topologies/, workloads/, plans/ and scripts/ that come
// with collsim. Found relative to the running binary, never through a compile-time path:
//   1. $COLLSIM_DATA_DIR, when set;
//   2. <bin>/../share/collsim (after `cmake --install`, bin/collsim next to share/collsim);
//   3. <bin>/share/collsim (a build tree: CMake links it to the source tree's folders).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace collsim {

// The first of the places above that exists, or nullopt.
[[nodiscard]] std::optional<std::filesystem::path> shipped_data_dir();

// A command-line value that names a file: returned unchanged when it is an existing file,
// contains '/' or ends in `extension`; otherwise the shipped `subdir`/NAME`extension` when
// that exists (so `--workload resnet50` and `--topology dgx-h100` work from any directory),
// else unchanged (the caller's open then reports the missing file).
[[nodiscard]] std::string resolve_shipped_file(const std::string& name_or_path, const std::string& subdir,
                                               const std::string& extension = ".json");

// A shipped script (scripts/NAME), or nullopt when no data folder holds it.
[[nodiscard]] std::optional<std::filesystem::path> shipped_script(const std::string& name);

}  // namespace collsim
