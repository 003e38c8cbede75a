// BroadPhase::query and BroadPhase::raycast on the GPU backend: random frames from host AoS,
// host SoA and device arrays, asked from host and device arrays, equal to the CPU backend's
// answers and to the oracle; the errors of device-array queries.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "box_query_checks.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/physics/bounds.hpp"
#include "rsw/physics/broad_phase.hpp"
#include "rsw_test/cuda_device.hpp"

namespace rsw::test {
namespace {

using physics::Aabb;
using physics::BroadPhase;
using physics::Ray;

enum class Form { HostAos, HostSoa, Device };

TEST(BroadPhaseQueriesGpu, RegionsAndRaysEqualTheCpuBackendAndTheOracle) {
  RSW_REQUIRE_CUDA_DEVICE();
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 generator(seed);
  BroadPhase gpu({.backend = rsw::Backend::Cuda, .invalid_boxes = physics::InvalidBoxes::Exclude});
  BroadPhase cpu({.backend = rsw::Backend::Cpu, .invalid_boxes = physics::InvalidBoxes::Exclude});
  for (const std::size_t count : {0u, 1u, 2u, 97u, 1009u, 30011u}) {
    for (const Form form : {Form::HostAos, Form::HostSoa, Form::Device}) {
      SCOPED_TRACE(std::to_string(count) + " boxes, form " +
                   std::to_string(static_cast<int>(form)));
      const float side = 2 + std::cbrt(static_cast<float>(count));
      const QueryFrame frame = random_query_frame(generator, count, side, count % 2 == 1);
      physics::AabbStore store;
      store.assign(frame.boxes);
      physics::DeviceAabbStore device_store;
      DeviceBuffer<std::uint32_t> categories;
      DeviceBuffer<std::uint32_t> worlds;
      switch (form) {
        case Form::HostAos: gpu.update(frame.boxes, frame.filter()); break;
        case Form::HostSoa: gpu.update(store.view(), frame.filter()); break;
        case Form::Device:
          device_store.upload(store.view());
          categories.upload(std::span<const std::uint32_t>(frame.categories));
          worlds.upload(std::span<const std::uint32_t>(frame.worlds));
          gpu.update(device_store.view(), {categories.span(), {}, worlds.span()});
          break;
      }
      cpu.update(frame.boxes, frame.filter());
      const std::vector<Aabb> regions = random_regions(generator, 1009, side);
      const std::vector<Ray> rays = random_rays(generator, frame, 1009, side);
      DeviceBuffer<Aabb> device_regions;
      DeviceBuffer<Ray> device_rays;
      device_regions.upload(std::span<const Aabb>(regions));
      device_rays.upload(std::span<const Ray>(rays));
      for (const physics::QueryOptions query :
           {physics::QueryOptions{}, physics::QueryOptions{.mask = 2, .world = 1}}) {
        const std::span<const physics::BoxQueryHit> host_hits = gpu.query(regions, query);
        const std::vector<physics::BoxQueryHit> hits(host_hits.begin(), host_hits.end());
        const std::span<const physics::BoxQueryHit> cpu_hits = cpu.query(regions, query);
        ASSERT_EQ(hits, std::vector(cpu_hits.begin(), cpu_hits.end())) << "mask " << query.mask;
        ASSERT_EQ(to_host(gpu.query(device_regions.span(), query)), hits) << "from device arrays";
        const std::span<const Aabb> sample = std::span<const Aabb>(regions).first(31);
        const std::span<const physics::BoxQueryHit> sample_hits = gpu.query(sample, query);
        ASSERT_EQ(std::vector(sample_hits.begin(), sample_hits.end()),
                  oracle_box_query(frame, sample, query));
      }
      for (const physics::RaycastOptions cast :
           {physics::RaycastOptions{}, physics::RaycastOptions{.all_hits = true},
            physics::RaycastOptions{.mask = 4, .world = 2}}) {
        const std::span<const physics::BoxRayHit> host_hits = gpu.raycast(rays, cast);
        const std::vector<physics::BoxRayHit> hits(host_hits.begin(), host_hits.end());
        ASSERT_TRUE(same_box_hits(hits, cpu.raycast(rays, cast))) << "all " << cast.all_hits;
        ASSERT_TRUE(same_box_hits(to_host(gpu.raycast(device_rays.span(), cast)), hits))
            << "from device arrays";
        const std::span<const Ray> sample = std::span<const Ray>(rays).first(31);
        ASSERT_TRUE(
            same_box_hits(gpu.raycast(sample, cast), oracle_box_raycast(frame, sample, cast)));
      }
    }
  }
}

TEST(BroadPhaseQueriesGpu, AnInvalidRegionOrRayFromDeviceArraysIsAnErrorNamingIt) {
  RSW_REQUIRE_CUDA_DEVICE();
  BroadPhase broad_phase({.backend = rsw::Backend::Cuda});
  const std::vector<Aabb> boxes = {{{0, 0, 0}, {1, 1, 1}}};
  broad_phase.update(boxes);
  std::vector<Aabb> regions(1009, Aabb{{0, 0, 0}, {1, 1, 1}});
  regions[907].max.z = std::numeric_limits<float>::infinity();
  std::vector<Ray> rays(1009, Ray{{0.5f, 0.5f, -1}, {0, 0, 1}});
  rays[503].max_t = -1;
  DeviceBuffer<Aabb> device_regions;
  DeviceBuffer<Ray> device_rays;
  device_regions.upload(std::span<const Aabb>(regions));
  device_rays.upload(std::span<const Ray>(rays));
  try {
    broad_phase.query(device_regions.span());
    FAIL() << "an infinite region was taken";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("BroadPhase::query: regions: box 907 has"),
              std::string::npos)
        << error.what();
  }
  try {
    broad_phase.raycast(device_rays.span());
    FAIL() << "a ray of negative length was taken";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("BroadPhase::raycast: rays[503] cannot be cast"),
              std::string::npos)
        << error.what();
  }
  regions[907].max.z = 1;
  rays[503].max_t = 5;
  device_regions.upload(std::span<const Aabb>(regions));
  device_rays.upload(std::span<const Ray>(rays));
  EXPECT_EQ(to_host(broad_phase.query(device_regions.span())).size(), regions.size());
  const std::vector<physics::BoxRayHit> hits = to_host(broad_phase.raycast(device_rays.span()));
  ASSERT_EQ(hits.size(), rays.size());
  EXPECT_EQ(hits[503].t, 1.0f);
}

}  // namespace
}  // namespace rsw::test
