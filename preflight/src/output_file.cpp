// Output files (output_file.hpp).
#include "tpcheck/preflight/output_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace tpcheck::preflight {

std::optional<std::string> write_file(const std::string& path, const std::string& content) {
  const auto failed = [&](int error) { return "cannot write '" + path + "': " + std::strerror(error); };
  // Said plainly: renaming onto "dir/" would report ENOTDIR.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return failed(EISDIR);
  // Beside the target (same file system, so the rename is atomic), unique per process.
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(temporary.c_str(), "wb");
  if (f == nullptr) return failed(errno);
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const int write_error = errno;
  if (std::fclose(f) != 0 || !written) {
    const int error = written ? errno : write_error;
    std::remove(temporary.c_str());
    return failed(error);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    return failed(error);
  }
  return std::nullopt;
}

}  // namespace tpcheck::preflight
