// Results that are never half-written: a file goes to a temporary file in the same folder,
// is flushed to disk and checked, then renamed over the target, so a full disk, a killed
// process or a write error leaves the previous file intact. Failures are ConfigErrors
// (exit 2) that name the path and the system's reason.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace collsim {

// Writes `content` to `path` atomically. `option` names what gave the path (a flag such
// as "--trace", or a file) for the error message.
void write_file_atomically(const std::filesystem::path& path, std::string_view content, const std::string& option);

// Flushes standard output and says whether all that was written to it arrived: the system's
// reason ("No space left on device") after a failed write, else nullopt. Both iostreams and
// stdio write through stdout's one buffer, so one check at the end of a command sees a
// failure of either. Without it a full disk under `collsim ... > file` exits 0.
[[nodiscard]] std::optional<std::string> stdout_write_error();

// A file of records appended one at a time (collsim-exec --output keeps the records of
// earlier runs and those of the sizes measured so far). A record that cannot be written
// whole is cut off again, so the file never ends in half a record. Failures are
// ConfigErrors naming the path.
class RecordFile {
 public:
  RecordFile(std::filesystem::path path, std::string option);  // opens or creates it
  ~RecordFile();
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;

  void append(std::string_view record);
  void close();  // also called by the destructor; a forked child closes its copy

 private:
  std::filesystem::path path_;
  std::string option_;
  int fd_ = -1;
};

// A folder filled by the caller and then swapped in for `target` in one step: the caller
// writes into path(); commit() replaces `target` (an older folder of that name is removed
// afterwards). Without commit() the temporary folder is removed and `target` is untouched.
class StagedFolder {
 public:
  StagedFolder(std::filesystem::path target, std::string option);
  ~StagedFolder();
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return staging_; }
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  std::string option_;
  bool committed_ = false;
};

}  // namespace collsim
