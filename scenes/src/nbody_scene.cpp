// The n-body scene: two disk galaxies collide. Each is a heavy core and a thin disk of bodies
// on circular orbits about it; the second disk is tilted, and the galaxies fall past each
// other. Bodies attract by softened all-pairs gravity (physics::gravity: tiled on the GPU) and
// collide as spheres: the broad phase finds the overlapping pairs and spring-dashpot contacts
// push them apart (physics::SphereContacts). Leapfrog (kick-drift-kick) with a fixed step.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "nbody_gpu.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/physics/dynamics.hpp"
#include "scene_base.hpp"
#include "scene_registry.hpp"

namespace rsw::scenes::detail {
namespace {

constexpr float kStep = 0.01f;  // simulated time per frame
constexpr std::size_t kMaxBodies = std::size_t{1} << 18;
constexpr float kCoreMass = 0.6f;  // of each galaxy's mass 1
constexpr float kDiskRadius = 1.0f;
constexpr float kInnerRadius = 0.12f;  // the disk's hole around the core
constexpr float kCoreRadius = 0.05f;
constexpr float kTilt = 0.7f;  // radians: the second disk's tilt about x
constexpr physics::GravityOptions kGravity{.constant = 1.0f, .softening = 0.08f};

// The state's float arrays: position, velocity, acceleration (x, y, z), mass, radius.
constexpr int kArrays = 11;
constexpr int kMass = 9;
constexpr int kRadius = 10;

class NBodyScene final : public SceneBase<kArrays> {
 public:
  std::string_view name() const noexcept override { return "nbody"; }

  void reset(const SceneSettings& settings) override {
    if (settings.count < 2 || settings.count > kMaxBodies) {
      throw Error(ErrorKind::InvalidArgument, "n-body scene: " + std::to_string(settings.count) +
                                                  " bodies; 2 .. " + std::to_string(kMaxBodies));
    }
    start(settings, static_cast<std::uint32_t>(settings.count));
    first_of_second_ = count_ / 2;
    make_galaxies(settings.seed);
    // Contacts ring about ten steps and lose about a third of their energy each time.
    const float mass = (1.0f - kCoreMass) / static_cast<float>(std::max(first_of_second_, 1u));
    const float omega = 2.0f * std::numbers::pi_v<float> / (10.0f * kStep);
    contact_options_ = {.stiffness = mass * omega * omega, .damping = 0.3f * mass * omega};
    place();
    StageProfiler untimed;
    find_accelerations(untimed);  // the first kick's
  }

  void step(StageProfiler& profiler) override {
    const BodyField field = this->field();
    const float half = 0.5f * kStep;
    {
      auto timer = profiler.time("integrate", backend(), stream());
      if (on_gpu()) {
        kick_drift_on_gpu(field, half, kStep, stream());
      } else {
        for (std::uint32_t i = 0; i < count_; ++i)
          kick_drift(field, i, half, kStep);
      }
    }
    find_accelerations(profiler);
    {
      auto timer = profiler.time("integrate", backend(), stream());
      if (on_gpu()) {
        kick_drift_on_gpu(field, half, 0.0f, stream());
      } else {
        for (std::uint32_t i = 0; i < count_; ++i)
          kick_drift(field, i, half, 0.0f);
      }
    }
  }

  render::OrbitCamera camera() const override {
    return {.target = {0, 0, 0},
            .distance = 7.5f,
            .yaw_degrees = 20,
            .pitch_degrees = 50,
            .near_plane = 0.05f,
            .far_plane = 200};
  }

  void draw(render::Renderer& renderer, StageProfiler& profiler) override {
    auto timer = profiler.time("render", backend(), stream());
    if (on_gpu()) {
      write_sprites_on_gpu(field(), display_radius_, renderer.map_spheres(count_, stream()).data,
                           stream());
      renderer.draw_mapped_spheres();
      return;
    }
    sprites_.resize(count_);
    const BodyField host = field();
    for (std::uint32_t i = 0; i < count_; ++i)
      sprites_[i] = body_sprite(host, i, display_radius_);
    renderer.draw_spheres(sprites_);
  }

 private:
  // Cores at rest in their galaxy's frame, disk bodies on circular orbits at radii uniform in
  // area, with a little thickness; the galaxies start apart, falling past each other.
  void make_galaxies(std::uint32_t seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const std::uint32_t disk_bodies[2] = {first_of_second_ - 1, count_ - first_of_second_ - 1};
    // Disk bodies' radius: 0.3 of their mean spacing, at most half the core's.
    const float spacing = std::sqrt(std::numbers::pi_v<float> * kDiskRadius * kDiskRadius /
                                    static_cast<float>(std::max(disk_bodies[0], 1u)));
    const float body_radius = std::min(0.3f * spacing, 0.5f * kCoreRadius);
    display_radius_ = std::max(2.0f * body_radius, 0.012f);
    const float centres[2][3] = {{-2.2f, -0.6f, 0.0f}, {2.2f, 0.6f, 0.0f}};
    const float drifts[2][3] = {{0.32f, 0.06f, 0.0f}, {-0.32f, -0.06f, 0.0f}};
    for (int galaxy = 0; galaxy < 2; ++galaxy) {
      const std::uint32_t first = galaxy == 0 ? 0 : first_of_second_;
      const float disk_mass =
          (1.0f - kCoreMass) / static_cast<float>(std::max(disk_bodies[galaxy], 1u));
      const float tilt = galaxy == 0 ? 0.0f : kTilt;
      const auto place = [&](std::uint32_t i, const float(&local)[3], const float(&velocity)[3],
                             float mass, float radius) {
        // Tilt about x: (x, y, z) -> (x, y cos - z sin, y sin + z cos), disk in the x-z plane.
        const float c = std::cos(tilt);
        const float s = std::sin(tilt);
        const float p[3] = {local[0], local[1] * c - local[2] * s, local[1] * s + local[2] * c};
        const float v[3] = {velocity[0], velocity[1] * c - velocity[2] * s,
                            velocity[1] * s + velocity[2] * c};
        for (int axis = 0; axis < 3; ++axis) {
          host_[axis][i] = centres[galaxy][axis] + p[axis];
          host_[3 + axis][i] = drifts[galaxy][axis] + v[axis];
        }
        host_[kMass][i] = mass;
        host_[kRadius][i] = radius;
      };
      place(first, {0, 0, 0}, {0, 0, 0}, kCoreMass, kCoreRadius);
      for (std::uint32_t k = 0; k < disk_bodies[galaxy]; ++k) {
        const float inner = kInnerRadius * kInnerRadius;
        const float r = std::sqrt(inner + unit(generator) * (kDiskRadius * kDiskRadius - inner));
        const float angle = 2.0f * std::numbers::pi_v<float> * unit(generator);
        const float height = 0.02f * (unit(generator) - 0.5f);
        // The pull of the core and the disk inside r, as a softened point mass.
        const float enclosed =
            kCoreMass + (1.0f - kCoreMass) * (r * r - inner) / (kDiskRadius * kDiskRadius - inner);
        const float softened = r * r + kGravity.softening * kGravity.softening;
        const float speed =
            std::sqrt(kGravity.constant * enclosed * r * r / std::pow(softened, 1.5f));
        place(first + 1 + k, {r * std::cos(angle), height, r * std::sin(angle)},
              {-speed * std::sin(angle), 0.0f, speed * std::cos(angle)}, disk_mass, body_radius);
      }
    }
  }

  // Accelerations of the current positions: bounds, broad phase, gravity, contacts.
  void find_accelerations(StageProfiler& profiler) {
    const StreamHandle on = stream();
    if (on_gpu()) {
      const physics::DeviceSphereBodies bodies = device_bodies();
      {
        auto timer = profiler.time("aabb", backend(), on);
        physics::compute_bounds(
            physics::DeviceSphereArrays{bodies.x, bodies.y, bodies.z, bodies.radius},
            device_bounds_, on);
      }
      broad_phase_.update(device_bounds_.view());
      const physics::DevicePairView pairs = broad_phase_.find_pairs_device();
      const physics::DeviceAccelerations out{
          {array(6), count_}, {array(7), count_}, {array(8), count_}};
      {
        auto timer = profiler.time("gravity", backend(), on);
        physics::gravity(bodies, out, kGravity, on);
      }
      auto timer = profiler.time("narrow phase", backend(), on);
      contacts_.add(bodies, pairs, out, contact_options_, on);
    } else {
      const physics::SphereBodies bodies = host_bodies();
      {
        auto timer = profiler.time("aabb");
        physics::compute_bounds(physics::SphereArrays{bodies.x, bodies.y, bodies.z, bodies.radius},
                                host_bounds_);
      }
      broad_phase_.update(host_bounds_.view());
      const physics::PairView pairs = broad_phase_.find_pairs();
      const physics::Accelerations out{host_[6], host_[7], host_[8]};
      {
        auto timer = profiler.time("gravity");
        physics::gravity(bodies, out, kGravity);
      }
      auto timer = profiler.time("narrow phase");
      contacts_.add(bodies, pairs, out, contact_options_);
    }
    record_broad_phase(profiler);
  }

  physics::SphereBodies host_bodies() const {
    return {host_[0], host_[1], host_[2],     host_[3],
            host_[4], host_[5], host_[kMass], host_[kRadius]};
  }
  physics::DeviceSphereBodies device_bodies() {
    const auto span = [&](int index) { return DeviceSpan<const float>{array(index), count_}; };
    return {span(0), span(1), span(2), span(3), span(4), span(5), span(kMass), span(kRadius)};
  }

  BodyField field() {
    BodyField view{};
    for (int axis = 0; axis < 3; ++axis) {
      view.position[axis] = array(axis);
      view.velocity[axis] = array(3 + axis);
      view.acceleration[axis] = array(6 + axis);
    }
    view.mass = array(kMass);
    view.radius = array(kRadius);
    view.count = count_;
    view.first_of_second = first_of_second_;
    return view;
  }
  void upload_rest() override { device_bounds_.resize(count_); }

  std::uint32_t first_of_second_ = 0;
  float display_radius_ = 0.01f;
  physics::ContactOptions contact_options_;
  physics::AabbStore host_bounds_;
  physics::DeviceAabbStore device_bounds_;
  std::vector<render::SphereInstance> sprites_;
  physics::SphereContacts contacts_;
};

}  // namespace

std::unique_ptr<Scene> make_nbody_scene() {
  return std::make_unique<NBodyScene>();
}

}  // namespace rsw::scenes::detail
