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
#include "rsw/engine/memory.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "scene_base.hpp"
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

class BoxesScene final : public SceneBase<kArrays> {
 public:
  std::string_view name() const noexcept override { return "boxes"; }
  std::size_t default_count(Backend backend) const noexcept override {
    return backend == Backend::Cuda ? 100'000 : 20'000;
  }

  void reset(const SceneSettings& settings) override {
    if (settings.count < 1 || settings.count > kMaxBoxes) {
      throw Error(ErrorKind::InvalidArgument, "boxes scene: " + std::to_string(settings.count) +
                                                  " boxes; 1 .. " + std::to_string(kMaxBoxes));
    }
    start(settings, static_cast<std::uint32_t>(settings.count));
    // Unit boxes at n / L^3 per unit volume overlap a given box with probability 8 / L^3 each
    // (centres within 1 on every axis): L^3 = 8n / (2 * pairs per box) for the wanted density.
    extent_ = static_cast<float>(std::cbrt(8.0 * static_cast<double>(count_) / (2 * kPairsPerBox)));
    extent_ = std::max(extent_, 4.0f);
    std::mt19937 generator(settings.seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    resize_host(touches_, count_, "the boxes' overlap counts");
    std::ranges::fill(touches_, 0);
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
    place();
  }

  void step(StageProfiler& profiler) override {
    const BoxField field = this->field();
    {
      auto timer = profiler.time("integrate", backend(), stream());
      if (on_gpu()) {
        move_boxes_on_gpu(field, kFrameSeconds, stream());
      } else {
        for (std::uint32_t i = 0; i < count_; ++i)
          move_box(field, i, kFrameSeconds);
      }
    }
    if (on_gpu()) {
      broad_phase_.update(physics::DeviceAabbArrays{.min_x = {field.low[0], count_},
                                                    .min_y = {field.low[1], count_},
                                                    .min_z = {field.low[2], count_},
                                                    .max_x = {field.high[0], count_},
                                                    .max_y = {field.high[1], count_},
                                                    .max_z = {field.high[2], count_}});
      const physics::DevicePairView pairs = broad_phase_.find_pairs_device();
      auto timer = profiler.time("narrow phase", backend(), stream());
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
    record_broad_phase(profiler);
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
    auto timer = profiler.time("render", backend(), stream());
    const BoxField state = field();
    draw_instances(
        renderer, render::Shape::Box,
        [&](render::BoxInstance* out) { write_instances_on_gpu(state, out, stream()); },
        [&](std::uint32_t i) { return box_instance(state, i); });
  }

 private:
  std::string_view object_kind() const noexcept override { return "box"; }
  physics::Aabb object_box(std::uint32_t object) override {
    if (!on_gpu()) {
      return {{host_[9][object], host_[10][object], host_[11][object]},
              {host_[12][object], host_[13][object], host_[14][object]}};
    }
    return box_at({array(9), array(10), array(11), array(12), array(13), array(14)}, object);
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
    view.touches = on_gpu() ? device_touches_.data() : touches_.data();
    view.count = count_;
    view.extent = extent_;
    return view;
  }
  void upload_rest() override { device_touches_.upload(touches_, stream()); }
  void download_rest() override { touches_ = device_touches_.to_vector(stream()); }

  float extent_ = 4;
  std::vector<std::uint32_t> touches_;
  DeviceBuffer<std::uint32_t> device_touches_;
};

}  // namespace

std::unique_ptr<Scene> make_boxes_scene() {
  return std::make_unique<BoxesScene>();
}

}  // namespace rsw::scenes::detail
