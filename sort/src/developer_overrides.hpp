// Developer overrides of the GPU sorts' own choices, for measurements and debugging: read from
// the environment once, when a Sorter makes its GPU sort, and checked then. Users configure a
// sort through SortOptions; these are not options. docs/DEVELOPING.md lists them:
//
//   RSW_SORT_LAUNCH=graph|stream     how both GPU sorts launch their kernels
//   RSW_ONESWEEP_TUNING=384x20/2     an Onesweep pass tuning, without calibration
//   RSW_ONESWEEP_LAYOUT=arrays|records   how Onesweep's key-value passes move values
//   RSW_ONESWEEP_HISTOGRAM=digit|lane    Onesweep's upfront histogram kernel
//   RSW_FOUR_WAY_TUNING=256x16       a four-way tuning, without calibration
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace rsw::sort::detail {

/// How a GPU sort launches its kernels.
enum class LaunchMode {
  Graph,   ///< one CUDA graph a sort: the default
  Stream,  ///< plain launches on the stream: for compute-sanitizer's racecheck, which stops
           ///< on the four-way sort's conditional graph nodes
};

/// How Onesweep's key-value passes move the values.
enum class PairLayout {
  Arrays,   ///< keys and values in two arrays
  Records,  ///< {key, value} records
};

/// Onesweep's upfront histogram kernel.
enum class HistogramKind {
  ByDigit,  ///< a counter a digit
  ByLane,   ///< a column of counters a lane
};

/// The overrides in force; empty ones leave the choice to the sort.
struct DeveloperOverrides {
  LaunchMode launch = LaunchMode::Graph;            ///< RSW_SORT_LAUNCH
  std::optional<std::string> onesweep_tuning;       ///< RSW_ONESWEEP_TUNING
  std::optional<PairLayout> onesweep_layout;        ///< RSW_ONESWEEP_LAYOUT
  std::optional<HistogramKind> onesweep_histogram;  ///< RSW_ONESWEEP_HISTOGRAM
  std::optional<std::string> four_way_tuning;       ///< RSW_FOUR_WAY_TUNING

  /// Reads the variables; throws rsw::Error(InvalidArgument) naming a variable whose value is
  /// not one it knows.
  static DeveloperOverrides from_environment();
};

/// The index of the tuning called `name` among `names`, or nothing without a name; throws
/// rsw::Error(InvalidArgument) naming `variable` and the tunings when none is so called.
std::optional<std::size_t> tuning_named(const std::optional<std::string>& name,
                                        std::span<const std::string> names, const char* variable);

}  // namespace rsw::sort::detail
