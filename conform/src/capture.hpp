// Readers of what a driver of the child answers for one configuration
// (conform/child/25_drivers.py): the items of a driver of kind `each`, the
// log of a driver of kind `transfers` (conform/engines/sglang/child/: lines
// pairs, send, B, L, X, T for the KV transfers; G, I for NIXL's
// get_xfer_descs and initialize_xfer; W for a watched method's call; R, !), and
// the canonical integer forms in both. They take any text: what they cannot
// read is a malformed item or line, which the relations report as such,
// never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpcheck::conform::capture {

// The pieces of `text` between each `separator` (one more than there are separators).
std::vector<std::string_view> split(std::string_view text, char separator);

// A value handed to a stand-in: an unsigned 64-bit integer, or why it is not one.
struct Value {
  enum class Form { U64, Negative, TooLarge, NotInteger };
  Form form = Form::NotInteger;
  std::uint64_t u64 = 0;   // U64; Negative: the magnitude when it fits
  std::string text;        // as written ("-5", "?float:1.8e+19"); empty for U64, the common case
  bool is_u64() const { return form == Form::U64; }
  std::string shown() const { return is_u64() ? std::to_string(u64) : text; }
  // A float that cannot hold every integer of its magnitude (>= 2^53).
  bool inexact_float() const;
};
Value read_value(std::string_view word);
// "1,2,3" or "-" (empty).
std::vector<Value> read_values(std::string_view text);

// An integer or a list or tuple of them, as ints_text writes it: 3, [0,1], (0,[1,2]).
struct IntTree {
  bool is_list = false;            // [..] or (..)
  std::optional<std::int64_t> value;  // a leaf that is an integer fitting int64
  std::vector<IntTree> items;
  std::string text;                // as written
};
std::optional<IntTree> read_int_tree(std::string_view text);
// The leaf values of a flat list or tuple of integers.
std::optional<std::vector<std::int64_t>> flat_ints(const IntTree& tree);

// One item of a driver of kind `each`: its coordinates and what the calls gave.
struct Item {
  std::vector<std::int64_t> coords;
  bool raised = false;
  std::string exception_class;  // raised
  std::string message;          // raised
  std::string value;            // not raised: the rendering
};
// Items of every well-formed line; `malformed` counts the others.
std::vector<Item> read_items(std::string_view text, std::size_t& malformed);

// The log of a driver of kind `transfers`.
struct Pairing {
  std::int64_t d = 0;
  bool raised = false;
  std::string exception;  // "Class: message"
  std::vector<std::int64_t> senders;
};
struct DescriptorList {
  std::uint64_t handle = 0;
  std::string agent;  // empty: the local (source) list
  std::vector<std::vector<Value>> rows;  // address, length, device id
  bool descs_only = false;  // get_xfer_descs: rows to move, not a list registered for selection
};
struct PreparedTransfer {
  std::uint64_t handle = 0;
  Value src_list, dst_list;
  std::vector<Value> src_indices, dst_indices;
  bool whole_lists = false;  // initialize_xfer: every row, source row k to destination row k
  bool posted = false;
};
struct Batch {
  std::vector<Value> src, dst, length;
};
struct Send {
  std::int64_t p = 0, d = 0;
  std::vector<Batch> batches;                 // Mooncake
  std::vector<DescriptorList> lists;          // NIXL: the lists prepared during this send
  std::vector<PreparedTransfer> transfers;    // NIXL
  std::vector<std::string> watched;           // the watched methods it called (the whole-slot path), in order
  bool returned = false;
  std::optional<Value> result;                // returned: the method's value, if not None
  std::string exception;                      // not returned: "Class: message"
};
struct TransferLog {
  std::vector<Pairing> pairings;
  std::vector<Send> sends;
  std::size_t malformed = 0;  // lines that could not be read
};
TransferLog read_transfer_log(std::string_view text);

// A line of a driver's log (the hybrid state's drivers write "TAG words..."):
// its words up to one that starts with '!', and after it what was raised,
// written "!Class|escaped message".
struct LogLine {
  std::vector<std::string_view> words;  // into the text read
  bool raised = false;
  std::string exception_class;
  std::string message;
  std::string exception() const { return exception_class + ": " + message; }
  // The words from `first` on, joined by spaces.
  std::string joined(std::size_t first) const;
};
// Every line of a log that has a word, in order.
std::vector<LogLine> read_log_lines(std::string_view text);

}  // namespace tpcheck::conform::capture
