// World on the GPU: random scripts held to the oracle at every step, the GPU's pairs and
// events equal to the CPU backend's on the same script and on large worlds, device arrays in
// and out, and stale ids and invalid boxes from device arrays reported at the step.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/world.hpp"
#include "rsw/workloads/box_scenes.hpp"
#include "rsw_test/cuda_device.hpp"
#include "rsw_test/scoped_environment.hpp"
#include "world_checks.hpp"

namespace rsw::test {
namespace {

using physics::Aabb;
using physics::Motion;
using physics::ProxyId;
using physics::ProxyPair;
using physics::World;

// A step's sets by slot (generations differ between worlds: each world seeds its own), each
// sorted (the GPU's events come in the order found).
struct SlotSets {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs, found, lost;
  friend bool operator==(const SlotSets&, const SlotSets&) = default;
};

std::vector<std::pair<std::uint32_t, std::uint32_t>> by_slot(std::span<const ProxyPair> pairs) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (const ProxyPair& p : pairs)
    out.emplace_back(p.a.index, p.b.index);
  std::ranges::sort(out);
  return out;
}

SlotSets slot_sets(World& world) {
  return {by_slot(world.pairs()), by_slot(world.events().found), by_slot(world.events().lost)};
}

// A random script on a GPU world, held to the oracle at every step (WorldScript::run).
struct Script {
  int steps = 1000;
  float region = 12;  ///< WorldScript's
  bool sorted_events = false;
  bool statics = true;
  int steps_before_worlds = -1;  ///< proxies in worlds from this step on; -1: never
};

void expect_script_to_match_the_oracle(const Script& run) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  World world({.backend = rsw::Backend::Cuda, .sorted_events = run.sorted_events});
  WorldModel model;
  WorldScript script(seed, run.region);
  if (!run.statics) script.without_statics();
  if (run.steps_before_worlds >= 0) {
    script.run(world, model, run.steps_before_worlds);
    if (::testing::Test::HasFatalFailure()) return;
    script.use_worlds();
  }
  script.run(world, model, run.steps);
}

TEST(WorldGpu, ARandomScriptMatchesTheOracleAtEveryStep) {
  RSW_REQUIRE_CUDA_DEVICE();
  expect_script_to_match_the_oracle({});
}

TEST(WorldGpu, ARandomScriptWithWorldsMatchesTheOracleAtEveryStep) {
  RSW_REQUIRE_CUDA_DEVICE();
  expect_script_to_match_the_oracle({.steps = 600, .region = 10, .steps_before_worlds = 0});
}

TEST(WorldGpu, ARandomScriptWithSortedEventsMatchesTheOracleInOrder) {
  RSW_REQUIRE_CUDA_DEVICE();
  expect_script_to_match_the_oracle({.steps = 300, .sorted_events = true});
}

TEST(WorldGpu, TheSameScriptGivesTheCpuBackendsSetsAndTheDeviceSpansAgree) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  World gpu({.backend = rsw::Backend::Cuda});
  World cpu({.backend = rsw::Backend::Cpu});
  WorldModel gpu_model;
  WorldModel cpu_model;
  WorldScript gpu_script(seed, 10);
  WorldScript cpu_script(seed, 10);
  for (int step = 0; step < 100; ++step) {
    gpu_script.run(gpu, gpu_model, 1);
    cpu_script.run(cpu, cpu_model, 1);
    ASSERT_FALSE(HasFatalFailure());
    ASSERT_EQ(slot_sets(gpu), slot_sets(cpu)) << "step " << step;
    EXPECT_EQ(to_host(gpu.pairs_device()), as_vector(gpu.pairs()));
    EXPECT_EQ(to_host(gpu.events_device().found), as_vector(gpu.events().found));
    EXPECT_EQ(to_host(gpu.events_device().lost), as_vector(gpu.events().lost));
    EXPECT_EQ(to_host(cpu.pairs_device()), as_vector(cpu.pairs()));
  }
}

// The first `statics` boxes static, the rest moving: for four steps, each moving box nudged
// between them, the GPU's sets equal the CPU backend's.
void expect_gpu_equals_cpu(std::vector<Aabb> boxes, std::size_t statics, std::uint32_t seed) {
  const std::size_t count = boxes.size();
  std::mt19937 generator(seed);
  World gpu({.backend = rsw::Backend::Cuda});
  World cpu({.backend = rsw::Backend::Cpu});
  std::vector<ProxyId> gpu_ids(count);
  std::vector<ProxyId> cpu_ids(count);
  for (World* world : {&gpu, &cpu}) {
    std::vector<ProxyId>& ids = world == &gpu ? gpu_ids : cpu_ids;
    world->create(std::span(boxes).first(statics), {.motion = Motion::Static},
                  std::span(ids).first(statics));
    world->create(std::span(boxes).subspan(statics), {}, std::span(ids).subspan(statics));
  }
  std::uniform_real_distribution<float> nudge(-0.05f, 0.05f);
  for (int step = 0; step < 4; ++step) {
    gpu.step();
    cpu.step();
    ASSERT_EQ(slot_sets(gpu), slot_sets(cpu)) << "step " << step;
    EXPECT_EQ(gpu.stats().static_pairs, cpu.stats().static_pairs);
    EXPECT_EQ(gpu.stats().moving_pairs, cpu.stats().moving_pairs);
    for (std::size_t i = statics; i < count; ++i) {
      const physics::Vec3 d{nudge(generator), nudge(generator), nudge(generator)};
      boxes[i].min = {boxes[i].min.x + d.x, boxes[i].min.y + d.y, boxes[i].min.z + d.z};
      boxes[i].max = {boxes[i].max.x + d.x, boxes[i].max.y + d.y, boxes[i].max.z + d.z};
    }
    gpu.move(std::span(gpu_ids).subspan(statics), std::span(boxes).subspan(statics));
    cpu.move(std::span(cpu_ids).subspan(statics), std::span(boxes).subspan(statics));
  }
}

// Large worlds, beyond the oracle: the GPU's sets equal the CPU backend's. A share of statics
// too small for their grid to serve the moving proxies gives those a sweep of their own.
class WorldGpuLarge
    : public ::testing::TestWithParam<std::tuple<std::size_t, double, workloads::BoxScene>> {};

TEST_P(WorldGpuLarge, EqualsTheCpuBackendOverSteps) {
  RSW_REQUIRE_CUDA_DEVICE();
  const auto [count, static_share, scene] = GetParam();
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto statics = static_cast<std::size_t>(static_share * static_cast<double>(count));
  expect_gpu_equals_cpu(workloads::make_boxes(count, scene, seed), statics, seed);
}

// Statics far larger than the moving boxes plan cells that hold thousands of them: the first
// step sweeps them in those cells, the next ones apart. Both are exact.
TEST(WorldGpu, MovingBoxesCrowdedInLargeStaticCellsAreSweptExactly) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 generator(seed);
  std::vector<Aabb> boxes;
  for (int x = 0; x < 8; ++x) {  // tiles 16 wide, side by side
    for (int z = 0; z < 8; ++z) {
      const float x0 = 16.0f * static_cast<float>(x);
      const float z0 = 16.0f * static_cast<float>(z);
      boxes.push_back({{x0, -1, z0}, {x0 + 16, 0, z0 + 16}});
    }
  }
  const std::size_t statics = boxes.size();
  std::uniform_real_distribution<float> across(0.0f, 30.0f);
  std::uniform_real_distribution<float> along(-1.0f, 9.0f);
  for (int i = 0; i < 2003; ++i) {  // a crowded column over a few tiles, in one cell
    const physics::Vec3 low{along(generator), across(generator), across(generator)};
    boxes.push_back({low, {low.x + 0.5f, low.y + 0.5f, low.z + 0.5f}});
  }
  expect_gpu_equals_cpu(std::move(boxes), statics, seed);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, WorldGpuLarge,
    ::testing::Values(std::tuple{std::size_t{100'003}, 0.9, workloads::BoxScene::Uniform},
                      std::tuple{std::size_t{65'537}, 0.0, workloads::BoxScene::Uniform},
                      std::tuple{std::size_t{30'011}, 0.5, workloads::BoxScene::Mixed},
                      std::tuple{std::size_t{20'011}, 0.7, workloads::BoxScene::GiantBox},
                      std::tuple{std::size_t{20'011}, 0.6, workloads::BoxScene::Clustered},
                      std::tuple{std::size_t{10'007}, 0.9, workloads::BoxScene::TouchingGrid},
                      std::tuple{std::size_t{20'011}, 0.0002, workloads::BoxScene::Uniform},
                      std::tuple{std::size_t{1}, 0.0, workloads::BoxScene::Uniform},
                      std::tuple{std::size_t{2}, 1.0, workloads::BoxScene::Uniform}));

// A round of edits as WorldScript::edit_round, but every other round's moves from device
// arrays (the boxes on the device).
void edit_round_partly_on_device(World& world, WorldModel& model, WorldScript& script, int round) {
  if (round % 2 == 0) {
    script.edit_round(world, model, round);
    return;
  }
  std::vector<ProxyId> ids;
  std::vector<Aabb> boxes;
  for (auto& [id, proxy] : model.proxies) {
    if (proxy.options.motion == Motion::Static || ids.size() > 100) continue;
    proxy.box = script.random_box();
    ids.push_back(id);
    boxes.push_back(proxy.box);
  }
  DeviceBuffer<ProxyId> device_ids;
  DeviceBuffer<Aabb> device_boxes;
  device_ids.upload(ids);
  device_boxes.upload(boxes);
  world.move(device_ids.span(), device_boxes.span());
  script.create_and_destroy(world, model, round);
}

TEST(WorldGpu, RegionQueriesMatchTheOracleFromHostAndDeviceArrays) {
  // As on the CPU: random edits, each round queried before its step and after, from host and
  // device arrays; every other round's moves from device arrays (the boxes on the device).
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  World world({.backend = rsw::Backend::Cuda});
  WorldModel model;
  WorldScript script(seed, 10);
  script.use_worlds();
  script.create(world, model, 400, 0.5);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    edit_round_partly_on_device(world, model, script, round);
    script.query_step_query(
        world, model, [&](std::span<const Aabb> regions, const physics::QueryOptions& query) {
          if (round % 3 != 0) {
            const std::span<const physics::QueryHit> hits = world.query(regions, query);
            return std::vector(hits.begin(), hits.end());
          }
          DeviceBuffer<Aabb> device_regions;
          device_regions.upload(regions);
          return to_host(world.query(device_regions.span(), query));
        });
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(WorldGpu, RayQueriesMatchTheOracleFromHostAndDeviceArrays) {
  // As on the CPU: random edits, each round cast before its step and after, from host and
  // device arrays; every other round's moves from device arrays.
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  World world({.backend = rsw::Backend::Cuda});
  WorldModel model;
  WorldScript script(seed, 10);
  script.use_worlds();
  script.create(world, model, 400, 0.5);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    edit_round_partly_on_device(world, model, script, round);
    script.raycast_step_raycast(
        world, model, [&](std::span<const physics::Ray> rays, const physics::RaycastOptions& cast) {
          if (round % 3 != 0) {
            const std::span<const physics::RayHit> hits = world.raycast(rays, cast);
            return std::vector(hits.begin(), hits.end());
          }
          DeviceBuffer<physics::Ray> device_rays;
          device_rays.upload(rays);
          return to_host(world.raycast(device_rays.span(), cast));
        });
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(WorldGpu, AwkwardRaysMatchTheOracleFromHostAndDeviceArrays) {
  RSW_REQUIRE_CUDA_DEVICE();
  for (const bool device : {false, true}) {
    SCOPED_TRACE(device ? "device arrays" : "host arrays");
    World world({.backend = rsw::Backend::Cuda});
    rsw::test::check_awkward_rays(world, [&](World& w, std::span<const physics::Ray> rays,
                                             const physics::RaycastOptions& cast) {
      if (!device) {
        const std::span<const physics::RayHit> hits = w.raycast(rays, cast);
        return std::vector(hits.begin(), hits.end());
      }
      DeviceBuffer<physics::Ray> device_rays;
      device_rays.upload(rays);
      return to_host(w.raycast(device_rays.span(), cast));
    });
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Many rays and regions over the scenes of the benches: the GPU's hits equal the CPU
// backend's (nearest and all hits), and a sample's equal the oracle's.
std::vector<physics::QueryHit> as_vector_of(std::span<const physics::QueryHit> hits) {
  return {hits.begin(), hits.end()};
}

TEST(WorldGpu, RaysAndRegionsOverLargeScenesEqualTheCpuBackendAndTheOracle) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 generator(seed);
  for (const auto& [count, scene] :
       {std::pair{std::size_t{100'003}, workloads::BoxScene::Uniform},
        std::pair{std::size_t{30'011}, workloads::BoxScene::Mixed},
        std::pair{std::size_t{20'011}, workloads::BoxScene::GiantBox},
        std::pair{std::size_t{20'011}, workloads::BoxScene::Clustered},
        std::pair{std::size_t{10'007}, workloads::BoxScene::TouchingGrid},
        std::pair{std::size_t{20'011}, workloads::BoxScene::Degenerate},
        std::pair{std::size_t{2}, workloads::BoxScene::Uniform}}) {
    SCOPED_TRACE(std::to_string(count) + " boxes, scene " + workloads::to_string(scene));
    const std::vector<Aabb> boxes =
        workloads::make_boxes(count, scene, static_cast<std::uint32_t>(generator()), 5.0);
    World gpu({.backend = rsw::Backend::Cuda});
    World cpu({.backend = rsw::Backend::Cpu});
    WorldModel model;  // by the GPU world's ids
    std::vector<ProxyId> ids(count);
    std::vector<ProxyId> cpu_ids(count);
    gpu.create(boxes, {}, ids);
    cpu.create(boxes, {}, cpu_ids);
    std::unordered_map<ProxyId, ProxyId> gpu_id_of;  // the worlds' generations differ
    for (std::size_t i = 0; i < count; ++i) {
      model.proxies[ids[i]] = {boxes[i], {}};
      gpu_id_of[cpu_ids[i]] = ids[i];
    }
    // Rays from box corners and centres, in random directions, short and long.
    physics::Aabb scene_bounds = boxes[0];
    for (const Aabb& box : boxes) {
      scene_bounds.min = {std::min(scene_bounds.min.x, box.min.x),
                          std::min(scene_bounds.min.y, box.min.y),
                          std::min(scene_bounds.min.z, box.min.z)};
      scene_bounds.max = {std::max(scene_bounds.max.x, box.max.x),
                          std::max(scene_bounds.max.y, box.max.y),
                          std::max(scene_bounds.max.z, box.max.z)};
    }
    std::uniform_real_distribution<float> unit(-1, 1);
    std::uniform_int_distribution<std::size_t> pick(0, count - 1);
    const float span = scene_bounds.max.x - scene_bounds.min.x;
    const float lengths[] = {0.0f, 2.0f, 10.0f, span, std::numeric_limits<float>::infinity()};
    std::vector<physics::Ray> rays(10'007);
    for (std::size_t r = 0; r < rays.size(); ++r) {
      const Aabb& box = boxes[pick(generator)];
      rays[r].origin = r % 2 == 0 ? box.min
                                  : physics::Vec3{(box.min.x + box.max.x) / 2, box.max.y + 0.01f,
                                                  (box.min.z + box.max.z) / 2};
      rays[r].direction = {unit(generator), unit(generator), r % 7 == 0 ? 0.0f : unit(generator)};
      rays[r].max_t = lengths[r % 5];
    }
    for (const bool all : {false, true}) {
      const physics::RaycastOptions cast{.all_hits = all};
      const std::span<const physics::Ray> cast_rays =
          all ? std::span<const physics::Ray>(rays).first(1009)
              : std::span<const physics::Ray>(rays);
      const std::span<const physics::RayHit> gpu_span = gpu.raycast(cast_rays, cast);
      const std::vector<physics::RayHit> gpu_hits(gpu_span.begin(), gpu_span.end());
      std::vector<physics::RayHit> cpu_hits;
      for (physics::RayHit hit : cpu.raycast(cast_rays, cast)) {
        hit.proxy = gpu_id_of.at(hit.proxy);
        cpu_hits.push_back(hit);
      }
      if (!rsw::test::same_hits(gpu_hits, cpu_hits)) {
        // The first ray they differ on, and what the oracle says of it.
        std::size_t at = 0;
        while (at < std::min(gpu_hits.size(), cpu_hits.size()) &&
               rsw::test::same_hits(std::span(&gpu_hits[at], 1), std::span(&cpu_hits[at], 1)))
          ++at;
        const auto one = [at](const std::vector<physics::RayHit>& hits) {
          return std::span(hits).subspan(std::min(at, hits.size()), at < hits.size() ? 1 : 0);
        };
        const std::uint32_t ray = at < gpu_hits.size() ? gpu_hits[at].ray : cpu_hits[at].ray;
        FAIL() << "all_hits " << all << ": the GPU's " << gpu_hits.size() << " hits and the CPU's "
               << cpu_hits.size() << " differ first at ray " << ray << "\nGPU:\n"
               << rsw::test::describe_hits(one(gpu_hits)) << "CPU:\n"
               << rsw::test::describe_hits(one(cpu_hits)) << "oracle:\n"
               << rsw::test::describe_hits(
                      rsw::test::oracle_raycast(model, std::span(&cast_rays[ray], 1), cast));
      }
      DeviceBuffer<physics::Ray> device_rays;
      device_rays.upload(cast_rays);
      ASSERT_TRUE(rsw::test::same_hits(to_host(gpu.raycast(device_rays.span(), cast)), gpu_hits))
          << "all_hits " << all << ", from device arrays";
      const std::span<const physics::Ray> sample =
          cast_rays.first(std::min<std::size_t>(cast_rays.size(), 31));
      const std::vector<physics::RayHit> expected = rsw::test::oracle_raycast(model, sample, cast);
      const std::span<const physics::RayHit> sample_hits = gpu.raycast(sample, cast);
      ASSERT_TRUE(rsw::test::same_hits(sample_hits, expected))
          << "all_hits " << all << "\ngot:\n"
          << rsw::test::describe_hits(sample_hits) << "expected:\n"
          << rsw::test::describe_hits(expected);
    }
    // Regions: boxes of the scene grown by 0, 1 or 8 edges (crowded ones sorted apart).
    std::vector<Aabb> regions(4001);
    for (std::size_t q = 0; q < regions.size(); ++q) {
      const Aabb& box = boxes[pick(generator)];
      const float grow = q % 3 == 0 ? 0.0f : (q % 3 == 1 ? 1.0f : 8.0f);
      regions[q] = {{box.min.x - grow, box.min.y - grow, box.min.z - grow},
                    {box.max.x + grow, box.max.y + grow, box.max.z + grow}};
    }
    const std::span<const physics::QueryHit> gpu_span = gpu.query(regions);
    const std::vector<physics::QueryHit> gpu_regions(gpu_span.begin(), gpu_span.end());
    std::vector<physics::QueryHit> cpu_regions;
    for (physics::QueryHit hit : cpu.query(regions)) {
      hit.proxy = gpu_id_of.at(hit.proxy);
      cpu_regions.push_back(hit);
    }
    if (gpu_regions != cpu_regions) {
      std::size_t at = 0;
      while (at < std::min(gpu_regions.size(), cpu_regions.size()) &&
             gpu_regions[at] == cpu_regions[at])
        ++at;
      const auto describe = [&](const std::vector<physics::QueryHit>& hits) {
        std::string out;
        for (std::size_t i = at; i < std::min(hits.size(), at + 3); ++i) {
          out += " (" + std::to_string(hits[i].query) + ", " + std::to_string(hits[i].proxy.index) +
                 ")";
        }
        return out;
      };
      FAIL() << "regions: the GPU's " << gpu_regions.size() << " hits and the CPU's "
             << cpu_regions.size() << " differ first at " << at << ": GPU" << describe(gpu_regions)
             << ", CPU" << describe(cpu_regions);
    }
    DeviceBuffer<Aabb> device_regions;
    device_regions.upload(regions);
    ASSERT_EQ(to_host(gpu.query(device_regions.span())), gpu_regions) << "from device arrays";
    const std::span<const Aabb> sample = std::span<const Aabb>(regions).first(31);
    ASSERT_EQ(as_vector_of(gpu.query(sample)), rsw::test::oracle_query(model, sample, {}));
  }
}

TEST(WorldGpu, AnInvalidRayFromDeviceArraysIsAnErrorNamingIt) {
  RSW_REQUIRE_CUDA_DEVICE();
  World world({.backend = rsw::Backend::Cuda});
  world.create(Aabb{{0, 0, 0}, {1, 1, 1}});
  std::vector<physics::Ray> rays(1009, physics::Ray{{0.5f, 0.5f, -1}, {0, 0, 1}});
  rays[907].max_t = -2;
  rays[1000].direction.x = std::numeric_limits<float>::quiet_NaN();
  DeviceBuffer<physics::Ray> device_rays;
  device_rays.upload(rays);
  try {
    world.raycast(device_rays.span());
    FAIL() << "a ray of negative length was taken";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("World::raycast: rays[907] cannot be cast"),
              std::string::npos)
        << error.what();
  }
  rays[907].max_t = 2;
  rays[1000].direction.x = 0;
  device_rays.upload(rays);
  const std::vector<physics::RayHit> hits = to_host(world.raycast(device_rays.span()));
  ASSERT_EQ(hits.size(), rays.size());
  EXPECT_EQ(hits[1008].ray, 1008u);
  EXPECT_EQ(hits[1008].t, 1.0f);
}

TEST(WorldGpu, AnInvalidRegionFromDeviceArraysIsAnErrorNamingIt) {
  RSW_REQUIRE_CUDA_DEVICE();
  World world({.backend = rsw::Backend::Cuda});
  world.create(Aabb{{0, 0, 0}, {1, 1, 1}});
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<Aabb> regions(1009, Aabb{{0, 0, 0}, {1, 1, 1}});
  regions[907].max.z = inf;
  regions[1000].min.x = 5;
  DeviceBuffer<Aabb> device_regions;
  device_regions.upload(regions);
  try {
    world.query(device_regions.span());
    FAIL() << "an infinite region was taken";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("World::query: regions: box 907 has a non-finite"),
              std::string::npos)
        << error.what();
  }
  regions[907].max.z = 1;
  regions[1000].min.x = 0;
  device_regions.upload(regions);
  EXPECT_EQ(to_host(world.query(device_regions.span())).size(), regions.size());
}

TEST(WorldGpu, DeviceArraysCreateMoveAndDestroyWithoutTheHost) {
  RSW_REQUIRE_CUDA_DEVICE();
  World world({.backend = rsw::Backend::Cuda});
  WorldModel model;
  const std::vector<Aabb> boxes = {{{0, 0, 0}, {1, 1, 1}},
                                   {{1, 1, 1}, {2, 2, 2}},  // touches the first at a corner
                                   {{5, 5, 5}, {6, 6, 6}}};
  DeviceBuffer<Aabb> device_boxes(boxes);
  DeviceBuffer<ProxyId> device_ids(boxes.size());
  world.create(device_boxes.span(), {.motion = Motion::Static}, device_ids.span());
  const std::vector<ProxyId> ids = to_host(device_ids.span());
  for (std::size_t i = 0; i < ids.size(); ++i)
    model.proxies[ids[i]] = {boxes[i], {.motion = Motion::Static}};
  const ProxyId mover = world.create(Aabb{{5.5f, 5.5f, 5.5f}, {7, 7, 7}});
  model.proxies[mover] = {Aabb{{5.5f, 5.5f, 5.5f}, {7, 7, 7}}, {}};
  step_and_check(world, model, "created from device arrays");

  // A device move of the mover and of a static (whose cells are rebuilt at the step).
  const std::vector<ProxyId> moved = {mover, ids[0]};
  const std::vector<Aabb> to = {Aabb{{0.5f, 0.5f, 0.5f}, {1.5f, 1.5f, 1.5f}},
                                Aabb{{0.75f, 0, 0}, {1, 1, 1}}};
  world.move(DeviceBuffer<ProxyId>(moved).span(), DeviceBuffer<Aabb>(to).span());
  model.proxies[mover].box = to[0];
  model.proxies[ids[0]].box = to[1];
  step_and_check(world, model, "moved by device arrays");
  EXPECT_TRUE(world.stats().statics_listed);

  world.destroy(DeviceBuffer<ProxyId>(std::vector<ProxyId>{ids[1]}).span());
  model.proxies.erase(ids[1]);
  step_and_check(world, model, "destroyed by device arrays");
}

TEST(WorldGpu, AStaleIdInADeviceMoveIsReportedAtTheStep) {
  RSW_REQUIRE_CUDA_DEVICE();
  World world({.backend = rsw::Backend::Cuda});
  WorldModel model;
  const Aabb box{{0, 0, 0}, {1, 1, 1}};
  const ProxyId live = world.create(box);
  const ProxyId gone = world.create(box);
  world.destroy(gone);
  model.proxies[live] = {box, {}};
  const std::vector<ProxyId> ids = {live, gone};
  const Aabb far{{9, 9, 9}, {10, 10, 10}};
  world.move(DeviceBuffer<ProxyId>(ids).span(), DeviceBuffer<Aabb>(std::vector{far, far}).span());
  try {
    world.step();
    FAIL() << "the stale id was not reported";
  } catch (const rsw::Error& error) {
    EXPECT_EQ(error.kind(), rsw::ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("ids[1]"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(world.pairs().empty());  // no step stands
  model.proxies[live].box = far;       // the live id's box was written
  step_and_check(world, model, "after the reported move");
}

TEST(WorldGpu, AStaticMovedBesideAStaleIdIsListedAgainAtTheNextStep) {
  RSW_REQUIRE_CUDA_DEVICE();
  World world({.backend = rsw::Backend::Cuda});
  WorldModel model;
  const Aabb box{{0, 0, 0}, {1, 1, 1}};
  const ProxyId mover = world.create(box);
  const ProxyId wall = world.create(box, {.motion = Motion::Static});
  const ProxyId gone = world.create(box);
  world.destroy(gone);
  model.proxies[mover] = {box, {}};
  model.proxies[wall] = {box, {.motion = Motion::Static}};
  step_and_check(world, model, "touching");
  const Aabb far{{9, 9, 9}, {10, 10, 10}};
  world.move(DeviceBuffer<ProxyId>(std::vector{wall, gone}).span(),
             DeviceBuffer<Aabb>(std::vector{far, far}).span());
  EXPECT_THROW(world.step(), rsw::Error);
  model.proxies[wall].box = far;  // the live id's box was written
  step_and_check(world, model, "the wall moved away");
}

TEST(WorldGpu, AnInvalidBoxFromDeviceArraysIsNamedAtTheStepOrExcluded) {
  RSW_REQUIRE_CUDA_DEVICE();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Aabb good{{0, 0, 0}, {1, 1, 1}};
  const Aabb bad{{0, 0, 0}, {1, nan, 1}};
  for (const Motion motion : {Motion::Moving, Motion::Static}) {
    World world({.backend = rsw::Backend::Cuda});
    WorldModel model;
    const ProxyId a = world.create(good, {.motion = motion});
    const ProxyId b = world.create(good);
    model.proxies[a] = {good, {.motion = motion}};
    model.proxies[b] = {good, {}};
    step_and_check(world, model, "valid");
    world.move(DeviceBuffer<ProxyId>(std::vector{a}).span(),
               DeviceBuffer<Aabb>(std::vector{bad}).span());
    try {
      world.step();
      FAIL() << "the invalid box was not reported";
    } catch (const rsw::Error& error) {
      EXPECT_NE(std::string(error.what()).find("proxy " + std::to_string(a.index)),
                std::string::npos)
          << error.what();
    }
    world.move(a, good);
    step_and_check(world, model, "repaired");  // against the last step that stood
  }
  World world({.backend = rsw::Backend::Cuda, .invalid_boxes = physics::InvalidBoxes::Exclude});
  WorldModel model;
  for (const Motion motion : {Motion::Moving, Motion::Static, Motion::Moving}) {
    const ProxyId id = world.create(good, {.motion = motion});
    model.proxies[id] = {good, {.motion = motion}};
    world.move(DeviceBuffer<ProxyId>(std::vector{id}).span(),
               DeviceBuffer<Aabb>(std::vector{motion == Motion::Static ? bad : good}).span());
    model.proxies[id].box = motion == Motion::Static ? bad : good;
  }
  step_and_check(world, model, "excluded");
  EXPECT_EQ(world.stats().excluded_proxies, 1u);
}

// A row of five touching crates, on a static ground or alone: the middle one turns invalid
// (excluded) and loses its pairs, turns valid again and finds them, jumps away and loses them,
// and lands wider between its neighbours and finds them again.
void expect_a_crate_turning_invalid_to_lose_its_pairs(bool on_ground) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  World world({.backend = rsw::Backend::Cuda, .invalid_boxes = physics::InvalidBoxes::Exclude});
  WorldModel model;
  if (on_ground) {
    const Aabb ground{{-10, -1, -10}, {10, 0, 10}};
    const ProxyId floor = world.create(ground, {.motion = Motion::Static});
    model.proxies[floor] = {ground, {.motion = Motion::Static}};
  }
  std::vector<ProxyId> crates;
  for (int i = 0; i < 5; ++i) {
    const auto x = static_cast<float>(i);
    const Aabb box{{x, 0, 0}, {x + 1, 1, 1}};
    crates.push_back(world.create(box));
    model.proxies[crates.back()] = {box, {}};
  }
  step_and_check(world, model, "first");
  step_and_check(world, model, "unchanged");
  const auto move = [&](const Aabb& box, const std::string& where) {
    world.move(DeviceBuffer<ProxyId>(std::vector{crates[2]}).span(),
               DeviceBuffer<Aabb>(std::vector{box}).span());
    model.proxies[crates[2]].box = box;
    step_and_check(world, model, where);
  };
  const std::size_t partners = on_ground ? 3 : 2;  // both neighbours, and the ground
  move({{2, 0, 0}, {3, nan, 1}}, "invalid");
  EXPECT_EQ(world.events().lost.size(), partners);
  EXPECT_EQ(world.stats().excluded_proxies, 1u);
  move({{2, 0, 0}, {3, 1, 1}}, "valid again");
  EXPECT_EQ(world.events().found.size(), partners);
  move({{2, 5, 0}, {3, 6, 1}}, "lifted");
  EXPECT_EQ(world.events().lost.size(), partners);
  move({{1.5f, 0, 0}, {3.5f, 1, 1}}, "dropped between, wider");
  EXPECT_EQ(world.events().found.size(), partners);
}

// In the steady state the GPU finds the events in the static cells' walk, by each moving
// proxy's boxes at both steps.
TEST(WorldGpu, ABoxThatTurnsInvalidInTheSteadyStateLosesItsPairs) {
  RSW_REQUIRE_CUDA_DEVICE();
  expect_a_crate_turning_invalid_to_lose_its_pairs(true);
}

TEST(WorldGpu, ARandomScriptWithoutStaticsSweptInFramesMatchesTheOracleAtEveryStep) {
  RSW_REQUIRE_CUDA_DEVICE();
  const ScopedEnvironment frames(kMovingSweep, "frame");
  expect_script_to_match_the_oracle({.statics = false});
}

TEST(WorldGpu, ARandomScriptWithoutStaticsSweptInFramesWithSortedEventsMatchesTheOracle) {
  RSW_REQUIRE_CUDA_DEVICE();
  const ScopedEnvironment frames(kMovingSweep, "frame");
  expect_script_to_match_the_oracle({.steps = 300, .sorted_events = true, .statics = false});
}

// Proxies in worlds come in later: the frames sweep them in their worlds' cells.
TEST(WorldGpu, ARandomScriptWithoutStaticsSweptInFramesWithWorldsMatchesTheOracle) {
  RSW_REQUIRE_CUDA_DEVICE();
  const ScopedEnvironment frames(kMovingSweep, "frame");
  expect_script_to_match_the_oracle(
      {.steps = 200, .region = 10, .statics = false, .steps_before_worlds = 100});
}

// Scenes of every kind (a giant box's long runs, touching faces, clusters), all moving and
// swept in frames: the GPU's sets equal the CPU backend's.
TEST(WorldGpu, MovingProxiesSweptInFramesEqualTheCpuBackendOverSteps) {
  RSW_REQUIRE_CUDA_DEVICE();
  const ScopedEnvironment frames(kMovingSweep, "frame");
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr std::pair<std::size_t, workloads::BoxScene> kScenes[] = {
      {65'537, workloads::BoxScene::Uniform},
      {20'011, workloads::BoxScene::GiantBox},
      {20'011, workloads::BoxScene::Clustered},
      {30'011, workloads::BoxScene::Mixed},
      {10'007, workloads::BoxScene::TouchingGrid},
      {20'011, workloads::BoxScene::MixedSizes},
      {1, workloads::BoxScene::Uniform}};
  for (const auto& [count, scene] : kScenes) {
    SCOPED_TRACE(std::to_string(count) + " boxes, scene " + workloads::to_string(scene));
    expect_gpu_equals_cpu(workloads::make_boxes(count, scene, seed), 0, seed);
    if (HasFatalFailure()) return;
  }
}

// Swept in BroadPhase frames, with the events found after them.
TEST(WorldGpu, ABoxThatTurnsInvalidInAFrameLosesItsPairs) {
  RSW_REQUIRE_CUDA_DEVICE();
  const ScopedEnvironment frames(kMovingSweep, "frame");
  expect_a_crate_turning_invalid_to_lose_its_pairs(false);
}

TEST(WorldGpu, AnUnknownMovingSweepOverrideIsAnErrorNamingIt) {
  RSW_REQUIRE_CUDA_DEVICE();
  const ScopedEnvironment sideways(kMovingSweep, "sideways");
  try {
    World world({.backend = rsw::Backend::Cuda});
    world.step();
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("RSW_WORLD_MOVING_SWEEP=sideways"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace rsw::test
