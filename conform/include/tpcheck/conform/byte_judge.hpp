// Judging the bytes transfers move, on byte ranges: each transfer is cut
// where a region, a slot or a run of its layout ends on either side, and each
// piece is judged whole, so the cost grows with transfers and runs, not with
// bytes. A decode rank's correctly written bytes are kept as intervals, per
// region, and compared with what it must receive once every send is in.
//
// RegionJudge is what every memory shares; ByteJudge judges a KV cache of
// pages (SPEC §14B.4, §14B.5), StateJudge (state_judge.hpp) a hybrid model's
// recurrent state (SPEC §16.7). The judges know nothing of the engine that
// made the transfers: SGLang's Mooncake and NIXL captures
// (conform/engines/sglang/) feed them (p, d, transfer) triples, and any
// other engine's capture can.
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
// region offset of a KV memory; "K layer 0 page 5 token 0 head 1 byte 0";
// where an address of a KV memory is ("p0 K layer 0 page 5 ..." or "0x...
// (in no registered region)"); and a span, with how far past its region's
// end it runs.
std::string hex(std::uint64_t v);
std::string pages_text(const std::vector<std::int64_t>& pages);
std::string bytes_text(std::uint64_t n);
Run run_in_region(const RankMemory& rank, std::int64_t region, std::uint64_t offset);
std::string describe(const RankMemory& rank, const ByteCoord& c);
std::string place_text(const MemoryMap& memory, std::uint64_t address);

// What every byte judge shares: a transfer cut where a region ends on either
// side (and outside every region, where the next one begins), the bytes
// outside the pair's registered memory reported by side, each piece inside
// handed to the judge of what the memory holds (piece()), the bytes each
// decode rank got correctly kept as intervals per region, and, after every
// send, each decode rank's required bytes written correctly at least once
// (else unwritten) and more than once (redundant, informational where the
// profile says so). Every kind it adds starts with prefix() ("nondiv:" for a
// sizing the model refuses).
class RegionJudge {
 public:
  RegionJudge(const MemoryMap& memory, FindingSet& findings, std::string prefix = "");
  virtual ~RegionJudge() = default;
  RegionJudge(const RegionJudge&) = delete;
  RegionJudge& operator=(const RegionJudge&) = delete;

  // Every byte of a transfer prefill rank p made to decode rank d: correct,
  // or the first rule it breaks.
  void transfer(std::int64_t p, std::int64_t d, const Transfer& t);

  // After every send: unwritten and redundant, per decode rank.
  void finish();

  const MemoryMap& memory() const { return memory_; }
  std::uint64_t transfers() const { return transfers_; }
  std::uint64_t decoded_bytes() const { return decoded_; }
  const std::string& prefix() const { return prefix_; }

  // Whether [address, address + length) lies inside one region of `rank`.
  bool inside(const RankMemory& rank, std::uint64_t address, std::uint64_t length) const;
  // Where an address is ("p0 " and what the byte there holds), or its value
  // and "in no registered region"; a span adds its length and how far past
  // its region's end it runs.
  std::string place_text(std::uint64_t address) const;
  std::string span_text(std::uint64_t address, std::uint64_t length) const;

 protected:
  // Judges bytes from `src` to `dst` (inside the sender's and the receiver's
  // regions, `length` of them before either region ends) as far as it can
  // judge them at once; returns how many it judged (at least 1).
  virtual std::uint64_t piece(std::int64_t p, std::int64_t d, const MemoryMap::Place& src,
                              const MemoryMap::Place& dst, std::uint64_t length) = 0;
  // What the byte at `offset` of region `region` of `rank` holds, in words.
  virtual std::string describe_byte(const RankMemory& rank, std::int64_t region, std::uint64_t offset) const = 0;
  // The stretches [first, end) of `region` of decode rank `rank` that must be written.
  virtual void required(const RankMemory& rank, std::int64_t region,
                        std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) const = 0;
  // unwritten's expectation: "every byte of d1's request ... (96 bytes) written from a sender that holds it".
  virtual std::string required_text(const RankMemory& rank, std::uint64_t bytes) const = 0;
  // How many of the memory's units `bytes` bytes of `region` are, and that
  // count in words ("96 bytes"): a memory of units counts channels and heads.
  virtual std::uint64_t count(std::int64_t /*region*/, std::uint64_t bytes) const { return bytes; }
  virtual std::string count_text(std::uint64_t n) const { return bytes_text(n); }

  // Bytes outside the pair's registered memory: src_outside_region,
  // dst_outside_region (both when neither side is inside).
  virtual void outside(std::int64_t p, std::int64_t d, bool src_in, bool dst_in, std::uint64_t src, std::uint64_t dst,
                       std::uint64_t length);
  // Bytes [offset, offset + length) of d's `region` written correctly once more.
  void written(std::int64_t d, std::int64_t region, std::uint64_t offset, std::uint64_t length);
  // Adds (prefix() + kind, p, d) unless it is known; the texts are made only then.
  template <class Expected, class Actual>
  void add(const std::string& kind, FindingSet::Rank p, FindingSet::Rank d, const Expected& expected,
           const Actual& actual) {
    const std::string& id = prefix_.empty() ? kind : (scratch_ = prefix_ + kind);
    if (!findings_.has(id, p, d)) findings_.add(id, p, d, expected(), actual());
  }

  const MemoryMap& memory_;
  FindingSet& findings_;
  std::uint64_t decoded_ = 0;

 private:
  std::string prefix_;
  std::string scratch_;
  std::uint64_t transfers_ = 0;
  // Per (decode rank, region): region offsets where the count of correct
  // writes changes, and by how much.
  std::map<std::pair<std::int64_t, std::int64_t>, std::map<std::uint64_t, std::int64_t>> written_;
};

// SPEC §14B.4 and §14B.5 on a KV cache of pages (PageLayout): each piece cut
// where a run of its layout ends on either side; a piece whose pages match
// but whose (token, head, byte) differ is cut where a head ends.
class ByteJudge : public RegionJudge {
 public:
  ByteJudge(const MemoryMap& memory, FindingSet& findings) : RegionJudge(memory, findings) {}

 protected:
  std::uint64_t piece(std::int64_t p, std::int64_t d, const MemoryMap::Place& src, const MemoryMap::Place& dst,
                      std::uint64_t length) override;
  std::string describe_byte(const RankMemory& rank, std::int64_t region, std::uint64_t offset) const override;
  void required(const RankMemory& rank, std::int64_t region,
                std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) const override;
  std::string required_text(const RankMemory& rank, std::uint64_t bytes) const override;

 private:
  void mismatch(std::int64_t p, std::int64_t d, const RankMemory& sm, const RankMemory& dm, const Run& rs,
                const Run& rt, std::int64_t dst_region, std::uint64_t dst_offset, std::uint64_t length);
};

}  // namespace tpcheck::conform::bytes
