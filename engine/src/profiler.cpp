// StageProfiler: host samples (and add_sample's) are summed per frame and enter the history at
// end_frame(); GPU samples wait in a queue, in the order they were started, until the events of
// their frame have completed. end_frame() only polls (cudaEventQuery); it waits only when the
// oldest pending frame is more than max_frames_in_flight frames old.
#include "rsw/engine/profiler.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <utility>

#include "gpu_events.hpp"
#include "rsw/engine/error.hpp"

namespace rsw {
namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_between(Clock::time_point start, Clock::time_point stop) {
  return std::chrono::duration<double, std::milli>(stop - start).count();
}

double median_of(std::vector<double> values) {
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return 0.5 * (lower + upper);
}

}  // namespace

struct StageProfiler::State {
  struct Stage {
    std::string name;
    Backend clock = Backend::Cpu;
    std::vector<double> ring;  // the last `history_frames` samples; `next` is the oldest once full
    std::size_t next = 0;
    // Host-clock time (and samples added by add_sample) summed over the open frame.
    double open_frame_ms = 0;
    Backend open_frame_clock = Backend::Cpu;
    bool timed_in_open_frame = false;

    void add(double ms, Backend sample_clock, std::size_t capacity) {
      clock = sample_clock;
      if (ring.size() < capacity) {
        ring.push_back(ms);
      } else {
        ring[next] = ms;
        next = (next + 1) % capacity;
      }
    }
    std::vector<double> oldest_first() const {
      std::vector<double> ordered(ring.begin() + static_cast<std::ptrdiff_t>(next), ring.end());
      ordered.insert(ordered.end(), ring.begin(), ring.begin() + static_cast<std::ptrdiff_t>(next));
      return ordered;
    }
    StageStats stats() const {
      StageStats result;
      result.name = name;
      result.clock = clock;
      result.samples = ring.size();
      if (ring.empty()) return result;
      const auto [low, high] = std::minmax_element(ring.begin(), ring.end());
      result.last_ms = ring[(next + ring.size() - 1) % ring.size()];
      result.min_ms = *low;
      result.max_ms = *high;
      result.mean_ms =
          std::accumulate(ring.begin(), ring.end(), 0.0) / static_cast<double>(ring.size());
      result.median_ms = median_of(ring);
      return result;
    }
  };

  struct GpuSample {
    std::size_t stage;
    std::size_t frame;
    EventHandle start;
    EventHandle stop;  // nullptr while its scope is open
  };

  explicit State(ProfilerOptions profiler_options) : options(profiler_options) {
    options.history_frames = std::max<std::size_t>(options.history_frames, 1);
  }
  ~State() {
    for (const GpuSample& sample : pending) {
      detail::destroy_event(sample.start);
      detail::destroy_event(sample.stop);
    }
    for (EventHandle event : spare_events)
      detail::destroy_event(event);
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  std::size_t stage_index(std::string_view name) {
    for (std::size_t index = 0; index < stages.size(); ++index) {
      if (stages[index].name == name) return index;
    }
    Stage& stage = stages.emplace_back();
    stage.name = name;
    stage.ring.reserve(options.history_frames);
    return stages.size() - 1;
  }
  const Stage* find(std::string_view name) const {
    const auto found = std::ranges::find(stages, name, &Stage::name);
    return found == stages.end() ? nullptr : &*found;
  }

  EventHandle take_event() {
    if (spare_events.empty()) return detail::create_timing_event();
    EventHandle event = spare_events.back();
    spare_events.pop_back();
    return event;
  }
  void recycle(EventHandle event) {
    if (event != nullptr) spare_events.push_back(event);
  }

  // Moves the samples of closed frames whose events have completed into the history, oldest
  // frame first. Waits only when `wait_all` or when a frame is too far behind.
  void resolve(bool wait_all) {
    while (!pending.empty() && pending.front().frame < frames) {
      const std::size_t frame = pending.front().frame;
      std::size_t frame_end = 0;
      while (frame_end < pending.size() && pending[frame_end].frame == frame)
        ++frame_end;
      const bool must_wait = wait_all || frames - frame > options.max_frames_in_flight;
      for (std::size_t index = 0; index < frame_end; ++index) {
        const EventHandle stop = pending[index].stop;
        if (stop == nullptr) return;  // a scope of that frame is still open
        if (must_wait) {
          detail::wait_for_event(stop);
        } else if (!detail::event_completed(stop)) {
          return;
        }
      }
      std::vector<std::pair<std::size_t, double>> frame_sums;
      for (std::size_t index = 0; index < frame_end; ++index) {
        const GpuSample& sample = pending[index];
        const double ms = detail::elapsed_ms(sample.start, sample.stop);
        const auto same_stage = [&](const auto& sum) { return sum.first == sample.stage; };
        if (auto found = std::ranges::find_if(frame_sums, same_stage); found != frame_sums.end()) {
          found->second += ms;
        } else {
          frame_sums.emplace_back(sample.stage, ms);
        }
        recycle(sample.start);
        recycle(sample.stop);
      }
      for (const auto& [stage, ms] : frame_sums) {
        stages[stage].add(ms, Backend::Cuda, options.history_frames);
      }
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(frame_end));
      first_pending_id += frame_end;
    }
  }

  void rethrow_deferred_error() {
    if (deferred_error) std::rethrow_exception(std::exchange(deferred_error, nullptr));
  }

  ProfilerOptions options;
  std::vector<Stage> stages;
  std::deque<GpuSample> pending;  // sample id = first_pending_id + position
  std::size_t first_pending_id = 0;
  std::vector<EventHandle> spare_events;
  std::size_t frames = 0;
  std::size_t generation = 0;  // reset() count; scopes from before a reset are ignored
  Clock::time_point frame_start = Clock::now();
  std::exception_ptr deferred_error;  // from a Scope destructor, rethrown by end_frame()
};

StageProfiler::StageProfiler(ProfilerOptions options) : state_(std::make_unique<State>(options)) {}
StageProfiler::~StageProfiler() = default;
StageProfiler::StageProfiler(StageProfiler&&) noexcept = default;
StageProfiler& StageProfiler::operator=(StageProfiler&&) noexcept = default;

StageProfiler::Scope::Scope(Scope&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      stage_(other.stage_),
      host_start_(other.host_start_),
      stream_(other.stream_),
      generation_(other.generation_),
      gpu_sample_(other.gpu_sample_),
      on_gpu_(other.on_gpu_) {}

void StageProfiler::Scope::stop() {
  if (owner_ != nullptr) std::exchange(owner_, nullptr)->finish(*this);
}

StageProfiler::Scope StageProfiler::time(std::string_view stage) {
  Scope scope(this, state_->stage_index(stage), state_->generation);
  scope.host_start_ = Clock::now();
  return scope;
}

StageProfiler::Scope StageProfiler::time(std::string_view stage, Backend backend,
                                         StreamHandle stream) {
  if (resolve_backend(backend) == Backend::Cpu) return time(stage);
  State& state = *state_;
  Scope scope(this, state.stage_index(stage), state.generation);
  EventHandle start = state.take_event();
  try {
    detail::record_event(start, stream);
  } catch (...) {
    state.recycle(start);
    scope.owner_ = nullptr;
    throw;
  }
  state.pending.push_back({scope.stage_, state.frames, start, nullptr});
  scope.on_gpu_ = true;
  scope.stream_ = stream;
  scope.gpu_sample_ = state.first_pending_id + state.pending.size() - 1;
  return scope;
}

void StageProfiler::finish(Scope& scope) noexcept {
  State& state = *state_;
  if (scope.generation_ != state.generation) return;  // reset() since it began: dropped
  if (!scope.on_gpu_) {
    State::Stage& stage = state.stages[scope.stage_];
    stage.open_frame_ms += milliseconds_between(scope.host_start_, Clock::now());
    stage.open_frame_clock = Backend::Cpu;
    stage.timed_in_open_frame = true;
    return;
  }
  try {
    EventHandle stop = state.take_event();
    state.pending[scope.gpu_sample_ - state.first_pending_id].stop = stop;
    detail::record_event(stop, scope.stream_);
  } catch (...) {
    state.deferred_error = std::current_exception();
  }
}

void StageProfiler::add_sample(std::string_view stage, double ms, Backend clock) {
  State& state = *state_;
  State::Stage& target = state.stages[state.stage_index(stage)];
  target.open_frame_ms += ms;
  target.open_frame_clock = clock == Backend::Cuda ? Backend::Cuda : Backend::Cpu;
  target.timed_in_open_frame = true;
}

void StageProfiler::end_frame() {
  State& state = *state_;
  state.rethrow_deferred_error();
  const Clock::time_point now = Clock::now();
  for (State::Stage& stage : state.stages) {
    if (!stage.timed_in_open_frame) continue;
    stage.add(stage.open_frame_ms, stage.open_frame_clock, state.options.history_frames);
    stage.open_frame_ms = 0;
    stage.timed_in_open_frame = false;
  }
  state.stages[state.stage_index(kFrameStage)].add(milliseconds_between(state.frame_start, now),
                                                   Backend::Cpu, state.options.history_frames);
  state.frame_start = now;
  ++state.frames;
  state.resolve(false);
}

void StageProfiler::flush() {
  state_->rethrow_deferred_error();
  state_->resolve(true);
}

void StageProfiler::reset() {
  State& state = *state_;
  for (const State::GpuSample& sample : state.pending) {
    state.recycle(sample.start);
    state.recycle(sample.stop);
  }
  state.first_pending_id += state.pending.size();
  state.pending.clear();
  state.stages.clear();
  state.frames = 0;
  state.frame_start = Clock::now();
  state.deferred_error = nullptr;
  ++state.generation;
}

std::size_t StageProfiler::frames() const noexcept {
  return state_->frames;
}

std::vector<StageStats> StageProfiler::stats() const {
  std::vector<StageStats> all;
  all.reserve(state_->stages.size());
  for (const State::Stage& stage : state_->stages)
    all.push_back(stage.stats());
  return all;
}

std::optional<StageStats> StageProfiler::stats(std::string_view stage) const {
  const State::Stage* found = state_->find(stage);
  if (found == nullptr) return std::nullopt;
  return found->stats();
}

std::vector<double> StageProfiler::history(std::string_view stage) const {
  const State::Stage* found = state_->find(stage);
  return found == nullptr ? std::vector<double>{} : found->oldest_first();
}

std::string StageProfiler::to_json() const {
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const State::Stage& stage : state_->stages) {
    const StageStats summary = stage.stats();
    stages.push_back({
        {"name", summary.name},
        {"clock", summary.clock == Backend::Cuda ? "cuda_events" : "steady_clock"},
        {"samples", summary.samples},
        {"last_ms", summary.last_ms},
        {"min_ms", summary.min_ms},
        {"median_ms", summary.median_ms},
        {"max_ms", summary.max_ms},
        {"mean_ms", summary.mean_ms},
        {"history_ms", stage.oldest_first()},
    });
  }
  const nlohmann::ordered_json document = {
      {"frames", state_->frames},
      {"history_frames", state_->options.history_frames},
      {"stages", std::move(stages)},
  };
  return document.dump(2);
}

void StageProfiler::write_json(const std::string& path) const {
  std::ofstream file(path);
  file << to_json() << '\n';
  file.close();
  if (!file) throw Error(ErrorKind::Io, "writing profiler stats to '" + path + "' failed");
}

}  // namespace rsw
