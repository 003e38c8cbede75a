#include "rsw/physics/rigid_bodies.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "argument_checks.hpp"
#include "rigid_gpu.hpp"
#include "rigid_math.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/parallel.hpp"

namespace rsw::physics {
namespace {

// Work for a thread of the CPU paths: bodies for bounds, placing and stepping; pairs for the
// sphere tests.
constexpr std::size_t kBodiesPerThread = 2048;
constexpr std::size_t kPairsPerThread = 512;

using Matrix = std::array<std::array<double, 3>, 3>;

Matrix tensor_matrix(const std::array<float, 6>& t) {
  return {{{t[0], t[3], t[4]}, {t[3], t[1], t[5]}, {t[4], t[5], t[2]}}};
}

double determinant(const Matrix& m) {
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
         m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

// Positive definite by its leading minors (Sylvester's criterion).
bool positive_definite(const Matrix& m) {
  return m[0][0] > 0 && m[0][0] * m[1][1] - m[0][1] * m[1][0] > 0 && determinant(m) > 0;
}

std::array<float, 6> inverse_tensor(const Matrix& m) {
  const double det = determinant(m);
  const auto cofactor = [&](int r, int c) {
    const int r0 = (r + 1) % 3;
    const int r1 = (r + 2) % 3;
    const int c0 = (c + 1) % 3;
    const int c1 = (c + 2) % 3;
    return m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
  };
  // The inverse of a symmetric matrix is symmetric: cofactor(c, r) / det at (r, c).
  return {static_cast<float>(cofactor(0, 0) / det), static_cast<float>(cofactor(1, 1) / det),
          static_cast<float>(cofactor(2, 2) / det), static_cast<float>(cofactor(1, 0) / det),
          static_cast<float>(cofactor(2, 0) / det), static_cast<float>(cofactor(2, 1) / det)};
}

void check_shape(const RigidShape& shape, std::size_t index) {
  const std::string which = "rigid shape " + std::to_string(index) + ": ";
  if (shape.spheres.empty() || shape.spheres.size() > RigidShape::kMaxSpheres) {
    throw Error(ErrorKind::InvalidArgument,
                which + std::to_string(shape.spheres.size()) + " spheres; 1 .. " +
                    std::to_string(RigidShape::kMaxSpheres));
  }
  for (std::size_t k = 0; k < shape.spheres.size(); ++k) {
    const ProxySphere& sphere = shape.spheres[k];
    const bool finite = std::isfinite(sphere.centre[0]) && std::isfinite(sphere.centre[1]) &&
                        std::isfinite(sphere.centre[2]) && std::isfinite(sphere.radius);
    if (!finite || !(sphere.radius > 0)) {
      throw Error(ErrorKind::InvalidArgument, which + "sphere " + std::to_string(k) +
                                                  " needs a finite centre and a radius > 0");
    }
  }
  if (!(shape.mass > 0) || !std::isfinite(shape.mass)) {
    throw Error(ErrorKind::InvalidArgument,
                which + "mass " + std::to_string(shape.mass) + "; it must be finite and > 0");
  }
  const bool finite = std::all_of(shape.inertia.begin(), shape.inertia.end(),
                                  [](float v) { return std::isfinite(v); });
  if (!finite || !positive_definite(tensor_matrix(shape.inertia))) {
    throw Error(ErrorKind::InvalidArgument, which + "the inertia tensor is not positive definite");
  }
}

std::size_t checked_count(const RigidBodies& bodies) {
  const std::size_t count = bodies.x.size();
  detail::check_sizes(
      count,
      {bodies.y.size(), bodies.z.size(), bodies.qx.size(), bodies.qy.size(), bodies.qz.size(),
       bodies.qw.size(), bodies.vx.size(), bodies.vy.size(), bodies.vz.size(), bodies.wx.size(),
       bodies.wy.size(), bodies.wz.size(), bodies.shape.empty() ? count : bodies.shape.size()},
      "rigid bodies");
  return count;
}

std::size_t checked_count(const DeviceRigidBodies& bodies) {
  const std::size_t count = bodies.x.size;
  detail::check_sizes(
      count,
      {bodies.y.size, bodies.z.size, bodies.qx.size, bodies.qy.size, bodies.qz.size,
       bodies.qw.size, bodies.vx.size, bodies.vy.size, bodies.vz.size, bodies.wx.size,
       bodies.wy.size, bodies.wz.size, bodies.shape.size == 0 ? count : bodies.shape.size},
      "rigid bodies");
  return count;
}

template <class Span>
float* raw(Span span) {
  if constexpr (requires { span.data(); }) {
    return span.data();
  } else {
    return span.data;
  }
}

template <class Bodies>
detail::BodyArrays arrays_of(const Bodies& bodies, std::size_t count, std::size_t shapes) {
  const std::uint32_t* shape = nullptr;
  if constexpr (std::is_same_v<Bodies, RigidBodies>) {
    shape = bodies.shape.empty() ? nullptr : bodies.shape.data();
  } else {
    shape = bodies.shape.size == 0 ? nullptr : bodies.shape.data;
  }
  return {raw(bodies.x),  raw(bodies.y),  raw(bodies.z),  raw(bodies.qx),
          raw(bodies.qy), raw(bodies.qz), raw(bodies.qw), raw(bodies.vx),
          raw(bodies.vy), raw(bodies.vz), raw(bodies.wx), raw(bodies.wy),
          raw(bodies.wz), shape,          static_cast<std::uint32_t>(count),
          static_cast<std::uint32_t>(shapes)};
}

}  // namespace

RigidShape RigidShape::from_solids(std::span<const SolidBox> solids,
                                   std::span<const ProxySphere> spheres, float mass) {
  if (solids.empty()) throw Error(ErrorKind::InvalidArgument, "rigid shape: no solids");
  double volume = 0;
  double moment[3] = {0, 0, 0};
  for (std::size_t k = 0; k < solids.size(); ++k) {
    double size = 1;
    for (int axis = 0; axis < 3; ++axis) {
      const double edge = double{solids[k].max[axis]} - solids[k].min[axis];
      if (!(edge > 0) || !std::isfinite(edge)) {
        throw Error(ErrorKind::InvalidArgument,
                    "rigid shape: solid " + std::to_string(k) + " is empty or inverted on axis " +
                        std::to_string(axis));
      }
      size *= edge;
    }
    volume += size;
    for (int axis = 0; axis < 3; ++axis)
      moment[axis] += size * 0.5 * (double{solids[k].min[axis]} + solids[k].max[axis]);
  }
  const double centre[3] = {moment[0] / volume, moment[1] / volume, moment[2] / volume};
  // Each box about its own centre, moved to the centre of mass (parallel axes):
  // I += m (|d|^2 E - d d^T).
  Matrix inertia{};
  for (const SolidBox& solid : solids) {
    double edge[3];
    double d[3];
    double size = 1;
    for (int axis = 0; axis < 3; ++axis) {
      edge[axis] = double{solid.max[axis]} - solid.min[axis];
      d[axis] = 0.5 * (double{solid.min[axis]} + solid.max[axis]) - centre[axis];
      size *= edge[axis];
    }
    const double m = double{mass} * size / volume;
    const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (int r = 0; r < 3; ++r) {
      const double others = edge[(r + 1) % 3] * edge[(r + 1) % 3] + edge[(r + 2) % 3] * edge[(r + 2) % 3];
      inertia[r][r] += m * others / 12.0;
      for (int c = 0; c < 3; ++c)
        inertia[r][c] += m * ((r == c ? d2 : 0.0) - d[r] * d[c]);
    }
  }
  RigidShape shape;
  shape.mass = mass;
  shape.inertia = {static_cast<float>(inertia[0][0]), static_cast<float>(inertia[1][1]),
                   static_cast<float>(inertia[2][2]), static_cast<float>(inertia[0][1]),
                   static_cast<float>(inertia[0][2]), static_cast<float>(inertia[1][2])};
  shape.origin = {static_cast<float>(centre[0]), static_cast<float>(centre[1]),
                  static_cast<float>(centre[2])};
  for (const ProxySphere& sphere : spheres) {
    shape.spheres.push_back({{static_cast<float>(sphere.centre[0] - centre[0]),
                              static_cast<float>(sphere.centre[1] - centre[1]),
                              static_cast<float>(sphere.centre[2] - centre[2])},
                             sphere.radius});
  }
  check_shape(shape, 0);
  return shape;
}

RigidWorld::RigidWorld(std::vector<RigidShape> shapes, int threads)
    : shapes_(std::move(shapes)), state_(std::make_unique<State>()) {
  state_->threads = threads;
  if (shapes_.empty()) throw Error(ErrorKind::InvalidArgument, "a rigid world needs a shape");
  for (std::size_t index = 0; index < shapes_.size(); ++index)
    check_shape(shapes_[index], index);
  for (const RigidShape& shape : shapes_) {
    detail::ShapeRecord record{};
    record.inverse_mass = 1.0f / shape.mass;
    std::copy(shape.inertia.begin(), shape.inertia.end(), record.inertia);
    const std::array<float, 6> inverse = inverse_tensor(tensor_matrix(shape.inertia));
    std::copy(inverse.begin(), inverse.end(), record.inverse_inertia);
    record.first = static_cast<std::uint32_t>(state_->table.size());
    record.count = static_cast<std::uint32_t>(shape.spheres.size());
    record.reach = 0;
    for (const ProxySphere& sphere : shape.spheres) {
      const float reach =
          std::hypot(sphere.centre[0], sphere.centre[1], sphere.centre[2]) + sphere.radius;
      record.reach = std::max(record.reach, reach);
    }
    record.reach *= 1.0001f;  // placed spheres are turned in float: a margin for rounding
    state_->records.push_back(record);
    for (const ProxySphere& sphere : shape.spheres)
      state_->table.push_back({sphere.centre[0], sphere.centre[1], sphere.centre[2], sphere.radius});
    state_->max_spheres = std::max(state_->max_spheres, record.count);
  }
}

RigidWorld::~RigidWorld() = default;
RigidWorld::RigidWorld(RigidWorld&&) noexcept = default;
RigidWorld& RigidWorld::operator=(RigidWorld&&) noexcept = default;

detail::RigidDevice& RigidWorld::State::on_device(StreamHandle stream) {
  if (!device) {
    device = std::make_unique<detail::RigidDevice>();
    device->shapes.upload(std::span<const detail::ShapeRecord>(records), stream);
    device->table.upload(std::span<const detail::SphereRecord>(table), stream);
  }
  return *device;
}

void RigidWorld::check_shapes(std::span<const std::uint32_t> shape) const {
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] >= shapes_.size()) {
      throw Error(ErrorKind::InvalidArgument,
                  "rigid body " + std::to_string(i) + " has shape " + std::to_string(shape[i]) +
                      "; the world has " + std::to_string(shapes_.size()));
    }
  }
}

void RigidWorld::bounds(const RigidBodies& bodies, AabbStore& out) {
  const std::size_t count = checked_count(bodies);
  check_shapes(bodies.shape);
  const detail::BodyArrays arrays = arrays_of(bodies, count, shapes_.size());
  out.resize(count);
  for_each_part(count, kBodiesPerThread, [&](std::size_t first, std::size_t last) {
    for (auto i = static_cast<std::uint32_t>(first); i < last; ++i) {
      float low[3];
      float high[3];
      detail::body_bounds(arrays, i, state_->records[detail::shape_of(arrays, i)],
                          state_->table.data(), low, high);
      out.min_x[i] = low[0];
      out.min_y[i] = low[1];
      out.min_z[i] = low[2];
      out.max_x[i] = high[0];
      out.max_y[i] = high[1];
      out.max_z[i] = high[2];
    }
  }, state_->threads);
}

void RigidWorld::bounds(const DeviceRigidBodies& bodies, DeviceAabbStore& out,
                        StreamHandle stream) {
  const std::size_t count = checked_count(bodies);
  detail::RigidDevice& gpu = state_->on_device(stream);
  out.resize(count);
  DeviceSpan<float> low[3] = {out.min(0), out.min(1), out.min(2)};
  DeviceSpan<float> high[3] = {out.max(0), out.max(1), out.max(2)};
  detail::launch_rigid_bounds(arrays_of(bodies, count, shapes_.size()), gpu.shapes.data(),
                              gpu.table.data(), low, high, stream);
}

void RigidWorld::collide(const RigidBodies& bodies, std::span<const Pair> pairs,
                         const RigidOptions& options) {
  const std::size_t count = checked_count(bodies);
  check_shapes(bodies.shape);
  detail::check_pairs(count, pairs);
  const detail::BodyArrays arrays = arrays_of(bodies, count, shapes_.size());
  State& state = *state_;
  if (state.device) state.device->loaded = 0;  // the last collide() is this one, on the host
  resize_host(state.placed, count * state.max_spheres, "the bodies' placed spheres");
  resize_host(state.loads, 6 * count, "the bodies' forces and torques");
  std::ranges::fill(state.loads, 0.0f);
  for_each_part(count, kBodiesPerThread, [&](std::size_t first, std::size_t last) {
    for (auto i = static_cast<std::uint32_t>(first); i < last; ++i) {
      const detail::ShapeRecord& shape = state.records[detail::shape_of(arrays, i)];
      detail::SphereRecord* mine = state.placed.data() + std::size_t{i} * state.max_spheres;
      detail::place_spheres(arrays, i, shape, state.table.data(), mine);
      if (!options.ground) continue;
      float force[3] = {0, 0, 0};
      float torque[3] = {0, 0, 0};
      detail::ground_loads(mine, shape.count, detail::motion_of(arrays, i), options, force,
                           torque);
      for (int axis = 0; axis < 3; ++axis) {
        state.loads[6 * std::size_t{i} + axis] = force[axis];
        state.loads[6 * std::size_t{i} + 3 + axis] = torque[axis];
      }
    }
  }, state_->threads);
  // Each pair's loads on threads (force on b, torque on a, torque on b), then summed per
  // body in pair order on one: the same bits for any count of threads.
  resize_host(state.pair_terms, 9 * pairs.size(), "the contact terms of the pairs");
  for_each_part(pairs.size(), kPairsPerThread, [&](std::size_t first, std::size_t last) {
    for (std::size_t k = first; k < last; ++k) {
      const Pair pair = pairs[k];
      float terms[3][3] = {};
      detail::pair_loads(state.placed.data() + std::size_t{pair.a} * state.max_spheres,
                         state.records[detail::shape_of(arrays, pair.a)],
                         state.placed.data() + std::size_t{pair.b} * state.max_spheres,
                         state.records[detail::shape_of(arrays, pair.b)],
                         detail::motion_of(arrays, pair.a), detail::motion_of(arrays, pair.b),
                         options, terms[0], terms[1], terms[2]);
      std::copy(&terms[0][0], &terms[0][0] + 9, state.pair_terms.data() + 9 * k);
    }
  }, state_->threads);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const float* terms = state.pair_terms.data() + 9 * k;  // force on b, torque on a, on b
    float* load_a = state.loads.data() + 6 * std::size_t{pairs[k].a};
    float* load_b = state.loads.data() + 6 * std::size_t{pairs[k].b};
    for (int axis = 0; axis < 3; ++axis) {
      load_b[axis] += terms[axis];
      load_a[axis] -= terms[axis];
      load_b[3 + axis] += terms[6 + axis];
      load_a[3 + axis] += terms[3 + axis];
    }
  }
}

void RigidWorld::collide(const DeviceRigidBodies& bodies, DeviceSpan<const Pair> pairs,
                         const RigidOptions& options, StreamHandle stream) {
  const std::size_t count = checked_count(bodies);
  detail::RigidDevice& gpu = state_->on_device(stream);
  state_->loads.clear();  // the last collide() is this one, on the device
  gpu.placed.resize_discarding(std::max(gpu.placed.size(), count * state_->max_spheres));
  gpu.loads.resize_discarding(std::max(gpu.loads.size(), 6 * count));
  detail::launch_rigid_collide(arrays_of(bodies, count, shapes_.size()), gpu.shapes.data(),
                               gpu.table.data(), state_->max_spheres, gpu.placed.data(), pairs, options,
                               gpu.loads.data(), stream);
  gpu.loaded = count;
}

void RigidWorld::integrate(const RigidBodies& bodies, float dt, const RigidOptions& options) {
  const std::size_t count = checked_count(bodies);
  check_shapes(bodies.shape);
  const detail::BodyArrays arrays = arrays_of(bodies, count, shapes_.size());
  const bool loaded = state_->loads.size() == 6 * count;
  for_each_part(count, kBodiesPerThread, [&](std::size_t first, std::size_t last) {
    for (auto i = static_cast<std::uint32_t>(first); i < last; ++i) {
      float load[6] = {0, 0, 0, 0, 0, 0};
      if (loaded) std::copy_n(state_->loads.data() + 6 * std::size_t{i}, 6, load);
      detail::integrate_body(arrays, i, state_->records[detail::shape_of(arrays, i)], load, dt,
                             options);
    }
  }, state_->threads);
  state_->loads.clear();  // used: the next step collides again
}

void RigidWorld::integrate(const DeviceRigidBodies& bodies, float dt, const RigidOptions& options,
                           StreamHandle stream) {
  const std::size_t count = checked_count(bodies);
  detail::RigidDevice& gpu = state_->on_device(stream);
  const long long* loads = gpu.loaded == count && count > 0 ? gpu.loads.data() : nullptr;
  detail::launch_rigid_integrate(arrays_of(bodies, count, shapes_.size()), gpu.shapes.data(),
                                 loads, dt, options, stream);
  gpu.loaded = 0;
}

}  // namespace rsw::physics
