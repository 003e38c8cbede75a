// Picking in every scene on the CPU against brute force over the boxes each reports: the
// nearest box along rays from the camera, the partners of what they pick, and regions; and
// the errors of bad objects and regions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "picking_checks.hpp"
#include "rsw/engine/error.hpp"
#include "scene_runs.hpp"

namespace {

using rsw::scenes::Scene;
using rsw::scenes::testing::check_picking;
using rsw::scenes::testing::PickRules;
using rsw::scenes::testing::run_on_cpu;

struct PickCase {
  std::string scene;
  std::size_t count;
  int frames;
  PickRules rules;
};

class ScenePicking : public ::testing::TestWithParam<PickCase> {};

TEST_P(ScenePicking, AgreesWithBruteForce) {
  const PickCase& pick = GetParam();
  std::unique_ptr<Scene> scene = run_on_cpu(pick.scene, pick.count, 3, pick.frames);
  EXPECT_GT(check_picking(*scene, pick.rules, 11), 0) << "no ray hit anything";
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, ScenePicking,
    ::testing::Values(PickCase{"boxes", 2003, 5, {}},
                      PickCase{"chairs", 211, 90, {.extra_objects = 1}},
                      PickCase{"particles", 3001, 20, {.terrain_hides = true}},
                      PickCase{"nbody", 1009, 10, {}},
                      PickCase{"worlds", 127, 30, {.group = 6, .slack = 1e-4f}}),
    [](const ::testing::TestParamInfo<PickCase>& param) { return param.param.scene; });

TEST(ScenePicking, BeforeTheFirstStepNothingIsPickedAndNoBoxIsKnown) {
  for (const std::string& name : rsw::scenes::scene_names()) {
    if (name == "nbody") continue;  // it finds its first accelerations, and boxes, as it starts
    std::unique_ptr<Scene> scene = rsw::scenes::make_scene(name);
    scene->reset({.count = 50, .seed = 1, .backend = rsw::Backend::Cpu});
    const rsw::render::OrbitCamera camera = scene->camera();
    EXPECT_FALSE(scene->pick(camera.ray_through(50, 50, 100, 100))) << name;
    EXPECT_TRUE(scene->partners(3).empty()) << name;
    EXPECT_TRUE(scene->objects_in({{-1e6f, -1e6f, -1e6f}, {1e6f, 1e6f, 1e6f}}).empty()) << name;
    EXPECT_THROW(scene->box_of(3), rsw::Error) << name;
  }
}

TEST(ScenePicking, BadObjectsAndRegionsAreErrors) {
  std::unique_ptr<Scene> scene = run_on_cpu("boxes", 100, 7, 2);
  const auto expect_invalid = [](auto&& call, const std::string& says) {
    try {
      call();
      ADD_FAILURE() << "no error: " << says;
    } catch (const rsw::Error& error) {
      EXPECT_EQ(error.kind(), rsw::ErrorKind::InvalidArgument);
      EXPECT_NE(std::string(error.what()).find(says), std::string::npos) << error.what();
    }
  };
  expect_invalid([&] { scene->partners(100); }, "object 100 of 100");
  expect_invalid([&] { scene->box_of(1000); }, "object 1000 of 100");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  expect_invalid([&] { scene->objects_in({{0, 0, nan}, {1, 1, 1}}); }, "a region must be");
  expect_invalid([&] { scene->objects_in({{0, 2, 0}, {1, 1, 1}}); }, "a region must be");
  std::unique_ptr<Scene> chairs = run_on_cpu("chairs", 10, 7, 2);
  EXPECT_EQ(chairs->object_name(10), "ground");
  EXPECT_EQ(chairs->object_name(9), "chair 9");
  EXPECT_NO_THROW(chairs->partners(10));
  expect_invalid([&] { chairs->partners(11); }, "object 11 of 11");
}

TEST(ScenePicking, HighlightsOfAnyObjectsAreKept) {
  std::unique_ptr<Scene> scene = run_on_cpu("nbody", 30, 7, 2);
  // Numbers past the objects are left out when drawing; setting them is no error.
  EXPECT_NO_THROW(scene->set_highlight({.picked = 5, .partners = {1, 2, 99}, .in_region = {0}}));
  EXPECT_NO_THROW(scene->set_highlight({}));
}

}  // namespace
