// Results that are never half-written: a file goes to a temporary file in the same folder,
// is flushed to disk and checked, then renamed over the target, so a full disk, a killed
// process or a write error leaves the previous file intact. Failures are ConfigErrors
// (exit 2) that name the path and the system's reason.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace collsim {

// Writes `content` to `path` atomically. `option` names what gave the path (a flag such
// as "--trace", or a file) for the error message.
void write_file_atomically(const std::filesystem::path& path, std::string_view content, const std::string& option);

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
