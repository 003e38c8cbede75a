// What every benchmark produces: rows of timings, printed as a table and written as JSON.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rsw/engine/profiler.hpp"

namespace rsw::bench {

/// One measured configuration. Times are over `repetitions` timed runs after warm-up.
struct Row {
  std::string bench;  ///< e.g. "copy", "sort"
  std::string algo;   ///< e.g. "cuda-memcpy", "fourway", "cub"
  std::size_t n = 0;  ///< problem size in the bench's unit (bytes, keys, boxes)
  std::string dist;   ///< input distribution, e.g. "uniform"
  std::string mode;   ///< what is processed, e.g. "keys", "pairs", "bytes"
  double ms_median = 0;
  double ms_min = 0;
  double ms_max = 0;
  std::size_t repetitions = 0;
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();  ///< bench-specific figures
};

/// A row whose times are the `stage` statistics of `profiler` (one frame per repetition).
Row row_from_profile(const StageProfiler& profiler, std::string_view stage);

/// Collects rows; prints them as a table and writes them as JSON with the machine's details.
class Report {
 public:
  void add(Row row);
  const std::vector<Row>& rows() const noexcept { return rows_; }

  /// Prints an aligned table to stdout: the fixed columns, then each metric.
  void print_table() const;
  /// {"machine": {...}, "rows": [...]}; throws rsw::Error(Io) when `path` cannot be written.
  void write_json(const std::string& path) const;

 private:
  std::vector<Row> rows_;
};

/// Version, build options and the CUDA device (or why there is none), for JSON headers.
nlohmann::ordered_json describe_machine();

/// Parses "4096", "64K", "256M", "1G" (binary multiples); throws rsw::Error otherwise.
std::size_t parse_size(std::string_view text);

}  // namespace rsw::bench
