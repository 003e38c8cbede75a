// The n-body scene: two disk galaxies collide. Each is a heavy core and a thin disk of bodies
// on circular orbits about it; the second disk is tilted, and the galaxies fall past each
// other. Bodies attract by softened all-pairs gravity (physics::gravity: tiled on the GPU) and
// collide as spheres: the broad phase finds the overlapping pairs and spring-dashpot contacts
// push them apart (physics::SphereContacts). Leapfrog (kick-drift-kick) with a fixed step.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "nbody_gpu.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/physics/dynamics.hpp"
#include "scene_registry.hpp"
#include "sphere_scene.hpp"

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

class NBodyScene final : public SphereScene {
 public:
  std::string_view name() const noexcept override { return "nbody"; }
  std::size_t default_count(Backend backend) const noexcept override {
    return backend == Backend::Cuda ? 65'536 : 4'096;
  }

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
    const Motion bodies = motion();
    const auto kick_drift_all = [&](float h, float dt) {
      auto timer = profiler.time("integrate", backend(), stream());
      if (on_gpu()) {
        kick_drift_on_gpu(bodies, h, dt, stream());
      } else {
        kick_drift_on_cpu(bodies, h, dt);
      }
    };
    kick_drift_all(0.5f * kStep, kStep);
    find_accelerations(profiler);
    kick_drift_all(0.5f * kStep, 0.0f);
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
      render::SphereInstance* out = renderer.map_spheres(count_, stream()).data;
      write_sprites_on_gpu(field(), display_radius_, out, stream());
      paint_highlights(out, count_);
      renderer.draw_mapped_spheres();
      return;
    }
    resize_host(sprites_, count_, "the bodies' sprites");
    const BodyField host = field();
    for (std::uint32_t i = 0; i < count_; ++i)
      sprites_[i] = body_sprite(host, i, display_radius_);
    paint_highlights(sprites_.data(), count_);
    renderer.draw_spheres(sprites_);
  }

 private:
  std::string_view object_kind() const noexcept override { return "body"; }

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
        host_[kMassArray][i] = mass;
        host_[kRadiusArray][i] = radius;
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

  // Accelerations of the current positions: gravity, then contacts.
  void find_accelerations(StageProfiler& profiler) {
    accelerate(profiler, "gravity", [&] {
      if (on_gpu()) {
        physics::gravity(device_bodies(), device_accelerations(), kGravity, stream());
      } else {
        physics::gravity(host_bodies(), host_accelerations(), kGravity);
      }
    });
  }

  BodyField field() { return {motion(), first_of_second_}; }

  std::uint32_t first_of_second_ = 0;
  float display_radius_ = 0.01f;
  std::vector<render::SphereInstance> sprites_;
};

}  // namespace

std::unique_ptr<Scene> make_nbody_scene() {
  return std::make_unique<NBodyScene>();
}

}  // namespace rsw::scenes::detail
