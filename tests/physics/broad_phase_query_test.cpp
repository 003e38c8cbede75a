// BroadPhase::query and BroadPhase::raycast on the CPU backends: random frames (invalid boxes
// excluded, filter bits and worlds) asked random regions and rays, from AoS and SoA host
// arrays, held to the oracle; the last frame's boxes and no other; the errors.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "box_query_checks.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/broad_phase.hpp"

namespace rsw::test {
namespace {

using physics::Aabb;
using physics::BroadPhase;
using physics::BroadPhaseOptions;
using physics::Ray;

class CpuBroadPhaseQueries : public ::testing::TestWithParam<bool> {
 protected:
  BroadPhaseOptions options() const {
    return {.backend = rsw::Backend::Cpu,
            .brute_force = GetParam(),
            .invalid_boxes = physics::InvalidBoxes::Exclude};
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, CpuBroadPhaseQueries, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& backend) {
                           return backend.param ? "BruteForce" : "Cpu";
                         });

// Frames of 0, 1, 2, 97 and 1009 boxes, each asked 0, 1 and 211 regions and rays with
// several options, from AoS and SoA arrays.
TEST_P(CpuBroadPhaseQueries, RegionsAndRaysMatchTheOracle) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 generator(seed);
  BroadPhase broad_phase(options());
  for (const std::size_t count : {0u, 1u, 2u, 97u, 1009u}) {
    for (const bool soa : {false, true}) {
      SCOPED_TRACE(std::to_string(count) + " boxes" + (soa ? ", SoA" : ", AoS"));
      const float side = 2 + std::cbrt(static_cast<float>(count));
      const QueryFrame frame = random_query_frame(generator, count, side, count % 2 == 1);
      physics::AabbStore store;
      store.assign(frame.boxes);
      if (soa) {
        broad_phase.update(store.view(), frame.filter());
      } else {
        broad_phase.update(frame.boxes, frame.filter());
      }
      for (const std::size_t queries : {0u, 1u, 211u}) {
        const std::vector<Aabb> regions = random_regions(generator, queries, side);
        const std::vector<Ray> rays = random_rays(generator, frame, queries, side);
        for (const physics::QueryOptions query :
             {physics::QueryOptions{}, physics::QueryOptions{.mask = 2},
              physics::QueryOptions{.world = 1}}) {
          const std::span<const physics::BoxQueryHit> hits = broad_phase.query(regions, query);
          ASSERT_EQ(std::vector(hits.begin(), hits.end()), oracle_box_query(frame, regions, query))
              << queries << " regions, mask " << query.mask << ", world " << query.world;
        }
        for (const physics::RaycastOptions cast :
             {physics::RaycastOptions{}, physics::RaycastOptions{.all_hits = true},
              physics::RaycastOptions{.mask = 4, .world = 2}}) {
          const std::span<const physics::BoxRayHit> hits = broad_phase.raycast(rays, cast);
          ASSERT_TRUE(same_box_hits(hits, oracle_box_raycast(frame, rays, cast)))
              << queries << " rays, all_hits " << cast.all_hits << ", mask " << cast.mask;
        }
      }
    }
  }
}

TEST_P(CpuBroadPhaseQueries, QueriesSeeTheLastFrameOnly) {
  BroadPhase broad_phase(options());
  const Aabb everything{{-10, -10, -10}, {10, 10, 10}};
  const Ray down{{0.5f, 5, 0.5f}, {0, -1, 0}};
  EXPECT_TRUE(broad_phase.query(std::span(&everything, 1)).empty()) << "no frame yet";
  EXPECT_TRUE(broad_phase.raycast(std::span(&down, 1)).empty()) << "no frame yet";
  const std::vector<Aabb> first = {{{0, 0, 0}, {1, 1, 1}}, {{0, 2, 0}, {1, 3, 1}}};
  broad_phase.update(first);
  ASSERT_EQ(broad_phase.query(std::span(&everything, 1)).size(), 2u);
  ASSERT_EQ(broad_phase.raycast(std::span(&down, 1)).size(), 1u);
  EXPECT_EQ(broad_phase.raycast(std::span(&down, 1))[0].box, 1u);
  EXPECT_EQ(broad_phase.raycast(std::span(&down, 1))[0].t, 2.0f);
  const std::vector<Aabb> second = {{{0, -2, 0}, {1, -1, 1}}};
  broad_phase.update(second);
  const std::span<const physics::BoxRayHit> hits = broad_phase.raycast(std::span(&down, 1));
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].box, 0u);
  EXPECT_EQ(hits[0].t, 6.0f);
  // A frame that fails leaves no frame to ask.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  BroadPhaseOptions rejecting = options();
  rejecting.invalid_boxes = physics::InvalidBoxes::Reject;
  broad_phase.set_options(rejecting);
  const std::vector<Aabb> bad = {{{0, 0, 0}, {nan, 1, 1}}};
  EXPECT_THROW(broad_phase.update(bad), Error);
  EXPECT_TRUE(broad_phase.query(std::span(&everything, 1)).empty());
  EXPECT_TRUE(broad_phase.raycast(std::span(&down, 1)).empty());
}

TEST_P(CpuBroadPhaseQueries, TheFirstQueryOfAFrameReadsItsWorlds) {
  // The same boxes in two frames, their worlds swapped: a query of world 1 asked first after
  // each update() sees that frame's worlds.
  BroadPhase broad_phase(options());
  const std::vector<Aabb> boxes = {{{0, 0, 0}, {1, 1, 1}}, {{2, 0, 0}, {3, 1, 1}}};
  const Aabb everything{{-10, -10, -10}, {10, 10, 10}};
  const Ray along{{-1, 0.5f, 0.5f}, {1, 0, 0}};
  const std::vector<std::uint32_t> first_worlds = {1, 0};
  const std::vector<std::uint32_t> second_worlds = {0, 1};
  for (const auto& [worlds, box] : {std::pair{&first_worlds, 0u}, std::pair{&second_worlds, 1u}}) {
    broad_phase.update(boxes, {{}, {}, *worlds});
    const std::span<const physics::BoxQueryHit> hits =
        broad_phase.query(std::span(&everything, 1), {.world = 1});
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].box, box);
    broad_phase.update(boxes, {{}, {}, *worlds});
    const std::span<const physics::BoxRayHit> ray_hits =
        broad_phase.raycast(std::span(&along, 1), {.world = 1});
    ASSERT_EQ(ray_hits.size(), 1u);
    EXPECT_EQ(ray_hits[0].box, box);
  }
}

TEST_P(CpuBroadPhaseQueries, AnInvalidRegionRayOrWorldIsAnErrorNamingIt) {
  BroadPhase broad_phase(options());
  const std::vector<Aabb> boxes = {{{0, 0, 0}, {1, 1, 1}}};
  broad_phase.update(boxes);
  const std::vector<Aabb> regions = {{{0, 0, 0}, {1, 1, 1}}, {{0, 2, 0}, {1, 1, 1}}};
  try {
    broad_phase.query(regions);
    FAIL() << "an inverted region was taken";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(
        std::string(error.what()).find("BroadPhase::query: regions: box 1 has min > max on y"),
        std::string::npos)
        << error.what();
  }
  const std::vector<Ray> rays = {{{0, 0, -1}, {0, 0, 1}},
                                 {{0, 0, -1}, {0, std::numeric_limits<float>::infinity(), 1}}};
  try {
    broad_phase.raycast(rays);
    FAIL() << "a ray with an infinite direction was taken";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("BroadPhase::raycast: rays[1] cannot be cast"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(broad_phase.query(std::span(regions).first(1), {.world = physics::kMaxWorld + 1}),
               Error);
  EXPECT_THROW(broad_phase.raycast(std::span(rays).first(1), {.world = physics::kMaxWorld + 1}),
               Error);
  EXPECT_EQ(broad_phase.query(std::span(regions).first(1)).size(), 1u) << "whole after";
  EXPECT_EQ(broad_phase.raycast(std::span(rays).first(1)).size(), 1u) << "whole after";
}

}  // namespace
}  // namespace rsw::test
