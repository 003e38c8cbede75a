// What the scenes share: their state as float arrays, kept on the host or the device and moved
// when the backend changes; the CUDA stream (made when a scene first runs on the GPU); the
// broad phase, its options and its figures in the profiler and the overlay.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/scenes/scene.hpp"

namespace rsw::scenes::detail {

/// A scene whose state is kArrays arrays of one float per body; arrays 0, 1, 2 are the
/// bodies' centres.
template <int kArrays>
class SceneBase : public Scene {
 public:
  Backend backend() const noexcept override { return backend_; }
  SceneStats stats() const override { return stats_; }

  void set_backend(Backend backend) override {
    const Backend wanted = resolve_backend(backend);
    if (wanted == backend_) return;
    if (wanted == Backend::Cuda) {
      upload();
    } else {
      download();
    }
    backend_ = wanted;
    broad_phase_.set_options(broad_phase_options());
  }

  void set_sort(sort::Algorithm sort) override {
    sort_ = sort;
    broad_phase_.set_options(broad_phase_options());
  }

  std::vector<std::array<float, 3>> positions() const override {
    std::array<std::vector<float>, 3> axes;
    for (std::size_t axis = 0; axis < 3; ++axis)
      axes[axis] = on_gpu() ? device_[axis].to_vector(stream()) : host_[axis];
    std::vector<std::array<float, 3>> centres(count_);
    for (std::uint32_t i = 0; i < count_; ++i)
      centres[i] = {axes[0][i], axes[1][i], axes[2][i]};
    return centres;
  }

 protected:
  /// Starts over: the settings' backend and sort, `count` bodies, host arrays of zeros.
  void start(const SceneSettings& settings, std::uint32_t count) {
    backend_ = resolve_backend(settings.backend);
    sort_ = settings.sort;
    count_ = count;
    for (std::vector<float>& array : host_) {
      resize_host(array, count, "the scene's bodies");
      std::ranges::fill(array, 0.0f);
    }
  }
  /// Once the host arrays hold the start: to the device when the scene runs there, and a
  /// broad phase of its own.
  void place() {
    if (on_gpu()) upload();
    broad_phase_ = physics::BroadPhase(broad_phase_options());
    stats_ = {.objects = count_};
  }

  /// Array `index` where the backend keeps it.
  float* array(int index) {
    return on_gpu() ? device_[static_cast<std::size_t>(index)].data()
                    : host_[static_cast<std::size_t>(index)].data();
  }
  bool on_gpu() const noexcept { return backend_ == Backend::Cuda; }
  StreamHandle stream() const noexcept { return stream_ ? stream_->handle() : nullptr; }

  /// The last broad-phase frame's stage times as profiler samples (stages the backend does
  /// not have read zero and are left out), and its counts for stats().
  void record_broad_phase(StageProfiler& profiler) {
    const physics::BroadPhaseStats& broad = broad_phase_.stats();
    const std::pair<const char*, double> stages[] = {{"keys", broad.keys_ms},
                                                     {"sort", broad.sort_ms},
                                                     {"list", broad.list_ms},
                                                     {"sweep", broad.sweep_ms},
                                                     {"pair_sort", broad.pair_sort_ms}};
    for (const auto& [stage, ms] : stages) {
      if (ms > 0) profiler.add_sample(stage, ms, backend_);
    }
    stats_ = {.objects = count_,
              .candidates = broad.candidates,
              .pairs = broad.pairs,
              .sort_passes_run = broad.sort.passes_run,
              .sort_passes_total = broad.sort.passes_total};
  }

  /// Draws count_ instances of `shape`: on the GPU `write_on_gpu(out)` queues a kernel that
  /// writes them into the renderer's mapped buffer; on the CPU `instance(i)` makes each.
  template <class WriteOnGpu, class MakeInstance>
  void draw_instances(render::Renderer& renderer, render::Shape shape, WriteOnGpu&& write_on_gpu,
                      MakeInstance&& instance) {
    if (on_gpu()) {
      write_on_gpu(renderer.map_instances(shape, count_, stream()).data);
      renderer.draw_mapped(shape);
      return;
    }
    resize_host(instances_, count_, "the instances to draw");
    for (std::uint32_t i = 0; i < count_; ++i)
      instances_[i] = instance(i);
    renderer.draw_instances(shape, instances_);
  }

  /// The scene's own state besides the float arrays, moved with them.
  ///@{
  virtual void upload_rest() {}
  virtual void download_rest() {}
  ///@}

  std::uint32_t count_ = 0;
  std::array<std::vector<float>, kArrays> host_;

 private:
  physics::BroadPhaseOptions broad_phase_options() const {
    return {.backend = backend_, .sort = sort_, .stream = stream()};
  }

  // The host state to the device (making the stream on first use), waiting for it.
  void upload() {
    if (!stream_) stream_.emplace();
    for (std::size_t index = 0; index < kArrays; ++index)
      device_[index].upload(host_[index], stream());
    upload_rest();
    synchronize(stream());
  }
  void download() {
    for (std::size_t index = 0; index < kArrays; ++index)
      host_[index] = device_[index].to_vector(stream());
    download_rest();
  }

  Backend backend_ = Backend::Cpu;
  sort::Algorithm sort_ = sort::Algorithm::Auto;
  std::array<DeviceBuffer<float>, kArrays> device_;
  std::optional<Stream> stream_;                // made when the scene first runs on the GPU
  std::vector<render::BoxInstance> instances_;  // draw_instances()'s on the CPU

 protected:
  physics::BroadPhase broad_phase_;  // declared after the stream it works on: destroyed first

 private:
  SceneStats stats_;
};

}  // namespace rsw::scenes::detail
