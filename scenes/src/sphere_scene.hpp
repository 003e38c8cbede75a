// Scenes whose bodies are colliding spheres (n-body, particles): their state arrays are
// position, velocity, acceleration (x, y, z), mass and radius, and each step finds the
// accelerations the same way: the bodies' own forces (gravity, the landscape), then the
// spring-dashpot contacts of the spheres the broad phase finds overlapping.
#pragma once

#include "rsw/physics/bounds.hpp"
#include "rsw/physics/dynamics.hpp"
#include "scene_base.hpp"
#include "scene_math.hpp"

namespace rsw::scenes::detail {

class SphereScene : public SceneBase<11> {
 protected:
  static constexpr int kMassArray = 9;
  static constexpr int kRadiusArray = 10;

  /// Positions, velocities and accelerations where the backend keeps them.
  Motion motion() {
    Motion view{};
    for (int axis = 0; axis < 3; ++axis) {
      view.position[axis] = array(axis);
      view.velocity[axis] = array(3 + axis);
      view.acceleration[axis] = array(6 + axis);
    }
    view.count = count_;
    return view;
  }

  /// The accelerations of the current positions: `own_forces` writes each body's own, timed
  /// as `stage`; then the contacts are added, timed as "narrow phase" (the bounds as "aabb",
  /// the broad phase by its stages).
  template <class OwnForces>
  void accelerate(StageProfiler& profiler, const char* stage, OwnForces&& own_forces) {
    {
      auto timer = profiler.time("aabb", backend(), stream());
      if (on_gpu()) {
        const physics::DeviceSphereBodies bodies = device_bodies();
        physics::compute_bounds(
            physics::DeviceSphereArrays{bodies.x, bodies.y, bodies.z, bodies.radius},
            device_bounds_, stream());
      } else {
        physics::compute_bounds(
            physics::SphereArrays{host_[0], host_[1], host_[2], host_[kRadiusArray]}, host_bounds_);
      }
    }
    {
      auto timer = profiler.time(stage, backend(), stream());
      own_forces();
    }
    if (on_gpu()) {
      broad_phase_.update(device_bounds_.view());
      const physics::DevicePairView pairs = broad_phase_.find_pairs_device();
      auto timer = profiler.time("narrow phase", backend(), stream());
      contacts_.add(device_bodies(), pairs, device_accelerations(), contact_options_, stream());
    } else {
      broad_phase_.update(host_bounds_.view());
      const physics::PairView pairs = broad_phase_.find_pairs();
      auto timer = profiler.time("narrow phase");
      contacts_.add(host_bodies(), pairs, host_accelerations(), contact_options_);
    }
    record_broad_phase(profiler);
  }

  physics::SphereBodies host_bodies() const {
    return {host_[0], host_[1], host_[2],          host_[3],
            host_[4], host_[5], host_[kMassArray], host_[kRadiusArray]};
  }
  physics::DeviceSphereBodies device_bodies() {
    const auto span = [&](int index) { return DeviceSpan<const float>{array(index), count_}; };
    return {span(0), span(1), span(2),          span(3),
            span(4), span(5), span(kMassArray), span(kRadiusArray)};
  }
  physics::Accelerations host_accelerations() { return {host_[6], host_[7], host_[8]}; }
  physics::DeviceAccelerations device_accelerations() {
    return {{array(6), count_}, {array(7), count_}, {array(8), count_}};
  }

  void upload_rest() override { device_bounds_.resize(count_); }

  physics::Aabb object_box(std::uint32_t object) override {
    return box_in(host_bounds_, device_bounds_, object);
  }

  physics::ContactOptions contact_options_;

 private:
  physics::AabbStore host_bounds_;
  physics::DeviceAabbStore device_bounds_;
  physics::SphereContacts contacts_;
};

}  // namespace rsw::scenes::detail
