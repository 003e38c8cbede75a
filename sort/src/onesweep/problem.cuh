// The Onesweep sort's shapes and the blocks it keeps in device memory: the problem (what is
// sorted), the buffers a pass reads and writes, the control block (the plan, the counters of
// the passes and the sort's report), and a key's digit of a pass.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace rsw::sort::detail::onesweep {

inline constexpr int kRadixBits = 8;
inline constexpr int kBins = 1 << kRadixBits;
inline constexpr int kMaxPasses = 32 / kRadixBits;
inline constexpr int kWarpThreads = 32;

/// The sort's buffers and shape, in device memory, written before a sort when they change
/// (count and num_tiles by store_counted_problem when the count is in device memory).
struct Problem {
  std::uint32_t* keys;    // the caller's keys; the sorted keys end here
  std::uint32_t* values;  // the caller's values, or nullptr
  // The sorter's alternate buffer of n keys, or for a key-value sort 2n words: n records
  // {key, value}, or n keys then n values.
  std::uint32_t* alternate;
  std::uint32_t count;
  std::uint32_t num_tiles;   // tiles of one pass
  std::uint32_t order_mask;  // the bits that take part in the order, after >> begin_bit
  int begin_bit;
  int end_bit;
  int num_passes;
  int descending;
  int records;         // key-value: 1 when the passes move records, 0 arrays (PassBuffers)
  int caller_records;  // records: 1 when the caller's buffers are 8-byte aligned (Records)
};

inline constexpr std::uint32_t kTableTiles = 1024;    // N_table: 1024 x 256 x 8 B = 2 MiB
inline constexpr std::uint32_t kLookbackLimit = 128;  // L: a tile reads at most L predecessors
inline constexpr int kTailBits = 5;  // the tail advances in groups of 2^kTailBits tiles
inline constexpr std::uint32_t kTailGroupTiles = 1u << kTailBits;
inline constexpr std::uint32_t kTailGroups = kTableTiles / kTailGroupTiles;  // counters' ring

// Where a pass reads and writes. Key-value passes of large sorts (Problem::records, chosen by
// the host from 20 Mi keys) move records {key, value} of 8 bytes, not a key array and a value
// array: a scatter then writes 256 runs a tile, not 512, each of whole records. (Smaller sorts
// move arrays: from the caller's to the alternate's first n keys and last n values and back.)
// With records, pass k (of the passes that run) reads what pass k - 1 wrote: pass 0
// the caller's buffers; then the alternate buffer (k odd), as records, and the caller's buffers
// (k even), which hold records between passes when both are 8-byte aligned and the count is
// even (n records fill their 2n words: the first n / 2 in the key buffer, the rest in the
// value buffer). The last pass writes the caller's buffers as they are, or (after an odd
// number of passes) the copy back does. A keys-only pass reads and writes keys.
//
// Why records: scattered writes cost a key-value pass dearly, and of the layouts tried (two
// arrays, 32 keys then their 32 values, records) records scatter fastest. Reading
// records costs some of it back: a key is loaded every 8 bytes, and its value copied from the
// same record as it is ranked. (Loading records 8 bytes at a time was slower, with the values
// staged in shared memory in the tile's order and gathered through a 16-bit slot a key at the
// scatter, staged apart, or held in registers until ranked.) Records also stay in the
// caller's buffers where they allow: that pays only for large sorts.

/// n records {key, value} of two words each: record i at low + 2 i below `split`, and at
/// high + 2 (i - split) from it.
struct Records {
  std::uint32_t* low;
  std::uint32_t* high;
  std::uint32_t split;

  __device__ __forceinline__ std::uint32_t* at(std::uint32_t i) const {
    return i < split ? low + 2 * std::size_t{i} : high + 2 * (std::size_t{i} - split);
  }
  /// Whether records [begin, end) are not all on one side of the split.
  __device__ __forceinline__ bool straddles(std::uint32_t begin, std::uint32_t end) const {
    return begin < split && split < end;
  }
};

/// What one key-value pass reads and writes: keys and values as arrays, or records. (A
/// keys-only pass reads the caller's keys or the alternate's, PassControl::from_alternate, and
/// writes the other.)
struct PassBuffers {
  std::uint32_t source_records;      // 1: source, else source_keys and source_values
  std::uint32_t target_records;      // 1: target, else target_keys and target_values
  const std::uint32_t* source_keys;  // arrays (source_records false)
  const std::uint32_t* source_values;
  Records source;  // records
  std::uint32_t* target_keys;
  std::uint32_t* target_values;
  Records target;

  /// Pass `order` of `passes_run` (an index of Control::pass_order), planned by count_digits.
  __device__ __forceinline__ static PassBuffers of(const Problem& problem, std::uint32_t order,
                                                   std::uint32_t passes_run) {
    PassBuffers buffers{};
    if (problem.records == 0) {  // arrays: the caller's, then the alternate's keys and values
      std::uint32_t* alternate_values = problem.alternate + problem.count;
      const bool from_caller = order % 2 == 0;
      buffers.source_keys = from_caller ? problem.keys : problem.alternate;
      buffers.source_values = from_caller ? problem.values : alternate_values;
      buffers.target_keys = from_caller ? problem.alternate : problem.keys;
      buffers.target_values = from_caller ? alternate_values : problem.values;
      return buffers;
    }
    const Records alternate{problem.alternate, problem.alternate, 0xFFFFFFFFu};
    const bool caller_records = problem.caller_records != 0 && problem.count % 2 == 0;
    const Records caller{problem.keys, problem.values, problem.count / 2};
    buffers.source_keys = problem.keys;
    buffers.source_values = problem.values;
    buffers.target_keys = problem.keys;
    buffers.target_values = problem.values;
    if (order % 2 == 0) {  // from the caller's buffers to the alternate
      buffers.source_records = order != 0 && caller_records ? 1u : 0u;
      buffers.source = caller;
      buffers.target_records = 1;
      buffers.target = alternate;
    } else {  // from the alternate to the caller's buffers
      buffers.source_records = 1;
      buffers.source = alternate;
      buffers.target_records = order + 1 != passes_run && caller_records ? 1u : 0u;
      buffers.target = caller;
    }
    return buffers;
  }
};

/// A pass's route, planned by count_digits: where its tiles read and write, and how they name
/// their table slots.
struct PassRoute {
  std::uint32_t from_alternate;  // keys-only: 1 reads the alternate buffer, writes the caller's
  PassBuffers buffers;           // key-value: where the pass reads and writes
  std::uint32_t sequence_base;   // sequence number of the pass's tile 0 (names its table slots)
};

/// One pass's state, planned by count_digits and advanced by the pass's tiles.
struct PassControl {
  PassRoute route;
  std::uint32_t tail;     // tiles [0, tail) have looked back: their slots' readers are done
  std::uint32_t written;  // tiles whose keys (and values) are written, added by each block
  std::uint32_t group_done[kTailGroups];  // looked-back tiles per tail group, a ring
};

inline constexpr std::uint32_t kMaxCountBlocks = 1024;  // grid limit of count_digits

/// The sort's state in device memory. Zeroed once when allocated; every sort leaves the
/// histograms and counters zero again for the next.
struct Control {
  std::uint32_t histograms[kMaxPasses][kBins];     // digit counts of the whole input
  std::uint32_t digit_offsets[kMaxPasses][kBins];  // their exclusive scans
  PassControl passes[kMaxPasses];
  std::uint32_t skipped_chunks[kMaxCountBlocks];  // per count_digits block: chunks not counted
  std::uint32_t blocks_skipping;                  // blocks that left chunks uncounted
  std::uint32_t recount;            // 1: recount_digits must count the skipped chunks, then plan
  std::uint32_t count_blocks_done;  // ticket: the last block of count_digits plans
  std::uint32_t unsorted;           // the order check found two keys out of order
  std::uint32_t next_sequence;      // kept across sorts: table tags are never reused early
  std::uint32_t passes_run;
  std::uint32_t count;                   // keys sorted, when the count came from the device
  std::uint32_t early_exit;              // the input was found sorted: nothing moved
  std::uint32_t pass_order[kMaxPasses];  // the passes that run (passes_run of them), in order
  std::uint32_t next_work;  // next tile of onesweep_passes, counted through the passes that run
};

/// The 8-bit digit of `key` in one pass, flipped for a descending sort (mask - d == mask ^ d).
struct DigitOf {
  int shift;
  std::uint32_t mask;  // 0xFF, or fewer bits for a last pass over a partial digit
  std::uint32_t flip;  // mask for a descending sort, else 0

  __device__ __forceinline__ static DigitOf for_pass(const Problem& problem, int pass) {
    const int shift = problem.begin_bit + kRadixBits * pass;
    const int bits = min(kRadixBits, problem.end_bit - shift);
    const std::uint32_t mask = (1u << bits) - 1u;
    return {shift, mask, problem.descending != 0 ? mask : 0u};
  }
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t key) const {
    return ((key >> shift) & mask) ^ flip;
  }
  /// The same digit, computed so that the compiler cannot merge it with another computation
  /// of it (its shift is in PTX).
  __device__ __forceinline__ std::uint32_t apart(std::uint32_t key) const {
    std::uint32_t shifted;
    asm("shr.b32 %0, %1, %2;" : "=r"(shifted) : "r"(key), "r"(shift));
    return (shifted & mask) ^ flip;
  }
};

}  // namespace rsw::sort::detail::onesweep
