#include "sim/core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& option, const std::string& what, int err) {
  throw ConfigError(option, "", path.string(), fmt::format("a path collsim can write ({}: {})", what, std::strerror(err)));
}

fs::path folder_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }

// mkstemp/mkdtemp template "<folder>/.<name>.<tag>XXXXXX" as a writable buffer.
std::vector<char> temp_template(const fs::path& path, const char* tag) {
  const std::string t = (folder_of(path) / fmt::format(".{}.{}XXXXXX", path.filename().string(), tag)).string();
  return std::vector<char>(t.c_str(), t.c_str() + t.size() + 1);
}

mode_t current_umask() {
  const mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view content, const std::string& option) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw ConfigError(option, "", path.string(), "a file path (this is a directory)");
  std::vector<char> name = temp_template(path, "tmp");
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail(path, option, "cannot create a file in its folder", errno);
  const fs::path temp(name.data());
  auto give_up = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    fail(path, option, what, err);
  };
  // mkstemp makes 0600; results are ordinary files (0666 less the umask), like ofstream's.
  if (::fchmod(fd, 0666 & ~current_umask()) != 0) give_up("cannot set its permissions");
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) give_up("writing failed");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) give_up("flushing to disk failed");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail(path, option, "closing failed", err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail(path, option, "renaming into place failed", err);
  }
}

StagedFolder::StagedFolder(fs::path target, std::string option) : target_(std::move(target)), option_(std::move(option)) {
  std::error_code ec;
  if (fs::exists(target_, ec) && !fs::is_directory(target_, ec)) {
    throw ConfigError(option_, "", target_.string(), "a folder (a file of that name exists)");
  }
  fs::create_directories(folder_of(target_), ec);
  std::vector<char> name = temp_template(target_, "new");
  if (::mkdtemp(name.data()) == nullptr) fail(target_, option_, "cannot create a folder beside it", errno);
  staging_ = fs::path(name.data());
  ::chmod(staging_.c_str(), 0777 & ~current_umask());
}

StagedFolder::~StagedFolder() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

void StagedFolder::commit() {
  std::error_code ec;
  fs::path old;
  if (fs::exists(target_, ec)) {
    std::vector<char> name = temp_template(target_, "old");
    if (::mkdtemp(name.data()) == nullptr) fail(target_, option_, "cannot create a folder beside it", errno);
    old = fs::path(name.data());
    // rename(2) replaces only an empty folder: move the old report aside first.
    if (::rename(target_.c_str(), old.c_str()) != 0) fail(target_, option_, "cannot move the previous folder aside", errno);
  }
  if (::rename(staging_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    if (!old.empty()) ::rename(old.c_str(), target_.c_str());
    fail(target_, option_, "cannot move the new folder into place", err);
  }
  committed_ = true;
  if (!old.empty()) fs::remove_all(old, ec);
}

}  // namespace collsim
