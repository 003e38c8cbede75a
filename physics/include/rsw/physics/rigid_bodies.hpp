// rsw::physics rigid bodies: bodies with a position, an orientation quaternion, linear and
// angular velocity and a full inertia tensor, colliding through clusters of spheres fixed in
// each body. Contacts (sphere against sphere of the pairs the broad phase found, and sphere
// against a ground plane) push with a spring-dashpot law and hold with Coulomb-capped
// friction; each contact's force acts at its point, so it turns the bodies too. On the CPU and
// the GPU; each backend repeats itself bit for bit (the GPU sums forces in 64-bit fixed point,
// so the order pairs come in does not matter).
//
//   RigidWorld world({RigidShape::from_solids(boxes, spheres, 1.0f)});
//   world.bounds(bodies, aabbs);                       // each body's spheres' box
//   broad_phase.update(aabbs.view());
//   world.collide(bodies, broad_phase.find_pairs(), options);
//   world.integrate(bodies, dt, options);              // gravity, contacts, then motion
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/physics/aabb.hpp"
#include "rsw/physics/bounds.hpp"

namespace rsw::physics {

/// One sphere of a body's collision proxy.
struct ProxySphere {
  std::array<float, 3> centre{};  ///< in the body's frame
  float radius = 0;               ///< > 0
};

/// A solid box of the shape's material, for its mass properties.
struct SolidBox {
  std::array<float, 3> min{};  ///< the low corner
  std::array<float, 3> max{};  ///< the high corner (> min on every axis)
};

/// What bodies of one kind share: their collision spheres and mass properties, in body
/// coordinates whose origin is the centre of mass.
struct RSW_API RigidShape {
  std::vector<ProxySphere> spheres;  ///< at least one, at most kMaxSpheres
  float mass = 1;                    ///< > 0
  /// The inertia tensor about the centre of mass, body axes: xx, yy, zz, xy, xz, yz (positive
  /// definite).
  std::array<float, 6> inertia{1, 1, 1, 0, 0, 0};
  /// Where the centre of mass lies in the frame the shape was described in: a mesh drawn in
  /// that frame goes at position - rotate(orientation, origin).
  std::array<float, 3> origin{};

  /// Spheres a shape may have.
  static constexpr std::size_t kMaxSpheres = 64;

  /// The shape of `solids` (boxes of one density, `mass` in all; overlaps count twice) with
  /// collision `spheres` given in the same frame: finds the centre of mass and the inertia
  /// tensor, and moves the spheres into the body frame. Throws rsw::Error (InvalidArgument)
  /// for no solids, an inverted or empty box, a mass <= 0, no spheres or too many, or a
  /// radius <= 0.
  static RigidShape from_solids(std::span<const SolidBox> solids,
                                std::span<const ProxySphere> spheres, float mass);
};

/// n rigid bodies as arrays of n floats in host memory; integrate() updates them in place.
struct RigidBodies {
  /// The centre of mass.
  ///@{
  std::span<float> x, y, z;
  ///@}
  /// The orientation, a unit quaternion (x, y, z, w): body frame to world.
  ///@{
  std::span<float> qx, qy, qz, qw;
  ///@}
  /// The velocity of the centre of mass.
  ///@{
  std::span<float> vx, vy, vz;
  ///@}
  /// The angular velocity, world axes (radians per second).
  ///@{
  std::span<float> wx, wy, wz;
  ///@}
  std::span<const std::uint32_t> shape;  ///< each body's shape in the world; empty: all shape 0
};

/// RigidBodies in device memory.
struct DeviceRigidBodies {
  /// As RigidBodies.
  ///@{
  DeviceSpan<float> x, y, z;
  DeviceSpan<float> qx, qy, qz, qw;
  DeviceSpan<float> vx, vy, vz;
  DeviceSpan<float> wx, wy, wz;
  DeviceSpan<const std::uint32_t> shape;
  ///@}
};

/// The forces of a RigidWorld. A contact between spheres overlapping by delta, at relative
/// normal speed v_n and sliding speed v_t, pushes with f_n = max(0, stiffness * delta -
/// damping * v_n) and rubs with min(friction * f_n, tangential_damping * |v_t|) against the
/// slide.
struct RigidOptions {
  std::array<float, 3> gravity{0, -9.81f, 0};  ///< acceleration of every body
  bool ground = true;        ///< a plane y = ground_height under everything
  float ground_height = 0;   ///< where the ground plane lies
  float stiffness = 1e4f;           ///< normal force per unit of overlap
  float damping = 10;               ///< normal force per unit of approach speed
  float friction = 0.5f;            ///< Coulomb coefficient
  float tangential_damping = 10;    ///< sliding force per unit of sliding speed, up to the cap
  float linear_damping = 0;         ///< share of the velocity lost per second (air drag)
  float angular_damping = 0;        ///< share of the angular velocity lost per second
};

/// Shapes, and the bodies' contact forces between collide() and integrate(). Keeps its GPU
/// buffers between calls; not thread-safe.
class RSW_API RigidWorld {
 public:
  /// The CPU paths run on `threads` threads (0: one per hardware thread); the results do not
  /// depend on it. Throws rsw::Error (InvalidArgument) for no shapes or a shape that breaks
  /// RigidShape's rules.
  explicit RigidWorld(std::vector<RigidShape> shapes, int threads = 0);
  ~RigidWorld();
  /// Moves the shapes and buffers; a moved-from world may only be assigned to or destroyed.
  ///@{
  RigidWorld(RigidWorld&&) noexcept;
  RigidWorld& operator=(RigidWorld&&) noexcept;
  ///@}

  /// The shapes, in the order bodies' shape indices name them.
  const std::vector<RigidShape>& shapes() const noexcept { return shapes_; }

  /// out[i] = the box around body i's spheres. A non-finite state gives a box the broad phase
  /// rejects as invalid. Throws rsw::Error (InvalidArgument) when the arrays' sizes differ or
  /// a body names a shape past the last.
  void bounds(const RigidBodies& bodies, AabbStore& out);
  /// The same on the GPU, queued on `stream` (shape indices are checked there: an unknown
  /// one counts as shape 0).
  void bounds(const DeviceRigidBodies& bodies, DeviceAabbStore& out, StreamHandle stream = nullptr);

  /// The contact forces and torques of this state: every pair's spheres against each other
  /// and, with options.ground, every sphere against the ground. Replaces the last ones (on
  /// either backend). Throws rsw::Error (InvalidArgument) for a pair naming a body past the
  /// count, besides bounds()'s errors.
  void collide(const RigidBodies& bodies, std::span<const Pair> pairs, const RigidOptions& options);
  /// The same on the GPU, queued on `stream`; a pair naming a body past the count is skipped.
  void collide(const DeviceRigidBodies& bodies, DeviceSpan<const Pair> pairs,
               const RigidOptions& options, StreamHandle stream = nullptr);

  /// Advances the bodies by dt under gravity and the forces of the last collide(), if that ran
  /// on this backend for as many bodies and no integrate() has used them yet (otherwise
  /// gravity alone): semi-implicit Euler for the motion; the angular momentum is carried
  /// across the turn exactly, so a free body keeps it.
  void integrate(const RigidBodies& bodies, float dt, const RigidOptions& options);
  /// The same on the GPU, queued on `stream`.
  void integrate(const DeviceRigidBodies& bodies, float dt, const RigidOptions& options,
                 StreamHandle stream = nullptr);

 private:
  struct State;  // the shapes as the loops read them, placed spheres, contact loads (rigid_gpu.hpp)
  void check_shapes(std::span<const std::uint32_t> shape) const;

  std::vector<RigidShape> shapes_;
  std::unique_ptr<State> state_;
};

}  // namespace rsw::physics
