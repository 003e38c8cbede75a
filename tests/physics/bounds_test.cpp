// CPU bounds of spheres and point sets, against a plain loop; bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bounds_checks.hpp"
#include "rsw/engine/error.hpp"

namespace rsw::test {
namespace {

TEST(Bounds, SpheresAreCentreMinusAndPlusRadius) {
  for (std::size_t count : {0u, 1u, 2u, 1009u}) {
    const Spheres spheres = make_spheres(count, static_cast<std::uint32_t>(count));
    physics::AabbStore boxes;
    physics::compute_bounds(spheres.view(), boxes);
    ASSERT_EQ(boxes.size(), count);
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_EQ(boxes.min_x[i], spheres.x[i] - spheres.radius[i]);
      EXPECT_EQ(boxes.max_y[i], spheres.y[i] + spheres.radius[i]);
      EXPECT_EQ(boxes.min_z[i], spheres.z[i] - spheres.radius[i]);
    }
  }
}

TEST(Bounds, PointSetsGiveTheSmallestBoxOfEachObject) {
  const auto sizes = awkward_object_sizes(503, 7);
  const PointSets sets = make_point_sets(sizes, 11);
  physics::AabbStore boxes;
  physics::compute_bounds(sets.view(), boxes);
  ASSERT_EQ(boxes.size(), sizes.size());
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == 0) {
      EXPECT_EQ(boxes.min_x[k], std::numeric_limits<float>::infinity()) << "the empty box";
      EXPECT_EQ(boxes.max_x[k], -std::numeric_limits<float>::infinity());
      continue;
    }
    const auto begin = sets.first[k];
    const auto end = sets.first[k + 1];
    EXPECT_EQ(boxes.min_x[k], *std::min_element(sets.x.begin() + begin, sets.x.begin() + end));
    EXPECT_EQ(boxes.max_y[k], *std::max_element(sets.y.begin() + begin, sets.y.begin() + end));
    EXPECT_EQ(boxes.min_z[k], *std::min_element(sets.z.begin() + begin, sets.z.begin() + end));
  }
}

TEST(Bounds, ANanPointMakesTheBoxInvalidForTheBroadPhase) {
  PointSets sets = make_point_sets({5, 5, 5}, 3);
  sets.y[7] = std::numeric_limits<float>::quiet_NaN();  // object 1
  physics::AabbStore boxes;
  physics::compute_bounds(sets.view(), boxes);
  EXPECT_TRUE(std::isnan(boxes.min_y[1]));
  EXPECT_TRUE(std::isnan(boxes.max_y[1]));
  physics::BroadPhase broad_phase({.backend = rsw::Backend::Cpu});
  try {
    broad_phase.update(boxes.view());
    FAIL() << "accepted a box with a NaN";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("box 1 has a non-finite coordinate on y"),
              std::string::npos)
        << error.what();
  }
}

TEST(Bounds, BadPointRangesAreRejected) {
  PointSets sets = make_point_sets({3, 4}, 5);
  physics::AabbStore boxes;
  sets.first.back() = 6;  // 7 points
  EXPECT_THROW(physics::compute_bounds(sets.view(), boxes), Error);
  sets.first = {0, 5, 3, 7};  // object 1 runs backwards
  EXPECT_THROW(physics::compute_bounds(sets.view(), boxes), Error);
  sets.first.clear();
  EXPECT_THROW(physics::compute_bounds(sets.view(), boxes), Error);
  Spheres spheres = make_spheres(4, 1);
  spheres.radius.pop_back();
  EXPECT_THROW(physics::compute_bounds(spheres.view(), boxes), Error);
}

}  // namespace
}  // namespace rsw::test
