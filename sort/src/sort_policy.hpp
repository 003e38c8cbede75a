// The GPU sorts' tunings, size thresholds and calibration classes, in one place: each with one
// line on why it is so. The figures behind them are in docs/PERFORMANCE.md and
// docs/history/sort.md; a change here is shown by scripts/bench-ab.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rsw::sort::detail::policy {

/// A pass kernel's shape: threads per block, keys per thread, and (Onesweep) the blocks per
/// multiprocessor its register budget is set for.
struct PassShape {
  int threads;
  int items;
  int min_blocks = 1;
};

// [SECTION] Both GPU sorts
/// Calibration input: large enough to fill the GPU, small enough to take a few milliseconds.
inline constexpr std::size_t kCalibrationKeys = std::size_t{1} << 22;
/// Timed sorts a tuning gets in a calibration (after a warm-up); the median decides.
inline constexpr int kCalibrationRuns = 7;

// [SECTION] Onesweep
/// The pass tunings calibrate() chooses from. Larger tiles write longer runs a digit but keep
/// fewer blocks resident to hide the look-back; two resident blocks of 384 threads hide it
/// best, and the items a thread are the most that do not spill for each payload (keys 24,
/// key-value arrays 22, records 21).
inline constexpr PassShape kOnesweepTunings[] = {
    {256, 20, 3}, {256, 20, 2}, {384, 16, 2}, {384, 20, 2},
    {384, 21, 2}, {384, 22, 2}, {384, 24, 2},
};
/// 384 x 20 / 2, until calibrated: good for every payload.
inline constexpr std::size_t kOnesweepDefaultTuning = 3;

/// Sorts of this many keys or more take the tuning calibrated on this many: the best tile
/// differs with n, and a large class's calibration then takes no more memory than the sort.
inline constexpr std::size_t kLargeCalibrationKeys = std::size_t{1} << 24;
/// Below this many keys a pass has about as many tiles as resident blocks or fewer, and
/// smaller tiles win: such sorts take the tuning calibrated on kSmallCalibrationKeys.
inline constexpr std::size_t kMediumKeys = std::size_t{1} << 21;
inline constexpr std::size_t kSmallCalibrationKeys = std::size_t{1} << 20;

/// Key-value sorts of this many keys or more move {key, value} records between passes,
/// smaller ones two arrays: a record crosses L2 twice, which pays only once DRAM bounds.
inline constexpr std::size_t kOnesweepRecordsKeys = std::size_t{20} << 20;

/// From this many keys on the upfront histogram keeps a column of counters a lane: fewer
/// shared-memory bank conflicts than a counter a digit, once there are blocks enough.
inline constexpr std::uint32_t kOnesweepByLaneKeys = 1u << 21;

// [SECTION] Four-way (Ha, Krüger & Silva 2009)
/// The tunings calibrate() chooses from (the paper's Sec. 5 tunes block size and items per
/// thread by GPU).
inline constexpr PassShape kFourWayTunings[] = {
    {128, 8}, {256, 4}, {256, 8}, {256, 16}, {512, 4}, {512, 8},
};
/// 256 x 8, until calibrated.
inline constexpr std::size_t kFourWayDefaultTuning = 2;

/// The calibration class of an Onesweep sort of `count` keys: the number of keys its tuning
/// is calibrated on.
constexpr std::size_t onesweep_calibration_keys(std::size_t count) {
  if (count < kMediumKeys) return kSmallCalibrationKeys;
  return count < kLargeCalibrationKeys ? kCalibrationKeys : kLargeCalibrationKeys;
}

}  // namespace rsw::sort::detail::policy
