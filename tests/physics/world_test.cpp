// World on the CPU backends: random scripts of creates, moves and destroys held to the oracle
// at every step, handles (stale, foreign and repeated ids), static proxies, invalid boxes.
#include "rsw/physics/world.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <unordered_set>

#include "rsw/engine/error.hpp"
#include "world_checks.hpp"

namespace rsw::test {
namespace {

using physics::Aabb;
using physics::Motion;
using physics::ProxyId;
using physics::ProxyPair;
using physics::World;
using physics::WorldOptions;

// The CPU backends: the sweep on threads, and brute force.
class CpuWorlds : public ::testing::TestWithParam<bool> {
 protected:
  WorldOptions options() const { return {.backend = rsw::Backend::Cpu, .brute_force = GetParam()}; }
};

INSTANTIATE_TEST_SUITE_P(Backends, CpuWorlds, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& backend) {
                           return backend.param ? "BruteForce" : "Cpu";
                         });

TEST_P(CpuWorlds, TheInterfaceExampleFindsAndLosesTheCrate) {
  World world(options());
  const ProxyId ground =
      world.create(Aabb{{-50, -1, -50}, {50, 0, 50}}, {.motion = Motion::Static});
  const ProxyId crate = world.create(Aabb{{0, 0, 0}, {1, 1, 1}});
  world.step();
  const std::vector<ProxyPair> touching = {{ground, crate}};
  EXPECT_EQ(as_vector(world.events().found), touching);
  EXPECT_TRUE(world.events().lost.empty());
  EXPECT_EQ(as_vector(world.pairs()), touching);
  world.move(crate, Aabb{{0, 5, 0}, {1, 6, 1}});
  world.step();
  EXPECT_TRUE(world.events().found.empty());
  EXPECT_EQ(as_vector(world.events().lost), touching);
  EXPECT_TRUE(world.pairs().empty());
  world.move(crate, Aabb{{0, -0.5f, 0}, {1, 0.5f, 1}});
  world.step();
  EXPECT_EQ(as_vector(world.events().found), touching);
  world.destroy(crate);
  world.step();
  EXPECT_EQ(as_vector(world.events().lost), touching);
  EXPECT_TRUE(world.pairs().empty());
  EXPECT_EQ(world.size(), 1u);
}

TEST_P(CpuWorlds, StaticProxiesNeverPairWithEachOther) {
  World world(options());
  const ProxyId a = world.create(Aabb{{0, 0, 0}, {2, 2, 2}}, {.motion = Motion::Static});
  const ProxyId b = world.create(Aabb{{1, 1, 1}, {3, 3, 3}}, {.motion = Motion::Static});
  world.step();
  EXPECT_TRUE(world.pairs().empty());
  const ProxyId c = world.create(Aabb{{1.5f, 1.5f, 1.5f}, {1.5f, 1.5f, 1.5f}});  // a point
  world.step();
  EXPECT_EQ(as_vector(world.pairs()), (std::vector<ProxyPair>{{a, c}, {b, c}}));
  EXPECT_EQ(world.stats().static_pairs, 2u);
  EXPECT_EQ(world.stats().static_proxies, 2u);
  EXPECT_EQ(world.stats().moving_proxies, 1u);
}

TEST_P(CpuWorlds, AStepWithNoChangeHasNoEvents) {
  World world(options());
  WorldModel model;
  WorldScript script(std::random_device{}(), 6);
  script.create(world, model, 200, 0.5);
  step_and_check(world, model, "first");
  step_and_check(world, model, "unchanged");
  EXPECT_TRUE(world.events().found.empty());
  EXPECT_TRUE(world.events().lost.empty());
  EXPECT_FALSE(world.stats().statics_listed);
}

TEST_P(CpuWorlds, ARandomScriptMatchesTheOracleAtEveryStep) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  World world(options());
  WorldModel model;
  WorldScript script(seed, 12);
  script.run(world, model, GetParam() ? 300 : 1000);
}

TEST_P(CpuWorlds, StaleAndForeignIdsAreErrors) {
  World world(options());
  World other(options());
  const ProxyId kept = world.create(Aabb{{0, 0, 0}, {1, 1, 1}});
  const ProxyId gone = world.create(Aabb{{0, 0, 0}, {1, 1, 1}}, {.user = 7});
  const ProxyId foreign = other.create(Aabb{{0, 0, 0}, {1, 1, 1}});
  EXPECT_EQ(world.user(gone), 7u);
  world.destroy(gone);
  const Aabb box{{0, 0, 0}, {1, 1, 1}};
  for (const ProxyId id : {gone, foreign, ProxyId{}, ProxyId{99, 1}}) {
    EXPECT_FALSE(world.contains(id));
    EXPECT_THROW(world.move(id, box), rsw::Error);
    EXPECT_THROW(world.destroy(id), rsw::Error);
    EXPECT_THROW((void)world.user(id), rsw::Error);
  }
  try {
    world.move(gone, box);
  } catch (const rsw::Error& error) {
    EXPECT_EQ(error.kind(), rsw::ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("World::move"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(world.contains(kept));
  EXPECT_EQ(world.size(), 1u);
}

TEST_P(CpuWorlds, ABatchWithAStaleOrRepeatedIdChangesNothing) {
  World world(options());
  WorldModel model;
  const Aabb box{{0, 0, 0}, {1, 1, 1}};
  const ProxyId a = world.create(box);
  const ProxyId b = world.create(box);
  const ProxyId c = world.create(box);
  world.destroy(c);
  model.proxies[a] = {box, {}};
  model.proxies[b] = {box, {}};
  const std::vector<ProxyId> stale = {a, c};
  const std::vector<Aabb> far = {Aabb{{9, 9, 9}, {10, 10, 10}}, Aabb{{9, 9, 9}, {10, 10, 10}}};
  EXPECT_THROW(world.move(stale, far), rsw::Error);
  EXPECT_THROW(world.destroy(stale), rsw::Error);
  const std::vector<ProxyId> repeated = {a, b, a};
  EXPECT_THROW(world.destroy(repeated), rsw::Error);
  const std::vector<ProxyId> two = {a, b};
  EXPECT_THROW(world.move(two, std::span(far).first(1)), rsw::Error);  // sizes differ
  step_and_check(world, model, "after the refused calls");
  EXPECT_EQ(world.pairs().size(), 1u);
}

TEST_P(CpuWorlds, SlotsAreReusedWithANewGenerationAfterTwoSteps) {
  World world(options());
  const Aabb box{{0, 0, 0}, {1, 1, 1}};
  const ProxyId first = world.create(box);
  const ProxyId partner = world.create(box);
  world.step();
  world.destroy(first);
  world.step();  // reports (first, partner) lost
  EXPECT_EQ(as_vector(world.events().lost), (std::vector<ProxyPair>{{first, partner}}));
  const ProxyId during = world.create(box);  // the slot still names `first` in the events
  EXPECT_NE(during.index, first.index);
  world.step();
  world.destroy(during);
  const ProxyId reused = world.create(box);
  EXPECT_EQ(reused.index, first.index);
  EXPECT_NE(reused.generation, first.generation);
  EXPECT_FALSE(world.contains(first));
  EXPECT_THROW(world.move(first, box), rsw::Error);
  EXPECT_TRUE(world.contains(reused));
  std::unordered_set<ProxyId> ids = {first, partner, during, reused};
  EXPECT_EQ(ids.size(), 4u);
}

TEST_P(CpuWorlds, InvalidBoxesAreRejectedAtTheCallOrExcluded) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Aabb bad{{0, nan, 0}, {1, 1, 1}};
  const Aabb inverted{{0, 2, 0}, {1, 1, 1}};
  const Aabb good{{0, 0, 0}, {1, 1, 1}};
  {
    World world(options());
    const ProxyId id = world.create(good);
    EXPECT_THROW(world.create(bad), rsw::Error);
    EXPECT_THROW(world.move(id, inverted), rsw::Error);
    const std::vector<Aabb> boxes = {good, bad};
    std::vector<ProxyId> ids(2);
    EXPECT_THROW(world.create(boxes, {}, ids), rsw::Error);
    EXPECT_EQ(world.size(), 1u);
  }
  WorldOptions excluding = options();
  excluding.invalid_boxes = physics::InvalidBoxes::Exclude;
  World world(excluding);
  WorldModel model;
  for (const Aabb& box : {good, bad, inverted, good}) {
    for (const Motion motion : {Motion::Moving, Motion::Static})
      model.proxies[world.create(box, {.motion = motion})] = {box, {.motion = motion}};
  }
  step_and_check(world, model, "with excluded boxes");
  EXPECT_EQ(world.stats().excluded_proxies, 4u);
}

TEST_P(CpuWorlds, MassCreationAndDestructionAndRefilling) {
  World world(options());
  WorldModel model;
  WorldScript script(std::random_device{}(), 14);
  script.create(world, model, 1500, 0.9);
  step_and_check(world, model, "filled");
  script.destroy(world, model, 1.0);
  step_and_check(world, model, "emptied");
  EXPECT_EQ(world.stats().pairs, 0u);
  step_and_check(world, model, "empty");
  script.create(world, model, 900, 0.0);
  step_and_check(world, model, "refilled, all moving");
}

TEST_P(CpuWorlds, ProxiesOfDifferentWorldsNeverPairAndSharedOnesPairWithAll) {
  World world(options());
  const ProxyId ground = world.create(Aabb{{-50, -1, -50}, {50, 0, 50}},
                                      {.motion = Motion::Static, .world = physics::kAllWorlds});
  const Aabb crate_box{{0, 0, 0}, {1, 1, 1}};
  const ProxyId first = world.create(crate_box, {.world = 3});
  const ProxyId copy = world.create(crate_box, {.world = physics::kMaxWorld});
  const ProxyId neighbour = world.create(crate_box, {.world = 3});
  world.step();
  std::vector<ProxyPair> expected = {
      {ground, first}, {ground, copy}, {ground, neighbour}, {first, neighbour}};
  std::ranges::sort(expected);
  EXPECT_EQ(as_vector(world.pairs()), expected);
  EXPECT_EQ(as_vector(world.events().found), expected);
  // A shared moving box meets every world's crates.
  const ProxyId shared =
      world.create(Aabb{{0.5f, 0.5f, 0.5f}, {2, 2, 2}}, {.world = physics::kAllWorlds});
  world.step();
  std::vector<ProxyPair> found = {{first, shared}, {copy, shared}, {neighbour, shared}};
  std::ranges::sort(found);
  EXPECT_EQ(as_vector(world.events().found), found);
  EXPECT_TRUE(world.events().lost.empty());
}

TEST_P(CpuWorlds, ARandomScriptWithWorldsMatchesTheOracleAtEveryStep) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  World world(options());
  WorldModel model;
  WorldScript script(seed, 10);
  script.use_worlds();
  script.run(world, model, GetParam() ? 200 : 500);
}

TEST_P(CpuWorlds, RegionQueriesMatchTheOracleBetweenAndAfterSteps) {
  // Random edits, each round queried before its step (the boxes as moved so far) and after.
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  World world(options());
  WorldModel model;
  WorldScript script(seed, 10);
  script.use_worlds();
  script.create(world, model, 300, 0.5);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    script.edit_round(world, model, round);
    script.query_step_query(
        world, model, [&](std::span<const Aabb> regions, const physics::QueryOptions& query) {
          const std::span<const physics::QueryHit> hits = world.query(regions, query);
          return std::vector(hits.begin(), hits.end());
        });
    if (HasFatalFailure()) return;
  }
}

TEST_P(CpuWorlds, RayQueriesMatchTheOracleBetweenAndAfterSteps) {
  // Random edits, each round cast before its step (the boxes as moved so far) and after.
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  World world(options());
  WorldModel model;
  WorldScript script(seed, 10);
  script.use_worlds();
  script.create(world, model, 300, 0.5);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    script.edit_round(world, model, round);
    script.raycast_step_raycast(
        world, model, [&](std::span<const physics::Ray> rays, const physics::RaycastOptions& cast) {
          const std::span<const physics::RayHit> hits = world.raycast(rays, cast);
          return std::vector(hits.begin(), hits.end());
        });
    if (HasFatalFailure()) return;
  }
}

TEST_P(CpuWorlds, AwkwardRaysMatchTheOracle) {
  World world(options());
  rsw::test::check_awkward_rays(
      world, [](World& w, std::span<const physics::Ray> rays, const physics::RaycastOptions& cast) {
        const std::span<const physics::RayHit> hits = w.raycast(rays, cast);
        return std::vector(hits.begin(), hits.end());
      });
}

TEST_P(CpuWorlds, AnInvalidRayOrWorldIsAnErrorNamingIt) {
  World world(options());
  world.create(Aabb{{0, 0, 0}, {1, 1, 1}});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<physics::Ray> rays(4, physics::Ray{{0.5f, 0.5f, -1}, {0, 0, 1}, inf});
  // Each bad ray at index 2, and what the message says of it.
  for (const auto& [bad, what] : {std::pair{physics::Ray{{0, 0, 0}, {nan, 0, 1}, 1}, "direction ("},
                                  std::pair{physics::Ray{{inf, 0, 0}, {0, 0, 1}, 1}, "origin (inf"},
                                  std::pair{physics::Ray{{0, 0, 0}, {0, 0, 1}, -1}, "max_t -1.0"},
                                  std::pair{physics::Ray{{0, 0, 0}, {0, 0, 1}, nan}, "max_t"}}) {
    rays[2] = bad;
    try {
      world.raycast(rays);
      FAIL() << "a ray that cannot be cast was taken: " << what;
    } catch (const Error& error) {
      const std::string message = error.what();
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
      EXPECT_NE(message.find("World::raycast: rays[2] cannot be cast"), std::string::npos)
          << message;
      EXPECT_NE(message.find(what), std::string::npos) << message;
    }
  }
  rays[2] = rays[0];
  EXPECT_THROW(world.raycast(std::span(rays).first(1), {.world = physics::kMaxWorld + 1}), Error);
  EXPECT_EQ(world.raycast(std::span(rays).first(2)).size(), 2u) << "the world is whole after";
  EXPECT_TRUE(world.raycast(std::span<const physics::Ray>{}).empty());
}

TEST_P(CpuWorlds, AnInvalidRegionOrWorldIsAnErrorNamingIt) {
  World world(options());
  world.create(Aabb{{0, 0, 0}, {1, 1, 1}});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Aabb> regions = {{{0, 0, 0}, {1, 1, 1}},
                                     {{0, 0, 0}, {1, 1, 1}},
                                     {{0, 2, 0}, {1, 1, 1}},
                                     {{nan, 0, 0}, {1, 1, 1}}};
  try {
    world.query(regions);
    FAIL() << "an inverted region was taken";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("World::query: regions: box 2 has min > max on y"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(world.query(std::span(regions).first(1), {.world = physics::kMaxWorld + 1}), Error);
  EXPECT_EQ(world.query(std::span(regions).first(2)).size(), 2u) << "the world is whole after";
  EXPECT_TRUE(world.query(std::span<const Aabb>{}).empty());

  // An invalid proxy box (InvalidBoxes::Exclude) meets no region.
  WorldOptions excluding = options();
  excluding.invalid_boxes = physics::InvalidBoxes::Exclude;
  World lenient(excluding);
  lenient.create(Aabb{{0, 0, 0}, {nan, 1, 1}});
  const ProxyId valid = lenient.create(Aabb{{0, 0, 0}, {1, 1, 1}});
  const Aabb everything{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
  const std::span<const physics::QueryHit> hits = lenient.query(std::span(&everything, 1));
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].proxy, valid);
}

TEST_P(CpuWorlds, AWorldIdOutOfRangeIsAnErrorAndCreatesNothing) {
  World world(options());
  const std::vector<Aabb> boxes(3, Aabb{{0, 0, 0}, {1, 1, 1}});
  std::vector<ProxyId> ids(3);
  for (const std::uint32_t bad : {physics::kMaxWorld + 1, 0xFFFFFFFEu}) {
    try {
      world.create(boxes, {.world = bad}, ids);
      FAIL() << "world " << bad << " was taken";
    } catch (const rsw::Error& error) {
      EXPECT_EQ(error.kind(), rsw::ErrorKind::InvalidArgument);
      EXPECT_NE(std::string(error.what()).find("ProxyOptions::world is " + std::to_string(bad)),
                std::string::npos)
          << error.what();
    }
  }
  EXPECT_EQ(world.size(), 0u);
  world.create(boxes, {.world = physics::kMaxWorld}, ids);
  world.step();
  EXPECT_EQ(world.pairs().size(), 3u);
}

}  // namespace
}  // namespace rsw::test
