// Starting the shipped Python helpers (plot scripts) from a command: a child process with
// its own argument vector, no shell, its output captured.
#pragma once

#include <string>
#include <vector>

namespace collsim::cli {

// What a child process printed (stdout and stderr together) and how it ended.
struct ChildRun {
  int spawn_error = 0;  // errno from posix_spawnp (ENOENT: no such program); 0 when it ran
  int exit_code = -1;   // its exit status; -1 when a signal ended it
  std::string output;
};

// Runs argv[0] (looked up on PATH) with `argv` as its argument vector, no shell, and
// waits for it. In the browser build there are no processes: ENOSYS.
[[nodiscard]] ChildRun run_child(const std::vector<std::string>& argv);

// The Python that runs the plot scripts: $COLLSIM_PYTHON, else Debian's /usr/bin/python3
// (where apt's python3-matplotlib lives, whatever python3 comes first on PATH), else
// python3 on PATH.
[[nodiscard]] std::string python_command();

}  // namespace collsim::cli
