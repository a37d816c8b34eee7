#include "sim/core/data_dir.hpp"

#include <cstdlib>
#include <system_error>

namespace collsim {

namespace fs = std::filesystem;

std::optional<fs::path> shipped_data_dir() {
  std::error_code ec;
  if (const char* env = std::getenv("COLLSIM_DATA_DIR"); env && *env) {
    if (fs::is_directory(env, ec)) return fs::path(env);
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  const fs::path bin = exe.parent_path();
  for (const fs::path& candidate : {bin / ".." / "share" / "collsim", bin / "share" / "collsim"}) {
    if (fs::is_directory(candidate / "topologies", ec)) return candidate.lexically_normal();
  }
  return std::nullopt;
}

std::string resolve_shipped_file(const std::string& name_or_path, const std::string& subdir, const std::string& extension) {
  std::error_code ec;
  if (name_or_path.empty() || fs::exists(name_or_path, ec) || name_or_path.find('/') != std::string::npos ||
      name_or_path.ends_with(extension)) {
    return name_or_path;
  }
  const auto dir = shipped_data_dir();
  if (!dir) return name_or_path;
  const fs::path shipped = *dir / subdir / (name_or_path + extension);
  return fs::exists(shipped, ec) ? shipped.string() : name_or_path;
}

std::optional<fs::path> shipped_script(const std::string& name) {
  const auto dir = shipped_data_dir();
  std::error_code ec;
  if (!dir || !fs::exists(*dir / "scripts" / name, ec)) return std::nullopt;
  return *dir / "scripts" / name;
}

}  // namespace collsim
