// The particles scene: spheres poured onto a procedural landscape (rolling hills on a height
// field, walled in) pile up and flow. Gravity and the landscape act on each particle
// (particles_math.hpp); particle-particle contacts come from the broad phase's pairs through
// physics::SphereContacts, with the same spring-dashpot law. Two substeps a frame.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "particles_gpu.hpp"
#include "particles_landscape.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/dynamics.hpp"
#include "scene_registry.hpp"
#include "sphere_scene.hpp"

namespace rsw::scenes::detail {
namespace {

constexpr int kSubsteps = 2;
constexpr float kSubstep = 1.0f / (60.0f * kSubsteps);
constexpr std::size_t kMaxParticles = std::size_t{1} << 24;
constexpr float kRadius = 0.05f;
constexpr float kMass = 1.0f;

class ParticlesScene final : public SphereScene {
 public:
  std::string_view name() const noexcept override { return "particles"; }
  std::size_t default_count(Backend backend) const noexcept override {
    return backend == Backend::Cuda ? 1'000'000 : 20'000;
  }

  void reset(const SceneSettings& settings) override {
    if (settings.count < 1 || settings.count > kMaxParticles) {
      throw Error(ErrorKind::InvalidArgument, "particles scene: " + std::to_string(settings.count) +
                                                  " particles; 1 .. " +
                                                  std::to_string(kMaxParticles));
    }
    start(settings, static_cast<std::uint32_t>(settings.count));
    LandscapeGrid grid = make_landscape(count_, settings.seed, kRadius);
    heights_ = std::move(grid.heights);
    half_extent_ = grid.half_extent;
    highest_ = grid.highest;
    std::mt19937 generator(settings.seed + 1);
    pour(generator);
    // Contacts ring about ten substeps and lose about a third of their energy each time.
    const float omega = 2.0f * std::numbers::pi_v<float> / (10.0f * kSubstep);
    contact_options_ = {.stiffness = kMass * omega * omega, .damping = 0.6f * kMass * omega};
    landscape_changed_ = true;
    place();
  }

  void step(StageProfiler& profiler) override {
    const ParticleField field = this->field();
    for (int substep = 0; substep < kSubsteps; ++substep) {
      accelerate(profiler, "integrate", [&] {  // gravity, the landscape and the walls
        if (on_gpu()) {
          settle_on_gpu(field, landscape(), stream());
        } else {
          const Landscape land = landscape();
          for (std::uint32_t i = 0; i < count_; ++i)
            settle_on_landscape(field, land, i);
        }
      });
      auto timer = profiler.time("integrate", backend(), stream());
      if (on_gpu()) {
        kick_drift_on_gpu(field.motion, kSubstep, kSubstep, stream());
      } else {
        kick_drift_on_cpu(field.motion, kSubstep, kSubstep);
      }
    }
  }

  render::OrbitCamera camera() const override {
    return {.target = {0, 0, 0},
            .distance = 2.6f * half_extent_,
            .yaw_degrees = 30,
            .pitch_degrees = 35,
            .near_plane = 0.02f * half_extent_,
            .far_plane = 20 * half_extent_};
  }

  void draw(render::Renderer& renderer, StageProfiler& profiler) override {
    auto timer = profiler.time("render", backend(), stream());
    if (landscape_changed_ || drawn_on_ != &renderer) {
      renderer.set_height_field({.columns = kLandscapeSamples,
                                 .rows = kLandscapeSamples,
                                 .min_x = -half_extent_,
                                 .max_x = half_extent_,
                                 .min_z = -half_extent_,
                                 .max_z = half_extent_,
                                 .heights = heights_,
                                 .colour = {0.32f, 0.5f, 0.26f}});
      landscape_changed_ = false;
      drawn_on_ = &renderer;
    }
    renderer.draw_height_field();
    if (on_gpu()) {
      render::SphereInstance* out = renderer.map_spheres(count_, stream()).data;
      write_particle_sprites_on_gpu(field(), out, stream());
      paint_highlights(out, count_);
      renderer.draw_mapped_spheres();
      return;
    }
    resize_host(sprites_, count_, "the particles' sprites");
    const ParticleField host = field();
    for (std::uint32_t i = 0; i < count_; ++i)
      sprites_[i] = particle_sprite(host, i);
    paint_highlights(sprites_.data(), count_);
    renderer.draw_spheres(sprites_);
  }

 private:
  std::string_view object_kind() const noexcept override { return "particle"; }

  // The ray ends where it first goes below the landscape (what lies behind a hill is hidden):
  // marched in steps of a quarter cell over the stretch above the landscape's square, then
  // bisected.
  physics::Ray physics_ray(const render::CameraRay& camera_ray) const override {
    physics::Ray ray = to_ray(camera_ray);
    float enter = 0;
    float leave = std::numeric_limits<float>::infinity();
    const float origin[2] = {ray.origin.x, ray.origin.z};
    const float direction[2] = {ray.direction.x, ray.direction.z};
    for (int axis = 0; axis < 2; ++axis) {
      if (direction[axis] == 0.0f) {
        if (std::abs(origin[axis]) > half_extent_) return ray;  // never over the square
        continue;
      }
      const float near = (-half_extent_ - origin[axis]) / direction[axis];
      const float far = (half_extent_ - origin[axis]) / direction[axis];
      enter = std::max(enter, std::min(near, far));
      leave = std::min(leave, std::max(near, far));
    }
    // Rising past the highest sample, or having sunk to the lowest, it has been below or
    // never will be.
    const auto [lowest, highest] = std::ranges::minmax(heights_);
    if (ray.direction.y > 0.0f) leave = std::min(leave, (highest - ray.origin.y) / ray.direction.y);
    if (ray.direction.y < 0.0f) leave = std::min(leave, (lowest - ray.origin.y) / ray.direction.y);
    if (!(leave < std::numeric_limits<float>::infinity())) return ray;  // no direction
    const Landscape land{heights_.data(), kLandscapeSamples, kLandscapeSamples, half_extent_};
    const auto below = [&](float t) {
      float slope_x = 0;
      float slope_z = 0;
      const float x = ray.origin.x + t * ray.direction.x;
      const float z = ray.origin.z + t * ray.direction.z;
      return ray.origin.y + t * ray.direction.y < landscape_height(land, x, z, slope_x, slope_z);
    };
    const float step = 0.5f * half_extent_ / static_cast<float>(kLandscapeSamples - 1);
    for (float t = enter; t <= leave + step; t += step) {
      if (!below(t)) continue;
      float above = std::max(t - step, enter);
      for (int halving = 0; halving < 20; ++halving) {
        const float middle = 0.5f * (above + t);
        (below(middle) ? t : above) = middle;
      }
      ray.max_t = t;
      break;
    }
    return ray;
  }

  // The particles start at rest as a jittered block above the middle of the landscape: rows
  // of at most 80% of its width, at least four layers deep.
  void pour(std::mt19937& generator) {
    std::uniform_real_distribution<float> jitter(-0.1f * kRadius, 0.1f * kRadius);
    const float spacing = 2.2f * kRadius;
    const auto widest = static_cast<std::uint32_t>(1.6f * half_extent_ / spacing);
    const auto square =
        static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<float>(count_) / 4.0f)));
    const std::uint32_t across = std::max(1u, std::min(square, widest));
    const float offset = -0.5f * spacing * static_cast<float>(across - 1);
    for (std::uint32_t i = 0; i < count_; ++i) {
      const std::uint32_t layer = i / (across * across);
      const std::uint32_t in_layer = i % (across * across);
      host_[0][i] = offset + spacing * static_cast<float>(in_layer % across) + jitter(generator);
      host_[2][i] = offset + spacing * static_cast<float>(in_layer / across) + jitter(generator);
      host_[1][i] = highest_ + 4 * kRadius + spacing * static_cast<float>(layer);
      host_[kMassArray][i] = kMass;
      host_[kRadiusArray][i] = kRadius;
    }
  }

  Landscape landscape() {
    const float* heights = on_gpu() ? device_heights_.data() : heights_.data();
    return {heights, kLandscapeSamples, kLandscapeSamples, half_extent_};
  }

  ParticleField field() {
    return {.motion = motion(),
            .radius = kRadius,
            .mass = kMass,
            .stiffness = contact_options_.stiffness,
            .damping = contact_options_.damping};
  }

  void upload_rest() override {
    SphereScene::upload_rest();
    device_heights_.upload(heights_, stream());
  }

  float half_extent_ = 2;
  float highest_ = 0;
  std::vector<float> heights_;
  DeviceBuffer<float> device_heights_;
  bool landscape_changed_ = true;
  const render::Renderer* drawn_on_ = nullptr;
  std::vector<render::SphereInstance> sprites_;
};

}  // namespace

std::unique_ptr<Scene> make_particles_scene() {
  return std::make_unique<ParticlesScene>();
}

}  // namespace rsw::scenes::detail
