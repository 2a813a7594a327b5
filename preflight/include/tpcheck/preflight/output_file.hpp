// Writing an output file (an --svg picture) so that a failure leaves what was
// there before: the text goes to a temporary file beside it, renamed over it
// once complete.
#pragma once

#include <optional>
#include <string>

namespace tpcheck::preflight {

// Nothing on success, else a one-line reason ("cannot write 'x/y.svg': No such
// file or directory").
std::optional<std::string> write_file(const std::string& path, const std::string& content);

}  // namespace tpcheck::preflight
