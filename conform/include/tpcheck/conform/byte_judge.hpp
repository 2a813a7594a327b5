// Judging the bytes transfers move (SPEC §14B.4, §14B.5), on byte ranges:
// each transfer is cut where a region, a slot or a run of its layout
// (memory_layout.hpp) ends on either side, and each piece is judged whole,
// so the cost grows with transfers and runs, not with bytes. A decode rank's
// correctly written bytes are kept as intervals, per region, and compared
// with its request's pages once every send is in.
//
// The judge knows nothing of the engine that made the transfers: SGLang's
// Mooncake and NIXL captures (conform/engines/sglang/relations_transfers.cpp)
// feed it (p, d, transfer) triples, and any other engine's capture can, on
// any PageLayout.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/memory_layout.hpp"

namespace tpcheck::conform::bytes {

// Bytes [src, src + length) of the sender, written to [dst, dst + length) of the receiver.
struct Transfer {
  std::uint64_t src = 0;
  std::uint64_t dst = 0;
  std::uint64_t length = 0;
};

// Text for findings: "0x4000000000040", "[1, 7, 8]", "8 bytes"; the run at a
// region offset; "K layer 0 page 5 token 0 head 1 byte 0"; where an address
// is ("p0 K layer 0 page 5 ..." or "0x... (in no registered region)"); and a
// span, with how far past its region's end it runs.
std::string hex(std::uint64_t v);
std::string pages_text(const std::vector<std::int64_t>& pages);
std::string bytes_text(std::uint64_t n);
Run run_in_region(const RankMemory& rank, std::int64_t region, std::uint64_t offset);
std::string describe(const RankMemory& rank, const ByteCoord& c);
std::string place_text(const MemoryMap& memory, std::uint64_t address);
std::string span_text(const MemoryMap& memory, std::uint64_t address, std::uint64_t length);

class ByteJudge {
 public:
  // Findings go to `findings` with coordinates (p, d).
  ByteJudge(const MemoryMap& memory, FindingSet& findings);

  // Every byte of a transfer prefill rank p made to decode rank d: correct,
  // or the first rule of SPEC §14B.5 it breaks.
  void transfer(std::int64_t p, std::int64_t d, const Transfer& t);

  // After every send: each decode rank's request, in every region, written
  // correctly at least once (else unwritten), and bytes written correctly
  // more than once (redundant, informational).
  void finish();

  std::uint64_t transfers() const { return transfers_; }
  std::uint64_t decoded_bytes() const { return decoded_; }

  // Whether [address, address + length) lies inside one region of `rank`.
  bool inside(const RankMemory& rank, std::uint64_t address, std::uint64_t length) const;

 private:
  void piece(std::int64_t p, std::int64_t d, const MemoryMap::Place& src, const MemoryMap::Place& dst,
             std::uint64_t length);
  void mismatch(std::int64_t p, std::int64_t d, const RankMemory& sm, const RankMemory& dm, const Run& rs,
                const Run& rt, std::int64_t dst_region, std::uint64_t dst_offset, std::uint64_t length);
  void outside(std::int64_t p, std::int64_t d, bool src_in, bool dst_in, std::uint64_t src, std::uint64_t dst,
               std::uint64_t length);
  void written(std::int64_t d, std::int64_t region, std::uint64_t offset, std::uint64_t length);

  const MemoryMap& memory_;
  FindingSet& findings_;
  std::uint64_t transfers_ = 0;
  std::uint64_t decoded_ = 0;
  // Per (decode rank, region): region offsets where the count of correct
  // writes changes, and by how much.
  std::map<std::pair<std::int64_t, std::int64_t>, std::map<std::uint64_t, std::int64_t>> written_;
};

}  // namespace tpcheck::conform::bytes
