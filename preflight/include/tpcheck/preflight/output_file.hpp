// Writing an output file (an --svg picture, a SARIF or Markdown report) so
// that a failure leaves what was there before: the text goes to a temporary
// file beside it, renamed over it once complete. A path that names a device
// or a pipe (/dev/stdout) is written in place: renaming over it would replace
// the device.
#pragma once

#include <optional>
#include <string>

namespace tpcheck::preflight {

// Nothing on success, else a one-line reason ("cannot write 'x/y.svg': No such
// file or directory").
std::optional<std::string> write_file(const std::string& path, const std::string& content);

// Whether write_file could write `path` now (its directory exists and is
// writable, the path is not a directory), checked before a long run rather
// than found out after it: nothing, or the reason in write_file's words.
std::optional<std::string> check_writable(const std::string& path);

}  // namespace tpcheck::preflight
