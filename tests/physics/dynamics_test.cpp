// Gravity and sphere contacts on the CPU: known two-body values, Newton's third law (the total
// force is zero), momentum conserved and energy bounded over a leapfrog run without
// collisions, contacts that push overlapping spheres apart and only those, and bad sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "dynamics_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/dynamics.hpp"

namespace rsw::physics {
namespace {

using testing::BodySet;
using testing::random_bodies;

struct Owned {
  std::vector<float> x, y, z;
  explicit Owned(std::size_t count) : x(count), y(count), z(count) {}
  Accelerations view() { return {x, y, z}; }
};

TEST(Gravity, TwoBodiesPullEachOtherByTheInverseSquare) {
  BodySet set = random_bodies(2, 1, 0.1f, 1);
  set.arrays[0] = {0, 2};
  set.arrays[1] = {0, 0};
  set.arrays[2] = {0, 0};
  set.arrays[6] = {1, 3};
  Owned out(2);
  gravity(set.view(), out.view(), {.constant = 2, .softening = 0});
  EXPECT_FLOAT_EQ(out.x[0], 2 * 3 / 4.0f);   // G m_1 / r^2 toward +x
  EXPECT_FLOAT_EQ(out.x[1], -2 * 1 / 4.0f);  // G m_0 / r^2 toward -x
  EXPECT_FLOAT_EQ(out.y[0], 0);
}

TEST(Gravity, TheTotalForceIsZero) {
  for (const std::size_t count : {1u, 2u, 257u, 1000u}) {
    const BodySet set = random_bodies(count, 3, 0.01f, static_cast<std::uint32_t>(count));
    Owned out(count);
    gravity(set.view(), out.view(), {.softening = 0.05f}, 3);
    double total[3] = {0, 0, 0};
    double scale = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const float* a[3] = {&out.x[i], &out.y[i], &out.z[i]};
      for (int axis = 0; axis < 3; ++axis) {
        total[axis] += double{set.arrays[6][i]} * *a[axis];
        scale += std::abs(double{set.arrays[6][i]} * *a[axis]);
      }
    }
    for (const double component : total)
      EXPECT_LE(std::abs(component), 1e-5 * scale + 1e-12) << count << " bodies";
  }
}

// 300 bodies collapsing from rest in a cube, 400 leapfrog steps, gravity only: momentum stays
// put (to float rounding) and the energy moves by under 0.2% (0.01% seen) through the
// collapse, where the kinetic energy grows a hundredfold.
TEST(Gravity, LeapfrogConservesMomentumAndBoundsEnergy) {
  BodySet set = random_bodies(300, 2, 0.01f, 7);
  const GravityOptions options{.constant = 0.01f, .softening = 0.3f};
  const std::size_t n = set.size();
  Owned a(n);
  const auto momentum = [&] {
    std::array<double, 3> p{};
    for (std::size_t i = 0; i < n; ++i)
      for (int axis = 0; axis < 3; ++axis)
        p[axis] += double{set.arrays[6][i]} * set.arrays[3 + axis][i];
    return p;
  };
  const auto energy = [&] {
    return kinetic_energy(set.view()) + potential_energy(set.view(), options);
  };
  const std::array<double, 3> p0 = momentum();
  const double e0 = energy();
  const float dt = 0.01f;
  gravity(set.view(), a.view(), options);
  double largest_change = 0;
  for (int step = 0; step < 400; ++step) {
    for (std::size_t i = 0; i < n; ++i) {
      const float* acceleration[3] = {&a.x[i], &a.y[i], &a.z[i]};
      for (int axis = 0; axis < 3; ++axis) {
        set.arrays[3 + axis][i] += 0.5f * dt * *acceleration[axis];
        set.arrays[axis][i] += dt * set.arrays[3 + axis][i];
      }
    }
    gravity(set.view(), a.view(), options);
    for (std::size_t i = 0; i < n; ++i) {
      const float* acceleration[3] = {&a.x[i], &a.y[i], &a.z[i]};
      for (int axis = 0; axis < 3; ++axis)
        set.arrays[3 + axis][i] += 0.5f * dt * *acceleration[axis];
    }
    largest_change = std::max(largest_change, std::abs(energy() - e0));
  }
  const std::array<double, 3> p1 = momentum();
  for (int axis = 0; axis < 3; ++axis)
    EXPECT_NEAR(p1[axis], p0[axis], 1e-4) << "axis " << axis;
  EXPECT_LT(largest_change, 0.002 * std::abs(e0)) << "energy " << e0;
}

TEST(SphereContactsCpu, OverlappingSpheresPushApartAndOthersDoNot) {
  BodySet set = random_bodies(3, 1, 0.5f, 3);
  set.arrays[0] = {0, 0.8f, 5};  // 0 and 1 overlap by 0.2; 2 is far
  set.arrays[1] = {0, 0, 0};
  set.arrays[2] = {0, 0, 0};
  for (int axis = 3; axis < 6; ++axis)
    set.arrays[axis] = {0, 0, 0};
  set.arrays[6] = {1, 2, 1};
  Owned out(3);
  SphereContacts contacts;
  contacts.add(set.view(), std::vector<Pair>{{0, 1}, {1, 2}}, out.view(),
               {.stiffness = 10, .damping = 1});
  EXPECT_NEAR(out.x[1], 10 * 0.2f / 2, 1e-5);  // pushed along +x, divided by its mass 2
  EXPECT_NEAR(out.x[0], -10 * 0.2f / 1, 1e-5);
  EXPECT_FLOAT_EQ(out.x[2], 0);
  EXPECT_FLOAT_EQ(out.y[0], 0);
  // Separating fast enough, the dashpot cancels the spring: no pull, no push.
  set.arrays[3] = {-5, 5, 0};
  Owned quiet(3);
  contacts.add(set.view(), std::vector<Pair>{{0, 1}}, quiet.view(),
               {.stiffness = 10, .damping = 1});
  EXPECT_FLOAT_EQ(quiet.x[0], 0);
  EXPECT_FLOAT_EQ(quiet.x[1], 0);
}

TEST(DynamicsErrors, SizesAndPairsAreChecked) {
  BodySet set = random_bodies(4, 1, 0.1f, 1);
  set.arrays[6].pop_back();
  Owned out(4);
  EXPECT_THROW(gravity(set.view(), out.view(), {}), Error);
  const BodySet good = random_bodies(4, 1, 0.1f, 1);
  Owned short_out(3);
  EXPECT_THROW(gravity(good.view(), short_out.view(), {}), Error);
  SphereContacts contacts;
  EXPECT_THROW(contacts.add(good.view(), std::vector<Pair>{{1, 4}}, out.view(), {}), Error);
}

}  // namespace
}  // namespace rsw::physics
