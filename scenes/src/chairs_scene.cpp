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
#include <span>
#include <string>
#include <unordered_map>
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

  // Picking asks the contacts' World, which holds the ground too (object count_).
  std::optional<ScenePick> pick(const render::CameraRay& ray) override {
    if (!contacts_ready()) return std::nullopt;
    const physics::Ray cast = to_ray(ray);
    const std::span<const physics::RayHit> hits = contacts_->raycast(std::span(&cast, 1));
    if (hits.empty()) return std::nullopt;
    return ScenePick{object_of(hits[0].proxy), hits[0].t};
  }

  std::vector<std::uint32_t> partners(std::uint32_t object) override {
    check_object(object);
    if (!contacts_ready()) return {};
    const physics::Aabb box = object == count_ ? ground_box() : world_box(object);
    return proxies_in(box, object);
  }

  std::vector<std::uint32_t> objects_in(const physics::Aabb& region) override {
    check_region(region);
    if (!contacts_ready()) return {};
    return proxies_in(region, objects());
  }

  physics::Aabb box_of(std::uint32_t object) override {
    check_object(object);
    if (!contacts_ready()) {
      throw Error(ErrorKind::InvalidArgument, "chairs scene: no boxes before the first step");
    }
    return object == count_ ? ground_box() : world_box(object);
  }

  std::string object_name(std::uint32_t object) const override {
    return object == count_ ? std::string("ground") : ChairSceneBase::object_name(object);
  }

 private:
  std::uint32_t objects() const noexcept override { return count_ + 1; }

  // The ground's box: a slab under the pile, reaching well past it.
  physics::Aabb ground_box() const {
    const float floor = 2.0f * half_width_ + 4.0f;
    return {{-floor, -1, -floor}, {floor, 0, floor}};
  }

  // Chair i's box at the contacts' last step.
  physics::Aabb world_box(std::uint32_t chair) const {
    if (!on_gpu()) return boxes_[chair];
    physics::Aabb box;
    rsw::detail::copy_device_to_host(&box, device_boxes_.data() + chair, sizeof box, stream());
    synchronize(stream());
    return box;
  }

  // The object a proxy of the contacts' World stands for.
  std::uint32_t object_of(physics::ProxyId proxy) const {
    const auto found = objects_by_proxy_.find(proxy);
    return found != objects_by_proxy_.end() ? found->second : count_;
  }

  // The objects whose boxes overlap `region` at the World's last step, rising, `except` left
  // out.
  std::vector<std::uint32_t> proxies_in(const physics::Aabb& region, std::uint32_t except) {
    std::vector<std::uint32_t> found;
    for (const physics::QueryHit& hit : contacts_->query(std::span(&region, 1))) {
      const std::uint32_t object = object_of(hit.proxy);
      if (object != except) found.push_back(object);
    }
    std::ranges::sort(found);
    return found;
  }

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
      contacts_->create(ground_box(), {.motion = physics::Motion::Static});
      // Which chair each proxy is, for picking.
      const std::vector<physics::ProxyId> chairs =
          on_gpu() ? device_proxies_.to_vector(stream()) : proxies_;
      objects_by_proxy_.clear();
      for (std::uint32_t i = 0; i < count_; ++i)
        objects_by_proxy_.emplace(chairs[i], i);
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
  std::unordered_map<physics::ProxyId, std::uint32_t> objects_by_proxy_;
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
