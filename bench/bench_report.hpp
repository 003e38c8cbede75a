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

  /// Records a check that failed (a wrong result, memory that grew): the run goes on, its
  /// rows are printed and written, and the program then reports the failures and exits 1.
  void fail(std::string message);
  const std::vector<std::string>& failures() const noexcept { return failures_; }

  /// Prints an aligned table to stdout: the fixed columns, then each metric.
  void print_table() const;
  /// {"machine": {...}, "rows": [...]}; throws rsw::Error(Io) when `path` cannot be written.
  void write_json(const std::string& path) const;

 private:
  std::vector<Row> rows_;
  std::vector<std::string> failures_;
};

/// Version, build options and the CUDA device (or why there is none), for JSON headers.
nlohmann::ordered_json describe_machine();

}  // namespace rsw::bench
