#include "canonical.hpp"

#include <charconv>

namespace tpcheck::conform {
namespace {

// A cursor over the text that accepts exactly the expected tokens.
class Reader {
 public:
  explicit Reader(std::string_view text) : s_(text) {}

  bool literal(std::string_view token) {
    if (s_.substr(i_, token.size()) != token) return false;
    i_ += token.size();
    return true;
  }

  std::optional<std::int64_t> integer() {
    std::int64_t v = 0;
    const char* begin = s_.data() + i_;
    const auto [end, error] = std::from_chars(begin, s_.data() + s_.size(), v);
    if (error != std::errc{} || end == begin) return std::nullopt;
    i_ += static_cast<std::size_t>(end - begin);
    return v;
  }

  // "[a, b, ...]"
  std::optional<std::vector<std::int64_t>> int_list() {
    std::vector<std::int64_t> out;
    if (!literal("[")) return std::nullopt;
    if (literal("]")) return out;
    do {
      const auto v = integer();
      if (!v) return std::nullopt;
      out.push_back(*v);
    } while (literal(", "));
    if (!literal("]")) return std::nullopt;
    return out;
  }

  bool at_end() const { return i_ == s_.size(); }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

std::optional<std::int64_t> read_int(std::string_view text) {
  Reader r(text);
  const auto v = r.integer();
  return v && r.at_end() ? v : std::nullopt;
}

std::optional<std::vector<std::int64_t>> read_int_list(std::string_view text) {
  Reader r(text);
  auto v = r.int_list();
  return v && r.at_end() ? v : std::nullopt;
}

std::optional<NixlMappingFields> read_nixl_mapping(std::string_view text) {
  Reader r(text);
  NixlMappingFields f;
  if (!r.literal("TPMapping(sources=")) return std::nullopt;
  auto sources = r.int_list();
  if (!sources || !r.literal(", rank_offset_factor=")) return std::nullopt;
  f.sources = std::move(*sources);
  const auto offset = r.integer();
  if (!offset || !r.literal(", rank_to_attention_slot={")) return std::nullopt;
  f.rank_offset_factor = *offset;
  if (!r.literal("}")) {
    do {
      const auto key = r.integer();
      if (!key || !r.literal(": ")) return std::nullopt;
      const auto value = r.integer();
      if (!value || !f.slots.emplace(*key, *value).second) return std::nullopt;
    } while (r.literal(", "));
    if (!r.literal("}")) return std::nullopt;
  }
  if (r.literal(", local_consumers=")) {
    f.local_consumers = r.integer();
    if (!f.local_consumers) return std::nullopt;
  }
  if (!r.literal(")") || !r.at_end()) return std::nullopt;
  return f;
}

std::optional<SenderCopy> read_sender_copy(std::string_view text) {
  Reader r(text);
  SenderCopy c;
  if (!r.literal("(")) return std::nullopt;
  if (r.literal("True")) {
    c.transfer = true;
  } else if (!r.literal("False")) {
    return std::nullopt;
  }
  for (std::int64_t* field : {&c.src, &c.dst, &c.length}) {
    if (!r.literal(", ")) return std::nullopt;
    const auto v = r.integer();
    if (!v) return std::nullopt;
    *field = *v;
  }
  if (!r.literal(")") || !r.at_end()) return std::nullopt;
  return c;
}

}  // namespace tpcheck::conform
