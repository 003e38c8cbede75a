// Rigid bodies on the CPU: mass properties from solids, free motion (a spinning body keeps its
// angular momentum; a falling one follows g), contacts (bodies colliding keep their momentum
// and part; a tilted box dropped on the ground comes to rest on a face, above it), bounds, repeat
// runs, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rigid_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw/physics/rigid_bodies.hpp"

namespace rsw::physics {
namespace {

using testing::RigidSet;

constexpr RigidOptions kFree{.gravity = {0, 0, 0}, .ground = false};

// L = R I R^T w of body i, in double.
std::array<double, 3> angular_momentum(const RigidShape& shape, const RigidSet& set, std::size_t i) {
  const double x = set.arrays[3][i], y = set.arrays[4][i], z = set.arrays[5][i], w = set.arrays[6][i];
  const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                          {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                          {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
  const auto& t = shape.inertia;
  const double inertia[3][3] = {{t[0], t[3], t[4]}, {t[3], t[1], t[5]}, {t[4], t[5], t[2]}};
  const double spin[3] = {set.arrays[10][i], set.arrays[11][i], set.arrays[12][i]};
  double body[3] = {0, 0, 0};  // R^T w
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k)
      body[c] += r[k][c] * spin[k];
  double turned[3] = {0, 0, 0};  // I R^T w
  for (int row = 0; row < 3; ++row)
    for (int k = 0; k < 3; ++k)
      turned[row] += inertia[row][k] * body[k];
  std::array<double, 3> momentum{0, 0, 0};
  for (int row = 0; row < 3; ++row)
    for (int k = 0; k < 3; ++k)
      momentum[row] += r[row][k] * turned[k];
  return momentum;
}

TEST(RigidShape, OneBoxHasTheTextbookInertia) {
  const SolidBox box{{0, 0, 0}, {2, 4, 6}};  // edges 2, 4, 6 about (1, 2, 3)
  const ProxySphere sphere{{1, 2, 3}, 0.5f};
  const RigidShape shape = RigidShape::from_solids({&box, 1}, {&sphere, 1}, 12.0f);
  EXPECT_FLOAT_EQ(shape.mass, 12.0f);
  EXPECT_EQ(shape.origin, (std::array<float, 3>{1, 2, 3}));
  // m / 12 (b^2 + c^2) on each axis; no products of inertia.
  EXPECT_FLOAT_EQ(shape.inertia[0], 16 + 36);
  EXPECT_FLOAT_EQ(shape.inertia[1], 4 + 36);
  EXPECT_FLOAT_EQ(shape.inertia[2], 4 + 16);
  EXPECT_FLOAT_EQ(shape.inertia[3], 0);
  EXPECT_FLOAT_EQ(shape.inertia[4], 0);
  EXPECT_FLOAT_EQ(shape.inertia[5], 0);
  ASSERT_EQ(shape.spheres.size(), 1u);
  EXPECT_EQ(shape.spheres[0].centre, (std::array<float, 3>{0, 0, 0}));
}

TEST(RigidShape, TwoCubesHaveProductsOfInertia) {
  // Unit cubes of mass 1 at (0.5, 0.5, 0.5) and (1.5, 1.5, 0.5): centre (1, 1, 0.5); each
  // 1/6 about its own centre plus m (|d|^2 E - d d^T) with d = -+(0.5, 0.5, 0).
  const SolidBox boxes[] = {{{0, 0, 0}, {1, 1, 1}}, {{1, 1, 0}, {2, 2, 1}}};
  const ProxySphere sphere{{0.5f, 0.5f, 0.5f}, 0.5f};
  const RigidShape shape = RigidShape::from_solids(boxes, {&sphere, 1}, 2.0f);
  EXPECT_EQ(shape.origin, (std::array<float, 3>{1, 1, 0.5f}));
  EXPECT_NEAR(shape.inertia[0], 2 * (1.0 / 6 + 0.25), 1e-6);
  EXPECT_NEAR(shape.inertia[1], 2 * (1.0 / 6 + 0.25), 1e-6);
  EXPECT_NEAR(shape.inertia[2], 2 * (1.0 / 6 + 0.5), 1e-6);
  EXPECT_NEAR(shape.inertia[3], -0.5, 1e-6);  // xy
  EXPECT_NEAR(shape.inertia[4], 0, 1e-6);
  EXPECT_NEAR(shape.inertia[5], 0, 1e-6);
  EXPECT_EQ(shape.spheres[0].centre, (std::array<float, 3>{-0.5f, -0.5f, 0}));
}

TEST(RigidShape, BadShapesAreErrors) {
  const SolidBox box{{0, 0, 0}, {1, 1, 1}};
  const ProxySphere sphere{{0, 0, 0}, 0.5f};
  EXPECT_THROW(RigidShape::from_solids({}, {&sphere, 1}, 1), Error);
  const SolidBox inverted{{0, 0, 0}, {1, -1, 1}};
  EXPECT_THROW(RigidShape::from_solids({&inverted, 1}, {&sphere, 1}, 1), Error);
  EXPECT_THROW(RigidShape::from_solids({&box, 1}, {&sphere, 1}, 0), Error);
  EXPECT_THROW(RigidShape::from_solids({&box, 1}, {}, 1), Error);
  const ProxySphere flat{{0, 0, 0}, 0};
  EXPECT_THROW(RigidShape::from_solids({&box, 1}, {&flat, 1}, 1), Error);
  const std::vector<ProxySphere> crowd(RigidShape::kMaxSpheres + 1, sphere);
  EXPECT_THROW(RigidShape::from_solids({&box, 1}, crowd, 1), Error);
  RigidShape skew = testing::ball(0.5f, 1);
  skew.inertia = {1, 1, 1, 2, 0, 0};  // not positive definite
  EXPECT_THROW(RigidWorld({skew}), Error);
  EXPECT_THROW(RigidWorld({}), Error);
}

TEST(RigidWorld, AFreeBodyKeepsItsAngularMomentum) {
  // A lopsided body spinning about no principal axis tumbles; its world angular momentum
  // stays put, and so does its energy, nearly.
  const SolidBox boxes[] = {{{0, 0, 0}, {3, 1, 0.5f}}, {{0, 1, 0}, {1, 2, 2}}};
  const ProxySphere sphere{{0, 0, 0}, 0.5f};
  RigidWorld world({RigidShape::from_solids(boxes, {&sphere, 1}, 2.0f)});
  RigidSet set(1);
  set.arrays[10][0] = 3;
  set.arrays[11][0] = -1;
  set.arrays[12][0] = 2;
  const std::array<double, 3> before = angular_momentum(world.shapes()[0], set, 0);
  const auto energy = [&] {
    const std::array<double, 3> l = angular_momentum(world.shapes()[0], set, 0);
    return 0.5 * (l[0] * set.arrays[10][0] + l[1] * set.arrays[11][0] + l[2] * set.arrays[12][0]);
  };
  const double energy_before = energy();
  for (int step = 0; step < 5000; ++step)
    world.integrate(set.view(), 1e-3f, kFree);
  const std::array<double, 3> after = angular_momentum(world.shapes()[0], set, 0);
  // Carried exactly in the algebra; in float, I and I^-1 round apart by about 2e-7 a step.
  // (Without it the tumble would swing L by its own size.)
  for (int axis = 0; axis < 3; ++axis)
    EXPECT_NEAR(after[axis], before[axis], 3e-3 * std::abs(before[axis]) + 1e-4) << axis;
  EXPECT_NEAR(energy(), energy_before, 0.02 * energy_before);
  const float length = std::sqrt(set.arrays[3][0] * set.arrays[3][0] +
                                 set.arrays[4][0] * set.arrays[4][0] +
                                 set.arrays[5][0] * set.arrays[5][0] +
                                 set.arrays[6][0] * set.arrays[6][0]);
  EXPECT_NEAR(length, 1.0f, 1e-6f);
  EXPECT_NE(set.arrays[6][0], 1.0f) << "it turned";
}

TEST(RigidWorld, AFallingBodyFollowsGravity) {
  RigidWorld world({testing::ball(0.5f, 2.0f)});
  RigidSet set(1);
  set.place(0, {1, 100, -1});
  const RigidOptions falling{.gravity = {0, -10, 0}, .ground = false};
  for (int step = 0; step < 100; ++step)
    world.integrate(set.view(), 0.01f, falling);
  EXPECT_NEAR(set.arrays[8][0], -10.0f, 1e-4f);  // v = g t after 1 s
  // Semi-implicit Euler: y = y0 + g dt^2 (1 + 2 + ... + 100).
  EXPECT_NEAR(set.arrays[1][0], 100.0f - 10.0f * 1e-4f * 5050.0f, 1e-3f);
  EXPECT_EQ(set.arrays[0][0], 1.0f);
  EXPECT_EQ(set.arrays[2][0], -1.0f);
}

TEST(RigidWorld, CollidingBodiesKeepTheirMomentumAndPart) {
  RigidWorld world({testing::ball(0.5f, 1.0f), testing::ball(0.5f, 3.0f)});
  RigidSet set(2);
  set.shapes = {0, 1};
  set.place(0, {-1, 0, 0.1f});  // a glancing blow: both turn as well
  set.place(1, {1, 0, -0.1f});
  set.arrays[7] = {2, -1};
  const RigidOptions options{.gravity = {0, 0, 0}, .ground = false, .stiffness = 1e4f, .damping = 5};
  const std::vector<Pair> pair = {{0, 1}};
  const auto momentum = [&](int axis) {
    return 1 * set.arrays[7 + axis][0] + 3 * set.arrays[7 + axis][1];
  };
  const float before[3] = {momentum(0), momentum(1), momentum(2)};
  for (int step = 0; step < 2000; ++step) {
    world.collide(set.view(), pair, options);
    world.integrate(set.view(), 5e-4f, options);
  }
  for (int axis = 0; axis < 3; ++axis)
    EXPECT_NEAR(momentum(axis), before[axis], 1e-4f) << axis;
  EXPECT_LT(set.arrays[7][0], 0) << "the light body bounced back";
  EXPECT_GT(set.arrays[7][1], -1) << "the heavy one was slowed";
  EXPECT_GT(set.arrays[0][1] - set.arrays[0][0], 1.0f) << "they parted";
  EXPECT_NE(set.arrays[11][0], 0) << "friction turned the light body";
}

TEST(RigidWorld, ATiltedBoxDroppedOnTheGroundComesToRestOnAFace) {
  const RigidShape box = testing::cornered_box({0.5f, 0.25f, 0.4f}, 0.1f, 1.0f);
  RigidWorld world({box});
  RigidSet set(1);
  set.place(0, {0, 1.5f, 0}, testing::turn({0.6f, 0.0f, 0.8f}, 0.7f));
  set.arrays[10][0] = 1;
  const RigidOptions options{
      .stiffness = 3e4f, .damping = 50, .friction = 0.6f, .tangential_damping = 100};
  AabbStore bounds;
  float lowest = 1e9f;
  for (int step = 0; step < 4 * 960; ++step) {  // 4 s
    world.collide(set.view(), {}, options);
    world.integrate(set.view(), 1.0f / 960, options);
    world.bounds(set.view(), bounds);
    lowest = std::min(lowest, bounds.min_y[0]);
  }
  EXPECT_GT(lowest, -0.05f) << "it never sank far into the ground";
  // At rest on a face: one of its axes vertical, the centre that half extent up (less the
  // springs' squeeze), its speed gone.
  const float qx = set.arrays[3][0], qy = set.arrays[4][0], qz = set.arrays[5][0],
              qw = set.arrays[6][0];
  const float upright[3] = {2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz),
                            2 * (qy * qz - qx * qw)};  // the body axes' y components
  const int axis = static_cast<int>(
      std::max_element(upright, upright + 3,
                       [](float a, float b) { return std::abs(a) < std::abs(b); }) -
      upright);
  EXPECT_NEAR(std::abs(upright[axis]), 1.0f, 1e-3f) << "body axis " << axis << " is vertical";
  const float half[3] = {0.5f, 0.25f, 0.4f};
  EXPECT_NEAR(set.arrays[1][0], half[axis], 0.01f);
  EXPECT_LT(std::hypot(set.arrays[7][0], set.arrays[8][0], set.arrays[9][0]), 1e-2f);
  EXPECT_LT(std::hypot(set.arrays[10][0], set.arrays[11][0], set.arrays[12][0]), 1e-2f);
}

TEST(RigidWorld, BoundsHoldEveryTurnedSphere) {
  const RigidShape box = testing::cornered_box({1, 0.5f, 0.25f}, 0.2f, 1.0f);
  RigidWorld world({box});
  RigidSet set(1);
  set.place(0, {3, 2, 1}, testing::turn({0, 0, 1}, 3.14159265f / 2));  // x -> y
  AabbStore bounds;
  world.bounds(set.view(), bounds);
  // Turned a quarter about z: the box's x half extent (1) lies along y, its y (0.5) along x.
  EXPECT_NEAR(bounds.min_x[0], 2.5f, 1e-5f);
  EXPECT_NEAR(bounds.max_x[0], 3.5f, 1e-5f);
  EXPECT_NEAR(bounds.min_y[0], 1.0f, 1e-5f);
  EXPECT_NEAR(bounds.max_y[0], 3.0f, 1e-5f);
  EXPECT_NEAR(bounds.min_z[0], 0.75f, 1e-5f);
  EXPECT_NEAR(bounds.max_z[0], 1.25f, 1e-5f);
}

TEST(RigidWorld, RunsRepeatBitForBitOnAnyCountOfThreads) {
  const auto run = [](int threads) {
    RigidWorld world({testing::cornered_box({0.3f, 0.2f, 0.1f}, 0.08f, 1), testing::ball(0.2f, 2)},
                     threads);
    RigidSet set = testing::random_rigid(5003, 12.0f, 2, 11);  // parts of 2048 bodies
    AabbStore bounds;
    BroadPhase broad_phase({.backend = Backend::Cpu});
    const RigidOptions options{.stiffness = 3e3f};
    for (int step = 0; step < 20; ++step) {
      world.bounds(set.view(), bounds);
      broad_phase.update(bounds.view());
      world.collide(set.view(), broad_phase.find_pairs(), options);
      world.integrate(set.view(), 1.0f / 240, options);
    }
    return set.arrays;
  };
  const auto one = run(1);
  EXPECT_EQ(run(1), one);
  EXPECT_EQ(run(3), one);
  EXPECT_EQ(run(8), one);
}

TEST(RigidWorld, AShapeOfSixtyFourSpheresCollidesThroughItsLast) {
  // Spheres 0..62 at the centre, sphere 63 far out on +x: a ball touching only the last one
  // is pushed away along +x.
  RigidShape crowd = testing::ball(0.1f, 1);
  crowd.spheres.assign(RigidShape::kMaxSpheres, {{0, 0, 0}, 0.1f});
  crowd.spheres.back() = {{2, 0, 0}, 0.1f};
  RigidWorld world({crowd, testing::ball(0.1f, 1)});
  RigidSet set(2);
  set.shapes = {0, 1};
  set.place(1, {2.15f, 0, 0});
  const RigidOptions options{.gravity = {0, 0, 0}, .ground = false};
  const std::vector<Pair> pair = {{0, 1}};
  world.collide(set.view(), pair, options);
  world.integrate(set.view(), 1e-3f, options);
  EXPECT_GT(set.arrays[7][1], 0) << "the ball was pushed along +x";
  EXPECT_LT(set.arrays[7][0], 0) << "the crowd was pushed back";
}

TEST(RigidWorld, BadInputIsAnError) {
  RigidWorld world({testing::ball(0.5f, 1)});
  RigidSet set(3);
  set.shapes = {0, 1, 0};  // no shape 1
  AabbStore bounds;
  EXPECT_THROW(world.bounds(set.view(), bounds), Error);
  set.shapes.clear();
  set.arrays[9].resize(2);
  EXPECT_THROW(world.integrate(set.view(), 0.01f, {}), Error);
  set.arrays[9].resize(3);
  const std::vector<Pair> past = {{0, 3}};
  EXPECT_THROW(world.collide(set.view(), past, {}), Error);
  // A body gone to NaN gives a box the broad phase names.
  set.place(1, {std::nanf(""), 0, 0});
  world.bounds(set.view(), bounds);
  BroadPhase broad_phase({.backend = Backend::Cpu});
  try {
    broad_phase.update(bounds.view());
    FAIL() << "a NaN body's box was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("box 1"), std::string::npos) << error.what();
  }
  world.bounds(RigidSet(0).view(), bounds);
  EXPECT_EQ(bounds.size(), 0u);
}

}  // namespace
}  // namespace rsw::physics
