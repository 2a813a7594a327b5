// Every failure the model raises, as a number a Z3 term can carry.
//
// An encoded operation fails with a Message and up to kMessageArgs integer
// arguments (terms too); the text is the message's format with the arguments
// in decimal. The formats are spelled here again, independently of
// lib/src/messages.hpp, so the differential (prove/tests) compares the
// encoding's failures with the model's exact texts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/outcome.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::prove {

enum class Message : int {
  TpSizesMustBePositive = 1,   // §1, §7, §8
  LocalRankOutOfRange,         // §1 (r, L)
  RemoteNotMultiple,           // §1 (R, L)
  LocalNotMultiple,            // §1 (L, R)
  LocalNotDivisible,           // §3 (L, R)
  RemoteNotDivisible,          // §3 (R, L)
  LocalSizeNotPositive,        // project (L)
  RemoteSizeNotPositive,       // project (R)
  TpSizeNotPositive,           // project (T)
  HeadsNotPositive,            // project (H)
  TpRankOutOfRange,            // §8, and heads() (t, T)
  HeadOutOfRange,              // project (h, H)
  HeadsNotShardable,           // project (H, T)
  GuardNotPositive,            // §5
  GuardNeedsReplicatedHeads,   // §5 (H, L, R)
  PrefillSizeNotPositive,      // project (P)
  DecodeSizeNotPositive,       // project (D)
  DecodeRankOutOfRange,        // project (d, D)
  PrefillRankOutOfRange,       // project (p, P)
  HeadsNotShardableOverPrefill,  // project (H, P)
  HeadsNotShardableOverDecode,   // project (H, D)
  WindowTooLong,               // project (r, size)
  PlanTooLong,                 // project (d, count)
  ProducerRankOutOfRange,      // §7 (p, P)
  ConsumerNotMultiple,         // §7 (D, P)
  ProducerNotMultiple,         // §7 (P, D)
  PortTpSizeNotPositive,       // §8
  DpRankNegative,              // §8 (dp)
  NumHostsNotPositive,         // project (n)
  HostRankOutOfRange,          // project (q, T)
  RanksNotSpreadOverHosts,     // project (T, n)
  DpSizeNotPositive,           // project (dp_size)
  BasePortNotPositive,         // project (base)
  PortsExceedRange,            // project (base, last)
  NixlRefusesUnreadReplicas,   // §11: an AssertionError with no message
};

inline constexpr std::size_t kMessageArgs = 3;

struct MessageInfo {
  Message id;
  ErrorKind kind;
  std::string_view format;  // "{0}".."{2}" stand for the arguments
};

// Every message, in enum order.
const std::vector<MessageInfo>& message_infos();

// The message with this number, or nullptr.
const MessageInfo* message_info(int id);

// "Kind: text" as `tpcheck eval` prints a failure.
std::string render_failure(const MessageInfo& info, const std::vector<BigInt>& args);

}  // namespace tpcheck::prove
