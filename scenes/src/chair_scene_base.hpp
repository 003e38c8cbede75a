// What the chairs and worlds scenes share: chairs as rigid bodies (chair_body.hpp) in the
// scene's 13 float arrays, stepped kChairSubsteps substeps a frame through the broad phase,
// and their state as the drawing rule reads it (chairs_math.hpp).
#pragma once

#include "chair_body.hpp"
#include "chairs_math.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/rigid_bodies.hpp"
#include "scene_base.hpp"

namespace rsw::scenes::detail {

// State arrays: position (0-2), orientation x, y, z, w (3-6), velocity (7-9), angular
// velocity (10-12).
inline constexpr int kChairArrays = 13;

class ChairSceneBase : public SceneBase<kChairArrays> {
 protected:
  ChairSceneBase() : bodies_({chair_shape()}) {}

  /// One frame's substeps: the chairs' boxes, the broad phase (with the filter arrays where
  /// the chairs are: `filter` on the CPU, `device_filter` on the GPU), their contacts and
  /// their motion, each timed as its stage.
  void step_chairs(StageProfiler& profiler, physics::FilterArrays filter = {},
                   physics::DeviceFilterArrays device_filter = {}) {
    for (int substep = 0; substep < kChairSubsteps; ++substep) {
      if (on_gpu()) {
        const physics::DeviceRigidBodies bodies = device_bodies();
        {
          auto timer = profiler.time("aabb", backend(), stream());
          bodies_.bounds(bodies, device_bounds_, stream());
        }
        broad_phase_.update(device_bounds_.view(), device_filter);
        const physics::DevicePairView pairs = broad_phase_.find_pairs_device();
        {
          auto timer = profiler.time("narrow phase", backend(), stream());
          bodies_.collide(bodies, pairs, kChairContacts, stream());
        }
        auto timer = profiler.time("integrate", backend(), stream());
        bodies_.integrate(bodies, kChairSubstep, kChairContacts, stream());
      } else {
        const physics::RigidBodies bodies = host_bodies();
        {
          auto timer = profiler.time("aabb");
          bodies_.bounds(bodies, host_bounds_);
        }
        broad_phase_.update(host_bounds_.view(), filter);
        const physics::PairView pairs = broad_phase_.find_pairs();
        {
          auto timer = profiler.time("narrow phase");
          bodies_.collide(bodies, pairs, kChairContacts);
        }
        auto timer = profiler.time("integrate");
        bodies_.integrate(bodies, kChairSubstep, kChairContacts);
      }
      record_broad_phase(profiler);
    }
  }

  /// Chair i at `position` (x, y, z) turned by `orientation` (x, y, z, w), at rest.
  void place_chair(std::uint32_t i, const float (&position)[3],
                   const std::array<float, 4>& orientation) {
    for (int axis = 0; axis < 3; ++axis)
      host_[static_cast<std::size_t>(axis)][i] = position[axis];
    for (int k = 0; k < 4; ++k)
      host_[static_cast<std::size_t>(3 + k)][i] = orientation[static_cast<std::size_t>(k)];
  }

  /// The chairs' state where the backend keeps it, for the drawing rule.
  ChairField chair_field() {
    const physics::RigidShape& shape = bodies_.shapes()[0];
    ChairField view{};
    for (int axis = 0; axis < 3; ++axis) {
      view.position[axis] = array(axis);
      view.velocity[axis] = array(7 + axis);
      view.size[axis] = kChairSize[static_cast<std::size_t>(axis)];
      view.origin[axis] = shape.origin[static_cast<std::size_t>(axis)];
    }
    for (int k = 0; k < 4; ++k)
      view.orientation[k] = array(3 + k);
    view.count = count_;
    return view;
  }

  /// Draws the chairs of `state` (chair_field(), with a flash or tiles): on the GPU by a
  /// kernel into the renderer's mapped buffer.
  void draw_chairs(render::Renderer& renderer, const ChairField& state) {
    draw_instances(
        renderer, render::Shape::Chair,
        [&](render::BoxInstance* out) { write_chair_instances_on_gpu(state, out, stream()); },
        [&](std::uint32_t i) { return chair_instance(state, i); });
  }

  void upload_rest() override { device_bounds_.resize(count_); }

  std::string_view object_kind() const noexcept override { return "chair"; }
  physics::Aabb object_box(std::uint32_t object) override {
    return box_in(host_bounds_, device_bounds_, object);
  }

  physics::RigidWorld bodies_;
  physics::AabbStore host_bounds_;
  physics::DeviceAabbStore device_bounds_;

 private:
  physics::RigidBodies host_bodies() {
    auto& h = host_;
    return {h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11], h[12], {}};
  }
  physics::DeviceRigidBodies device_bodies() {
    const auto span = [&](int index) { return DeviceSpan<float>{array(index), count_}; };
    return {span(0), span(1), span(2), span(3),  span(4),  span(5),  span(6),
            span(7), span(8), span(9), span(10), span(11), span(12), {}};
  }
};

}  // namespace rsw::scenes::detail
