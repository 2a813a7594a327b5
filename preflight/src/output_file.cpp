// Output files (output_file.hpp).
#include "tpcheck/preflight/output_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace tpcheck::preflight {

namespace {

std::string failure(const std::string& path, int error) {
  return "cannot write '" + path + "': " + std::strerror(error);
}

// A path that exists and is neither a regular file nor a directory.
bool is_special(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  return !ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
         !std::filesystem::is_directory(status);
}

// Writes `content` to the opened `f`, closes it: 0 or the errno of the failure.
int write_and_close(std::FILE* f, const std::string& content) {
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const int write_error = errno;
  if (std::fclose(f) != 0 || !written) return written ? errno : write_error;
  return 0;
}

}  // namespace

std::optional<std::string> write_file(const std::string& path, const std::string& content) {
  // Said plainly: renaming onto "dir/" would report ENOTDIR.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return failure(path, EISDIR);
  if (is_special(path)) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return failure(path, errno);
    if (const int error = write_and_close(f, content)) return failure(path, error);
    return std::nullopt;
  }
  // Beside the target (same file system, so the rename is atomic), unique per process.
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(temporary.c_str(), "wb");
  if (f == nullptr) return failure(path, errno);
  if (const int error = write_and_close(f, content)) {
    std::remove(temporary.c_str());
    return failure(path, error);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    return failure(path, error);
  }
  return std::nullopt;
}

std::optional<std::string> check_writable(const std::string& path) {
  std::error_code ec;
  if (path.empty()) return failure(path, ENOENT);
  if (std::filesystem::is_directory(path, ec)) return failure(path, EISDIR);
  if (is_special(path)) return ::access(path.c_str(), W_OK) == 0 ? std::nullopt : std::optional(failure(path, errno));
  std::filesystem::path directory = std::filesystem::path(path).parent_path();
  if (directory.empty()) directory = ".";
  if (!std::filesystem::exists(directory, ec)) return failure(path, ENOENT);
  if (!std::filesystem::is_directory(directory, ec)) return failure(path, ENOTDIR);
  // The temporary file is created there: the directory must be writable.
  if (::access(directory.c_str(), W_OK | X_OK) != 0) return failure(path, errno);
  return std::nullopt;
}

}  // namespace tpcheck::preflight
