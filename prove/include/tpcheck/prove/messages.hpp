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
  AssertionWithoutText,        // §11 NIXL's refusal of unread replicas, §16.1 KDA's heads: a bare assert
  // §16.1-16.2: the recurrent state's operations
  Mamba2DimsNotPositive,       // project (H, PH, G, N)
  GdnDimsNotPositive,          // project (HK, DK, HV, DV)
  KdaDimsNotPositive,          // project (H, DH)
  Mamba1DimsNotPositive,       // project (I, N)
  HeadsNotMultipleOfGroups,    // §16.1 (H, G)
  ValueHeadsNotMultipleOfKeyHeads,  // §16.1 (HV, HK)
  TpDoesNotDivideMambaHeads,   // §16.1 MambaMixer2
  TpDoesNotDivideMambaGroups,  // §16.1 MambaMixer2
  GdnKeyHeadsNotSharded,       // project (HK, T)
  Mamba1NotDivisible,          // §16.1 vLLM's divide() (I, T)
  StatePlanTooLong,            // project (d, copies)
  StateServedTooLong,          // project (p, n)
  PrefillWindowLengthNotPositive,  // project (LP)
  DecodeWindowLengthNotPositive,   // project (LD)
  PrefillConvElementNotPositive,   // project (ECP)
  DecodeConvElementNotPositive,    // project (ECD)
  PrefillSsmElementNotPositive,    // project (ESP)
  DecodeSsmElementNotPositive,     // project (ESD)
  WindowLengthsDiffer,         // project (LP, LD)
  ConvElementSizesDiffer,      // project (ECP, ECD)
  SsmElementSizesDiffer,       // project (ESP, ESD)
};

// The most values a text names: the four dims of a family (§16.1).
inline constexpr std::size_t kMessageArgs = 4;

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
