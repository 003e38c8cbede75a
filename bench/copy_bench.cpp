#include "copy_bench.hpp"

#include <cstdint>
#include <cstring>
#include <random>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw::bench {
namespace {

constexpr std::string_view kStage = "copy";

std::vector<std::uint32_t> random_words(std::size_t bytes) {
  std::vector<std::uint32_t> words;
  resize_host(words, bytes / sizeof(std::uint32_t), "the words to copy");
  std::mt19937 generator(std::random_device{}());
  for (auto& word : words)
    word = static_cast<std::uint32_t>(generator());
  return words;
}

Row host_copy_row(std::size_t bytes, const CopyBenchOptions& options) {
  const std::vector<std::uint32_t> source = random_words(bytes);
  std::vector<std::uint32_t> target;
  resize_host(target, source.size(), "the copy's target");
  StageProfiler profiler({.history_frames = options.repetitions});
  for (std::size_t run = 0; run < options.warmup + options.repetitions; ++run) {
    if (run == options.warmup) profiler.reset();
    {
      auto timer = profiler.time(kStage);
      std::memcpy(target.data(), source.data(), source.size() * sizeof(std::uint32_t));
    }
    profiler.end_frame();
  }
  if (target != source) throw Error(ErrorKind::InvalidArgument, "host copy corrupted data");
  return row_from_profile(profiler, kStage);
}

Row cuda_copy_row(std::size_t bytes, const CopyBenchOptions& options) {
  const std::vector<std::uint32_t> host = random_words(bytes);
  Stream stream;
  DeviceBuffer<std::uint32_t> source(host, stream.handle());
  DeviceBuffer<std::uint32_t> target(host.size());
  StageProfiler profiler({.history_frames = options.repetitions});
  for (std::size_t run = 0; run < options.warmup + options.repetitions; ++run) {
    if (run == options.warmup) {
      profiler.flush();
      profiler.reset();
    }
    {
      auto timer = profiler.time(kStage, Backend::Cuda, stream.handle());
      copy(source.span(), target.span(), stream.handle());
    }
    profiler.end_frame();
  }
  profiler.flush();
  if (target.to_vector(stream.handle()) != host) {
    throw Error(ErrorKind::InvalidArgument, "device copy corrupted data");
  }
  return row_from_profile(profiler, kStage);
}

}  // namespace

void run_copy_bench(const CopyBenchOptions& options, Report& report) {
  for (std::size_t bytes : options.sizes) {
    bytes -= bytes % sizeof(std::uint32_t);
    for (const std::string& algo : options.algos) {
      Row row = algo == "cuda" ? cuda_copy_row(bytes, options) : host_copy_row(bytes, options);
      row.bench = "copy";
      row.algo = algo;
      row.n = bytes;
      row.dist = "uniform";
      row.mode = "bytes";
      row.metrics["gb_per_s"] = 2.0 * static_cast<double>(bytes) / (row.ms_median * 1e6);
      report.add(std::move(row));
    }
  }
}

}  // namespace rsw::bench
