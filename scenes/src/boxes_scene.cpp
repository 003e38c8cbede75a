// The boxes scene: n boxes of mixed sizes fly through a cube and bounce off its walls, at a
// density of a few overlapping pairs per box (0.1% of them ten times larger, as the
// broad phase's "mixed" benchmark scene). Each frame the broad phase finds the overlapping
// pairs and each box is coloured by how many boxes it overlaps: the broad phase made visible.
// On the GPU the state stays on the device and a kernel writes the instances into the
// renderer's buffer; on the CPU the same rules (boxes_math.hpp) run in a loop.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "boxes_gpu.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "scene_registry.hpp"

namespace rsw::scenes::detail {
namespace {

constexpr float kFrameSeconds = 1.0f / 60.0f;
constexpr std::size_t kMaxBoxes = std::size_t{1} << 26;
constexpr double kPairsPerBox = 2.0;   // wanted density: overlapping pairs per box
constexpr float kLargeShare = 0.001f;  // boxes ten times larger
constexpr float kSpeed = 2.0f;         // velocity components in [-kSpeed, kSpeed], units/s

// The state's float arrays, in BoxField's order: centre, half, velocity, low, high (x, y, z).
constexpr int kArrays = 15;

class BoxesScene final : public Scene {
 public:
  std::string_view name() const noexcept override { return "boxes"; }

  void reset(const SceneSettings& settings) override {
    if (settings.count < 1 || settings.count > kMaxBoxes) {
      throw Error(ErrorKind::InvalidArgument, "boxes scene: " + std::to_string(settings.count) +
                                                  " boxes; 1 .. " + std::to_string(kMaxBoxes));
    }
    backend_ = resolve_backend(settings.backend);
    sort_ = settings.sort;
    count_ = static_cast<std::uint32_t>(settings.count);
    // Unit boxes at n / L^3 per unit volume overlap a given box with probability 8 / L^3 each
    // (centres within 1 on every axis): L^3 = 8n / (2 * pairs per box) for the wanted density.
    extent_ = static_cast<float>(std::cbrt(8.0 * static_cast<double>(count_) / (2 * kPairsPerBox)));
    extent_ = std::max(extent_, 4.0f);
    std::mt19937 generator(settings.seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (auto& array : host_)
      array.assign(count_, 0.0f);
    touches_.assign(count_, 0);
    for (std::uint32_t i = 0; i < count_; ++i) {
      const bool large = unit(generator) < kLargeShare;
      for (int axis = 0; axis < 3; ++axis) {
        const float edge = (large ? 10.0f : 1.0f) * (0.5f + unit(generator));
        const float half = std::min(0.5f * edge, 0.25f * extent_);
        host_[3 + axis][i] = half;
        host_[axis][i] = half + unit(generator) * (extent_ - 2 * half);
        host_[6 + axis][i] = kSpeed * (2 * unit(generator) - 1);
      }
    }
    if (backend_ == Backend::Cuda) upload();
    broad_phase_ = physics::BroadPhase(broad_phase_options());
    stats_ = {.objects = count_};
  }

  void step(StageProfiler& profiler) override {
    const BoxField field = this->field();
    {
      auto timer = profiler.time("integrate", backend_, stream());
      if (backend_ == Backend::Cuda) {
        move_boxes_on_gpu(field, kFrameSeconds, stream());
      } else {
        for (std::uint32_t i = 0; i < count_; ++i)
          move_box(field, i, kFrameSeconds);
      }
    }
    if (backend_ == Backend::Cuda) {
      broad_phase_.update(physics::DeviceAabbArrays{.min_x = {field.low[0], count_},
                                                    .min_y = {field.low[1], count_},
                                                    .min_z = {field.low[2], count_},
                                                    .max_x = {field.high[0], count_},
                                                    .max_y = {field.high[1], count_},
                                                    .max_z = {field.high[2], count_}});
      const physics::DevicePairView pairs = broad_phase_.find_pairs_device();
      auto timer = profiler.time("narrow phase", backend_, stream());
      count_touches_on_gpu(field, pairs.data, pairs.size, stream());
    } else {
      broad_phase_.update(physics::AabbArrays{.min_x = host_[9],
                                              .min_y = host_[10],
                                              .min_z = host_[11],
                                              .max_x = host_[12],
                                              .max_y = host_[13],
                                              .max_z = host_[14]});
      const physics::PairView pairs = broad_phase_.find_pairs();
      auto timer = profiler.time("narrow phase");
      std::fill(touches_.begin(), touches_.end(), 0u);
      for (const physics::Pair& pair : pairs) {
        ++touches_[pair.a];
        ++touches_[pair.b];
      }
    }
    const physics::BroadPhaseStats& broad = broad_phase_.stats();
    const std::pair<const char*, double> stages[] = {{"keys", broad.keys_ms},
                                                     {"sort", broad.sort_ms},
                                                     {"sweep", broad.sweep_ms},
                                                     {"filter", broad.filter_ms}};
    for (const auto& [stage, ms] : stages) {
      if (ms > 0) profiler.add_sample(stage, ms, backend_);  // the CPU has no filter stage
    }
    stats_ = {.objects = count_,
              .candidates = broad.candidates,
              .pairs = broad.pairs,
              .sort_passes_run = broad.sort.passes_run,
              .sort_passes_total = broad.sort.passes_total};
  }

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

  Backend backend() const noexcept override { return backend_; }
  SceneStats stats() const override { return stats_; }

  std::vector<std::array<float, 3>> positions() const override {
    std::array<std::vector<float>, 3> axes;
    for (std::size_t axis = 0; axis < 3; ++axis)
      axes[axis] = backend_ == Backend::Cuda ? device_[axis].to_vector(stream()) : host_[axis];
    std::vector<std::array<float, 3>> centres(count_);
    for (std::uint32_t i = 0; i < count_; ++i)
      centres[i] = {axes[0][i], axes[1][i], axes[2][i]};
    return centres;
  }

  render::OrbitCamera camera() const override {
    const float middle = extent_ / 2;
    return {.target = {middle, middle, middle},
            .distance = 2.2f * extent_,
            .yaw_degrees = 35,
            .pitch_degrees = 25,
            .near_plane = 0.05f * extent_,
            .far_plane = 10 * extent_};
  }

  void draw(render::Renderer& renderer, StageProfiler& profiler) override {
    auto timer = profiler.time("render", backend_, stream());
    if (backend_ == Backend::Cuda) {
      const DeviceSpan<render::BoxInstance> instances =
          renderer.map_instances(render::Shape::Box, count_, stream());
      write_instances_on_gpu(field(), instances.data, stream());
      renderer.draw_mapped(render::Shape::Box);
      return;
    }
    instances_.resize(count_);
    const BoxField host = field();
    for (std::uint32_t i = 0; i < count_; ++i)
      instances_[i] = box_instance(host, i);
    renderer.draw_instances(render::Shape::Box, instances_);
  }

 private:
  StreamHandle stream() const noexcept { return stream_ ? stream_->handle() : nullptr; }

  physics::BroadPhaseOptions broad_phase_options() const {
    return {.backend = backend_, .sort = sort_, .stream = stream()};
  }

  // The state where the backend keeps it.
  BoxField field() {
    BoxField view{};
    for (int axis = 0; axis < 3; ++axis) {
      view.centre[axis] = array(axis);
      view.half[axis] = array(3 + axis);
      view.velocity[axis] = array(6 + axis);
      view.low[axis] = array(9 + axis);
      view.high[axis] = array(12 + axis);
    }
    view.touches = backend_ == Backend::Cuda ? device_touches_.data() : touches_.data();
    view.count = count_;
    view.extent = extent_;
    return view;
  }
  float* array(int index) {
    return backend_ == Backend::Cuda ? device_[static_cast<std::size_t>(index)].data()
                                     : host_[static_cast<std::size_t>(index)].data();
  }

  // The host state to the device (making the scene's stream on first use), waiting for it.
  void upload() {
    if (!stream_) stream_.emplace();
    for (int index = 0; index < kArrays; ++index)
      device_[static_cast<std::size_t>(index)].upload(host_[static_cast<std::size_t>(index)],
                                                      stream());
    device_touches_.upload(touches_, stream());
    synchronize(stream());
  }
  void download() {
    for (int index = 0; index < kArrays; ++index)
      host_[static_cast<std::size_t>(index)] =
          device_[static_cast<std::size_t>(index)].to_vector(stream());
    touches_ = device_touches_.to_vector(stream());
  }

  Backend backend_ = Backend::Cpu;
  sort::Algorithm sort_ = sort::Algorithm::Auto;
  std::uint32_t count_ = 0;
  float extent_ = 4;
  std::array<std::vector<float>, kArrays> host_;
  std::vector<std::uint32_t> touches_;
  std::array<DeviceBuffer<float>, kArrays> device_;
  DeviceBuffer<std::uint32_t> device_touches_;
  std::vector<render::BoxInstance> instances_;
  std::optional<Stream> stream_;  // made when the scene first runs on the GPU
  physics::BroadPhase broad_phase_;
  SceneStats stats_;
};

}  // namespace

std::unique_ptr<Scene> make_boxes_scene() {
  return std::make_unique<BoxesScene>();
}

}  // namespace rsw::scenes::detail
