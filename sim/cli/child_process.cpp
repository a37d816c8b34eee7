#include "sim/cli/child_process.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

namespace collsim::cli {

ChildRun run_child(const std::vector<std::string>& argv) {
  ChildRun run;
#ifdef __EMSCRIPTEN__
  // In the browser (web/) there are no processes to start.
  (void)argv;
  run.spawn_error = ENOSYS;
  return run;
#else
  int pipefd[2];
  if (::pipe(pipefd) != 0) {
    run.spawn_error = errno;
    return run;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipefd[0]);
  posix_spawn_file_actions_addclose(&actions, pipefd[1]);
  std::vector<std::string> args = argv;
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  pid_t pid = 0;
  run.spawn_error = posix_spawnp(&pid, ptrs[0], &actions, nullptr, ptrs.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipefd[1]);
  if (run.spawn_error == 0) {
    std::array<char, 4096> buf{};
    ssize_t n = 0;
    while ((n = ::read(pipefd[0], buf.data(), buf.size())) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) run.output.append(buf.data(), static_cast<std::size_t>(n));
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  ::close(pipefd[0]);
  return run;
#endif
}

std::string python_command() {
  if (const char* env = std::getenv("COLLSIM_PYTHON"); env && *env) return env;
  if (std::filesystem::exists("/usr/bin/python3")) return "/usr/bin/python3";
  return "python3";
}

}  // namespace collsim::cli
