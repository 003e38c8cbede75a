// StageProfiler: per-stage times of each frame, on the host clock or with CUDA events, kept
// as a rolling history (min / median / max over the last N frames) and exported as JSON.
// The overlay, radixsweep-bench and the --stats file all read it.
//
//   rsw::StageProfiler profiler;
//   while (running) {
//     { auto timer = profiler.time("sort", backend, stream); sorter.sort(...); }
//     { auto timer = profiler.time("narrow phase"); ... }
//     profiler.end_frame();   // never waits for the GPU
//   }
//   profiler.flush();          // end of run: wait for the last GPU samples
//   profiler.write_json("stats.json");
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/stream.hpp"

namespace rsw {

/// Setup of a StageProfiler.
struct ProfilerOptions {
  /// Frames of history kept per stage, e.g. 240 = 4 s at 60 FPS.
  std::size_t history_frames = 240;
  /// Frames whose GPU samples may still be pending before end_frame() waits for the oldest;
  /// the GPU rarely runs that far behind, so in practice end_frame() never stalls.
  std::size_t max_frames_in_flight = 4;
};

/// One stage summarised over the history window. Times in milliseconds.
struct StageStats {
  std::string name;              ///< as passed to time() or add_sample()
  Backend clock = Backend::Cpu;  ///< Cpu: steady_clock; Cuda: CUDA events (latest sample)
  std::size_t samples = 0;       ///< frames in the window that timed this stage
  double last_ms = 0;            ///< the newest sample in the window
  double min_ms = 0;             ///< the fastest sample in the window
  double median_ms = 0;          ///< the middle sample, or the mean of the two middle ones
  double max_ms = 0;             ///< the slowest sample in the window
  double mean_ms = 0;            ///< the average over the samples in the window
};

/// Times named stages per frame. A stage timed several times in one frame counts once, with
/// the sum of its times. Not thread-safe: one profiler per frame loop.
class RSW_API StageProfiler {
 public:
  /// The name under which end_frame() records the time between consecutive frames.
  static constexpr std::string_view kFrameStage = "frame";

  /// Measures one stage from its creation until it is destroyed or stop() is called.
  class RSW_API Scope {
   public:
    /// Takes over `other`'s measurement; `other` then records nothing.
    Scope(Scope&& other) noexcept;
    Scope& operator=(Scope&&) = delete;
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() { stop(); }

    /// Ends the measurement early; later calls do nothing.
    void stop();

   private:
    friend class StageProfiler;
    Scope(StageProfiler* owner, std::size_t stage, std::size_t generation)
        : owner_(owner), stage_(stage), generation_(generation) {}

    StageProfiler* owner_;
    std::size_t stage_;
    std::chrono::steady_clock::time_point host_start_{};
    StreamHandle stream_ = nullptr;
    std::size_t generation_ = 0;  // the profiler's reset() count when the scope began
    std::size_t gpu_sample_ = 0;  // id of its pending GPU sample, whose start is recorded
    bool on_gpu_ = false;
  };

  /// A profiler with no history; a history_frames of 0 counts as 1.
  explicit StageProfiler(ProfilerOptions options = {});
  ~StageProfiler();
  /// Moves take over the history and pending samples; stop open scopes first. A moved-from
  /// profiler may only be assigned to or destroyed.
  ///@{
  StageProfiler(StageProfiler&&) noexcept;
  StageProfiler& operator=(StageProfiler&&) noexcept;
  ///@}
  StageProfiler(const StageProfiler&) = delete;
  StageProfiler& operator=(const StageProfiler&) = delete;

  /// Times `stage` on the host clock (steady_clock).
  [[nodiscard]] Scope time(std::string_view stage);
  /// Times `stage` where `backend` runs it: CUDA events recorded on `stream` for Cuda, the
  /// host clock for Cpu. Backend::Auto is resolved first.
  [[nodiscard]] Scope time(std::string_view stage, Backend backend, StreamHandle stream = nullptr);

  /// Adds `ms` to `stage` in the open frame, for times measured elsewhere (a benchmark's own
  /// CUDA-event loop, a worker thread). Counts like a Scope on `clock` that lasted `ms`.
  void add_sample(std::string_view stage, double ms, Backend clock = Backend::Cpu);

  /// Closes the frame: host samples enter the history now, GPU samples as soon as their
  /// events have completed (a frame or two later) without waiting for them.
  void end_frame();
  /// Waits for every pending GPU sample and adds it to the history (end of a run, benches).
  void flush();
  /// Forgets all history and pending samples.
  void reset();

  /// Frames closed by end_frame() since construction or reset().
  std::size_t frames() const noexcept;
  /// Every stage, in the order they were first timed.
  std::vector<StageStats> stats() const;
  /// One stage, or nothing if it was never timed.
  std::optional<StageStats> stats(std::string_view stage) const;
  /// The stage's samples in the window, oldest first (for history plots); empty if unknown.
  std::vector<double> history(std::string_view stage) const;

  /// The history as JSON: {"frames", "history_frames", "stages": [{name, clock, samples,
  /// last_ms, min_ms, median_ms, max_ms, mean_ms, history_ms: [...]}]}.
  std::string to_json() const;
  /// Writes to_json() to `path`; throws rsw::Error(Io) when the file cannot be written.
  void write_json(const std::string& path) const;

 private:
  struct State;
  void finish(Scope& scope) noexcept;

  std::unique_ptr<State> state_;
};

}  // namespace rsw
