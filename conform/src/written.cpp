#include "tpcheck/conform/written.hpp"

#include "tpcheck/outcome.hpp"

namespace tpcheck::conform {

Expected expected_outcome(const std::string& notation) {
  for (const ErrorKind k : {ErrorKind::ValueError, ErrorKind::NotImplementedError, ErrorKind::AssertionError}) {
    const std::string prefix = std::string(kind_name(k)) + ": ";
    if (notation.compare(0, prefix.size(), prefix) == 0) {
      Expected e;
      e.form = Expected::Form::Raises;
      e.exception_class = kind_name(k);
      e.message = notation.substr(prefix.size());
      return e;
    }
  }
  return expected_value(notation);
}

Expected expected_value(std::string literal) {
  Expected e;
  e.literal = std::move(literal);
  return e;
}

Expected expected_refusal() {
  Expected e;
  e.form = Expected::Form::Refused;
  return e;
}

std::string python_string(const std::string& text) {
  // repr()'s choice of quotes: single, unless the text has one and no double.
  const bool double_quotes = text.find('\'') != std::string::npos && text.find('"') == std::string::npos;
  const char quote = double_quotes ? '"' : '\'';
  static const char* const kHex = "0123456789abcdef";
  std::string out(1, quote);
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;  // printable ASCII, and UTF-8 as it is
    }
  }
  return out + quote;
}

std::string python_int(const BigInt& v) { return decimal(v); }

std::string python_tuple(const std::vector<std::string>& items) {
  std::string out = "(";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + (items.size() == 1 ? ",)" : ")");
}

std::string python_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

const TestConventions& adapter_test_conventions() {
  static const TestConventions conventions;
  return conventions;
}

}  // namespace tpcheck::conform
