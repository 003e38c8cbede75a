// The chairs scene: chairs dropped from a staggered grid, each a little turned, tumble onto
// the ground and into each other and pile up. Every chair is a rigid body
// (physics::RigidWorld) whose collision proxy is a cluster of spheres along its seat, legs and
// back; the broad phase finds the chairs whose boxes overlap, and their spheres push with a
// spring-dashpot law and hold with friction. Sixteen substeps a frame keep the stiff contacts
// stable. Once a frame the chairs' boxes and the ground also go into a physics::World, whose
// events count the contacts that began and ended; a chair that begins touching another
// flashes for a moment.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "chair_scene_base.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/rigid_bodies.hpp"
#include "rsw/physics/world.hpp"
#include "scene_registry.hpp"

namespace rsw::scenes::detail {
namespace {

constexpr std::size_t kMaxChairs = std::size_t{1} << 20;
constexpr float kSpacing = 0.85f;     // between chairs in a layer of the grid
constexpr float kLayerHeight = 1.3f;  // between layers
// A chair's flash fades over this many frames (a quarter of a second at 60 frames a second).
constexpr float kFlashFrames = 15.0f;

class ChairsScene final : public ChairSceneBase {
 public:
  std::string_view name() const noexcept override { return "chairs"; }
  std::size_t default_count(Backend backend) const noexcept override {
    return backend == Backend::Cuda ? 16'384 : 1'000;
  }

  void reset(const SceneSettings& settings) override {
    if (settings.count < 1 || settings.count > kMaxChairs) {
      throw Error(ErrorKind::InvalidArgument, "chairs scene: " + std::to_string(settings.count) +
                                                  " chairs; 1 .. " + std::to_string(kMaxChairs));
    }
    start(settings, static_cast<std::uint32_t>(settings.count));
    std::mt19937 generator(settings.seed);
    drop(generator);
    drawn_on_ = nullptr;  // the floor follows the pile's width
    contacts_.reset();    // made on the first step, from the chairs' boxes
    place();
  }

  SceneStats stats() const override {
    SceneStats stats = SceneBase::stats();
    stats.events = true;
    stats.found = found_;
    stats.lost = lost_;
    return stats;
  }

  void step(StageProfiler& profiler) override {
    step_chairs(profiler);
    auto timer = profiler.time("contacts", backend(), stream());
    track_contacts();
  }

  render::OrbitCamera camera() const override {
    return {.target = {0, 0.25f * top_, 0},
            .distance = 2.6f * half_width_ + top_,
            .yaw_degrees = 30,
            .pitch_degrees = 28,
            .near_plane = 0.05f,
            .far_plane = 20 * (half_width_ + top_)};
  }

  void draw(render::Renderer& renderer, StageProfiler& profiler) override {
    auto timer = profiler.time("render", backend(), stream());
    if (drawn_on_ != &renderer) {  // the floor: a flat height field under the pile
      const float floor = 2.0f * half_width_ + 4.0f;
      const std::vector<float> heights(4, 0.0f);
      renderer.set_height_field({.columns = 2,
                                 .rows = 2,
                                 .min_x = -floor,
                                 .max_x = floor,
                                 .min_z = -floor,
                                 .max_z = floor,
                                 .heights = heights,
                                 .colour = {0.45f, 0.45f, 0.42f}});
      drawn_on_ = &renderer;
    }
    renderer.draw_height_field();
    ChairField state = chair_field();
    if (contacts_ready()) state.flash = on_gpu() ? device_flash_.data() : flash_.data();
    draw_chairs(renderer, state);
  }

 private:
  // The chairs in a grid of square layers about ten deep, each layer shifted half a spacing
  // from the one below; each chair turned about y at random and tipped a little, at rest.
  void drop(std::mt19937& generator) {
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const auto across =
        static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<float>(count_) / 10.0f)));
    const std::uint32_t per_layer = across * across;
    half_width_ = 0.5f * kSpacing * static_cast<float>(across);
    const float lowest = 0.5f * kChairSize[1] + 0.3f;
    for (std::uint32_t i = 0; i < count_; ++i) {
      const std::uint32_t layer = i / per_layer;
      const std::uint32_t in_layer = i % per_layer;
      const float shift = layer % 2 == 0 ? 0.0f : 0.5f * kSpacing;
      const float jitter = 0.1f * kSpacing;
      const float position[3] = {
          -half_width_ + kSpacing * (0.5f + static_cast<float>(in_layer % across)) + shift +
              jitter * (unit(generator) - 0.5f),
          lowest + kLayerHeight * static_cast<float>(layer),
          -half_width_ + kSpacing * (0.5f + static_cast<float>(in_layer / across)) + shift +
              jitter * (unit(generator) - 0.5f)};
      place_chair(i, position, dropped_orientation(generator));
    }
    top_ = lowest + kLayerHeight * static_cast<float>((count_ - 1) / per_layer) + kChairSize[1];
  }

  bool contacts_ready() const { return contacts_ && contacts_backend_ == backend(); }

  // The chairs' boxes of the last substep into the World and a step; its events start the
  // flashes. The World (the chairs as moving proxies 0 .. n-1, then the ground as a static
  // one) is made on the first frame and again when the backend changes; its first step's
  // pairs flash nothing.
  void track_contacts() {
    const bool fresh = !contacts_ready();
    if (fresh) {
      contacts_.reset();
      contacts_.emplace(physics::WorldOptions{.backend = backend(), .stream = stream()});
      contacts_backend_ = backend();
    }
    if (on_gpu()) {
      device_boxes_.resize_discarding(count_);
      pack_chair_boxes_on_gpu(device_bounds_.view(), device_boxes_.data(), count_, stream());
      if (fresh) {
        device_proxies_.resize_discarding(count_);
        contacts_->create(device_boxes_.span(), {}, device_proxies_.span());
        device_flash_.resize_discarding(count_);
        device_flash_.fill_zero(stream());
      } else {
        contacts_->move(device_proxies_.span(), device_boxes_.span());
      }
    } else {
      resize_host(boxes_, count_, "the chairs' boxes");
      const physics::AabbArrays bounds = host_bounds_.view();
      for (std::uint32_t i = 0; i < count_; ++i) {
        boxes_[i] = {{bounds.min_x[i], bounds.min_y[i], bounds.min_z[i]},
                     {bounds.max_x[i], bounds.max_y[i], bounds.max_z[i]}};
      }
      if (fresh) {
        resize_host(proxies_, count_, "the chairs' proxies");
        contacts_->create(boxes_, {}, proxies_);
        flash_.assign(count_, 0.0f);
      } else {
        contacts_->move(proxies_, boxes_);
      }
    }
    if (fresh) {
      const float floor = 2.0f * half_width_ + 4.0f;
      contacts_->create(physics::Aabb{{-floor, -1, -floor}, {floor, 0, floor}},
                        {.motion = physics::Motion::Static});
    }
    contacts_->step();
    found_ = fresh ? 0 : contacts_->stats().found;
    lost_ = fresh ? 0 : contacts_->stats().lost;
    const float step = 1.0f / kFlashFrames;
    if (on_gpu()) {
      const DeviceSpan<const physics::ProxyPair> found =
          fresh ? DeviceSpan<const physics::ProxyPair>{} : contacts_->events_device().found;
      flash_chairs_on_gpu(device_flash_.data(), count_, step, found, stream());
    } else {
      for (float& flash : flash_)
        flash = std::max(flash - step, 0.0f);
      if (!fresh) {
        for (const physics::ProxyPair& pair : contacts_->events().found)
          flash_pair(flash_.data(), count_, pair);
      }
    }
  }

  float half_width_ = 1;
  float top_ = 1;
  const render::Renderer* drawn_on_ = nullptr;
  // The contacts' World, and the chairs' flashes.
  std::optional<physics::World> contacts_;
  Backend contacts_backend_ = Backend::Cpu;
  std::vector<physics::Aabb> boxes_;
  std::vector<physics::ProxyId> proxies_;
  std::vector<float> flash_;
  DeviceBuffer<physics::Aabb> device_boxes_;
  DeviceBuffer<physics::ProxyId> device_proxies_;
  DeviceBuffer<float> device_flash_;
  std::size_t found_ = 0;
  std::size_t lost_ = 0;
};

}  // namespace

std::unique_ptr<Scene> make_chairs_scene() {
  return std::make_unique<ChairsScene>();
}

}  // namespace rsw::scenes::detail
