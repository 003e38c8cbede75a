// What the scenes share: their state as float arrays, kept on the host or the device and moved
// when the backend changes; the CUDA stream (made when a scene first runs on the GPU); the
// broad phase, its options and its figures in the profiler and the overlay; picking through
// the broad phase's queries, and the highlights painted over the drawn instances.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/scenes/scene.hpp"
#include "scene_math.hpp"

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

  std::optional<ScenePick> pick(const render::CameraRay& ray) override {
    if (!stepped_) return std::nullopt;
    const physics::Ray cast = physics_ray(ray);
    const std::span<const physics::BoxRayHit> hits = broad_phase_.raycast(std::span(&cast, 1));
    if (hits.empty()) return std::nullopt;
    return ScenePick{hits[0].box, hits[0].t};
  }

  std::vector<std::uint32_t> partners(std::uint32_t object) override {
    check_object(object);
    if (!stepped_) return {};
    const physics::Aabb box = object_box(object);
    if (!valid_box(box)) return {};
    std::vector<std::uint32_t> found;
    for (const physics::BoxQueryHit& hit :
         broad_phase_.query(std::span(&box, 1), partner_options(object))) {
      if (hit.box != object) found.push_back(hit.box);
    }
    return found;
  }

  std::vector<std::uint32_t> objects_in(const physics::Aabb& region) override {
    check_region(region);
    std::vector<std::uint32_t> found;
    if (!stepped_) return found;
    for (const physics::BoxQueryHit& hit : broad_phase_.query(std::span(&region, 1)))
      found.push_back(hit.box);
    return found;
  }

  physics::Aabb box_of(std::uint32_t object) override {
    check_object(object);
    if (!stepped_) {
      throw Error(ErrorKind::InvalidArgument,
                  std::string(name()) + " scene: no boxes before the first step");
    }
    return drawn(object_box(object), object);
  }

  std::string object_name(std::uint32_t object) const override {
    return std::string(object_kind()) + " " + std::to_string(object);
  }

  void set_highlight(SceneHighlight highlight) override {
    constexpr float kRegion[3] = {0.1f, 0.8f, 1.0f};   // cyan
    constexpr float kPartner[3] = {0.6f, 1.0f, 0.1f};  // lime
    constexpr float kPicked[3] = {1.0f, 0.1f, 0.9f};   // magenta
    paints_.clear();                                   // later paints of an instance win
    const auto paint = [&](std::uint32_t index, const float(&colour)[3]) {
      paints_.push_back({index, {colour[0], colour[1], colour[2]}});
    };
    for (const std::uint32_t object : highlight.in_region)
      paint(object, kRegion);
    for (const std::uint32_t object : highlight.partners)
      paint(object, kPartner);
    if (highlight.picked) paint(*highlight.picked, kPicked);
    paints_uploaded_ = false;
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
    stepped_ = false;
    set_highlight({});
  }

  /// What object_name() calls an object: "box", "chair", ...
  virtual std::string_view object_kind() const noexcept = 0;
  /// Object `object`'s box at the last step (in the broad phase's space).
  virtual physics::Aabb object_box(std::uint32_t object) = 0;
  /// `box` of `object` moved from the broad phase's space to where it is drawn.
  virtual physics::Aabb drawn(const physics::Aabb& box, std::uint32_t) const { return box; }
  /// Which of the broad phase's boxes pair with `object` (its world, in a scene of worlds).
  virtual physics::QueryOptions partner_options(std::uint32_t) const { return {}; }
  /// `ray` in the broad phase's space, ending where the scene's fixed geometry (terrain)
  /// hides what lies behind.
  virtual physics::Ray physics_ray(const render::CameraRay& ray) const { return to_ray(ray); }
  /// Objects pick(), partners() and objects_in() know (the scene's count_, unless it has
  /// more).
  virtual std::uint32_t objects() const noexcept { return count_; }

  /// Whether `box` is finite with min <= max on every axis (NaN fails).
  static bool valid_box(const physics::Aabb& box) {
    const float low[3] = {box.min.x, box.min.y, box.min.z};
    const float high[3] = {box.max.x, box.max.y, box.max.z};
    for (int axis = 0; axis < 3; ++axis) {
      if (!(low[axis] <= high[axis]) || !std::isfinite(low[axis]) || !std::isfinite(high[axis]))
        return false;
    }
    return true;
  }
  /// A camera ray as the broad phase's, without an end.
  static physics::Ray to_ray(const render::CameraRay& ray) {
    return {{ray.origin[0], ray.origin[1], ray.origin[2]},
            {ray.direction[0], ray.direction[1], ray.direction[2]}};
  }
  void check_object(std::uint32_t object) const {
    if (object >= objects()) {
      throw Error(ErrorKind::InvalidArgument, std::string(name()) + " scene: object " +
                                                  std::to_string(object) + " of " +
                                                  std::to_string(objects()));
    }
  }
  void check_region(const physics::Aabb& region) const {
    if (!valid_box(region)) {
      throw Error(
          ErrorKind::InvalidArgument,
          std::string(name()) + " scene: a region must be a valid box (finite, min <= max)");
    }
  }
  /// Whether a step has run since the start (the broad phase has boxes to ask).
  bool stepped() const noexcept { return stepped_; }

  /// Box `i` of the store where the backend keeps the boxes.
  physics::Aabb box_in(const physics::AabbStore& host, physics::DeviceAabbStore& device,
                       std::uint32_t i) const {
    if (on_gpu()) {
      return box_at({device.min(0).data, device.min(1).data, device.min(2).data, device.max(0).data,
                     device.max(1).data, device.max(2).data},
                    i);
    }
    return {{host.min_x[i], host.min_y[i], host.min_z[i]},
            {host.max_x[i], host.max_y[i], host.max_z[i]}};
  }
  /// Box `i` of six device arrays (min x, y, z, max x, y, z), copied, waiting for it.
  physics::Aabb box_at(const std::array<const float*, 6>& device_arrays, std::uint32_t i) const {
    float bounds[6];
    for (std::size_t k = 0; k < 6; ++k)
      rsw::detail::copy_device_to_host(&bounds[k], device_arrays[k] + i, sizeof(float), stream());
    synchronize(stream());
    return {{bounds[0], bounds[1], bounds[2]}, {bounds[3], bounds[4], bounds[5]}};
  }

  /// The highlights painted over `count` drawn instances: device records (on the GPU, queued
  /// on the scene's stream) or host ones.
  template <class Instance>
  void paint_highlights(Instance* instances, std::uint32_t count) {
    if (paints_.empty()) return;
    if (on_gpu()) {
      if (!paints_uploaded_) device_paints_.upload(paints_, stream());
      paints_uploaded_ = true;
      paint_instances_on_gpu(instances, sizeof(Instance), offsetof(Instance, colour), count,
                             device_paints_.data(), paints_.size(), stream());
      return;
    }
    for (const Paint& paint : paints_) {
      if (paint.index >= count) continue;
      for (int channel = 0; channel < 3; ++channel)
        instances[paint.index].colour[channel] = paint.colour[channel];
    }
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
    stepped_ = true;
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
      render::BoxInstance* out = renderer.map_instances(shape, count_, stream()).data;
      write_on_gpu(out);
      paint_highlights(out, count_);
      renderer.draw_mapped(shape);
      return;
    }
    resize_host(instances_, count_, "the instances to draw");
    for (std::uint32_t i = 0; i < count_; ++i)
      instances_[i] = instance(i);
    paint_highlights(instances_.data(), count_);
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
  bool stepped_ = false;
  std::vector<Paint> paints_;  // set_highlight()'s, in the order they are painted
  DeviceBuffer<Paint> device_paints_;
  bool paints_uploaded_ = false;

 protected:
  physics::BroadPhase broad_phase_;  // declared after the stream it works on: destroyed first

 private:
  SceneStats stats_;
};

}  // namespace rsw::scenes::detail
