#include "sim/core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
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

// Writes all of `content`; 0 or the errno of the failure (ENOSPC for a write of nothing).
int write_all(int fd, std::string_view content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    done += static_cast<std::size_t>(n);
  }
  return 0;
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
  // A device or pipe (/dev/stdout, /dev/null, a FIFO) is written in place: renaming a file
  // over it would replace the device itself.
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail(path, option, "cannot open it", errno);
    const int err = write_all(fd, content);
    ::close(fd);
    if (err != 0) fail(path, option, "writing failed", err);
    return;
  }
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
  if (const int err = write_all(fd, content); err != 0) {
    errno = err;
    give_up("writing failed");
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

RecordFile::RecordFile(fs::path path, std::string option) : path_(std::move(path)), option_(std::move(option)) {
  std::error_code ec;
  if (fs::is_directory(path_, ec)) throw ConfigError(option_, "", path_.string(), "a file path (this is a directory)");
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) fail(path_, option_, "cannot open it for appending", errno);
}

RecordFile::~RecordFile() { close(); }

void RecordFile::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void RecordFile::append(std::string_view record) {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail(path_, option_, "cannot read its size", errno);
  if (const int err = write_all(fd_, record); err != 0) {
    // Back to the last whole record; if even that fails the message still names the file.
    (void)::ftruncate(fd_, st.st_size);
    fail(path_, option_, "writing a record failed", err);
  }
}

std::optional<std::string> stdout_write_error() {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return std::nullopt;
  return err != 0 ? std::string(std::strerror(err)) : std::string("write failed");
}

}  // namespace collsim
