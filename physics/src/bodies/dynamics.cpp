#include "rsw/physics/dynamics.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "dynamics_gpu.hpp"
#include "dynamics_math.hpp"
#include "argument_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/parallel.hpp"

namespace rsw::physics {
namespace {

std::size_t checked_count(const SphereBodies& bodies) {
  const std::size_t count = bodies.x.size();
  detail::check_sizes(count,
                      {bodies.y.size(), bodies.z.size(), bodies.vx.size(), bodies.vy.size(),
                       bodies.vz.size(), bodies.mass.size(), bodies.radius.size()},
                      "sphere bodies");
  return count;
}

std::size_t checked_count(const DeviceSphereBodies& bodies) {
  const std::size_t count = bodies.x.size;
  detail::check_sizes(count,
                      {bodies.y.size, bodies.z.size, bodies.vx.size, bodies.vy.size, bodies.vz.size,
                       bodies.mass.size, bodies.radius.size},
                      "sphere bodies");
  return count;
}

void check_out(std::size_t bodies, std::size_t x, std::size_t y, std::size_t z) {
  if (x != bodies || y != bodies || z != bodies) {
    throw Error(ErrorKind::InvalidArgument,
                "accelerations: " + std::to_string(x) + ", " + std::to_string(y) + " and " +
                    std::to_string(z) + " entries for " + std::to_string(bodies) + " bodies");
  }
}

}  // namespace

void gravity(const SphereBodies& bodies, Accelerations out, const GravityOptions& options,
             int threads) {
  const std::size_t count = checked_count(bodies);
  check_out(count, out.x.size(), out.y.size(), out.z.size());
  const float softening_squared = options.softening * options.softening;
  const auto rows = [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      float ax = 0;
      float ay = 0;
      float az = 0;
      for (std::size_t j = 0; j < count; ++j) {
        detail::add_pull(bodies.x[i], bodies.y[i], bodies.z[i], bodies.x[j], bodies.y[j],
                         bodies.z[j], bodies.mass[j], softening_squared, ax, ay, az);
      }
      out.x[i] = options.constant * ax;
      out.y[i] = options.constant * ay;
      out.z[i] = options.constant * az;
    }
  };
  for_each_part(count, 64, rows, threads);
}

void gravity(const DeviceSphereBodies& bodies, DeviceAccelerations out,
             const GravityOptions& options, StreamHandle stream) {
  const std::size_t count = checked_count(bodies);
  check_out(count, out.x.size, out.y.size, out.z.size);
  if (count > 0) detail::launch_gravity(bodies, out, options, stream);
}

void SphereContacts::add(const SphereBodies& bodies, std::span<const Pair> pairs, Accelerations out,
                         const ContactOptions& options) {
  const std::size_t count = checked_count(bodies);
  check_out(count, out.x.size(), out.y.size(), out.z.size());
  detail::check_pairs(count, pairs);
  const std::span<float> axes[3] = {out.x, out.y, out.z};
  for (const Pair& pair : pairs) {
    const std::uint32_t a = pair.a;
    const std::uint32_t b = pair.b;
    const float pa[3] = {bodies.x[a], bodies.y[a], bodies.z[a]};
    const float pb[3] = {bodies.x[b], bodies.y[b], bodies.z[b]};
    const float va[3] = {bodies.vx[a], bodies.vy[a], bodies.vz[a]};
    const float vb[3] = {bodies.vx[b], bodies.vy[b], bodies.vz[b]};
    float force[3];
    detail::contact_force(pa, pb, va, vb, bodies.radius[a], bodies.radius[b], options.stiffness,
                          options.damping, force);
    for (int axis = 0; axis < 3; ++axis) {
      axes[axis][b] += force[axis] / bodies.mass[b];
      axes[axis][a] -= force[axis] / bodies.mass[a];
    }
  }
}

void SphereContacts::add(const DeviceSphereBodies& bodies, DeviceSpan<const Pair> pairs,
                         DeviceAccelerations out, const ContactOptions& options,
                         StreamHandle stream) {
  const std::size_t count = checked_count(bodies);
  check_out(count, out.x.size, out.y.size, out.z.size);
  if (count == 0) return;
  sums_.resize_discarding(std::max(sums_.size(), 3 * count));
  detail::launch_contacts(bodies, pairs, out, options, sums_.data(), stream);
}

double kinetic_energy(const SphereBodies& bodies) {
  const std::size_t count = checked_count(bodies);
  double energy = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double speed_squared = double{bodies.vx[i]} * bodies.vx[i] +
                                 double{bodies.vy[i]} * bodies.vy[i] +
                                 double{bodies.vz[i]} * bodies.vz[i];
    energy += 0.5 * bodies.mass[i] * speed_squared;
  }
  return energy;
}

double potential_energy(const SphereBodies& bodies, const GravityOptions& options) {
  const std::size_t count = checked_count(bodies);
  const double softening_squared = double{options.softening} * options.softening;
  double energy = 0;
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t j = i + 1; j < count; ++j) {
      const double dx = double{bodies.x[j]} - bodies.x[i];
      const double dy = double{bodies.y[j]} - bodies.y[i];
      const double dz = double{bodies.z[j]} - bodies.z[i];
      energy -= double{bodies.mass[i]} * bodies.mass[j] /
                std::sqrt(dx * dx + dy * dy + dz * dz + softening_squared);
    }
  }
  return options.constant * energy;
}

}  // namespace rsw::physics
