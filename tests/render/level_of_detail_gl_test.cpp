// The renderer's level of detail (DrawPath::LevelOfDetail) against its meshes (DrawPath::Meshes)
// on a headless EGL context: instances sorted by their size on screen as the counts say,
// impostors covering the meshes' pixels with the meshes' colours, splats at the pixel under
// their centre with the nearest in front, and nothing of a batch's splats left for the next.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "headless_gl_fixture.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/render/renderer.hpp"

namespace {

using rsw::render::BoxInstance;
using rsw::render::DrawCounts;
using rsw::render::DrawPath;
using rsw::render::OrbitCamera;
using rsw::render::Renderer;
using rsw::render::Shape;

class LevelOfDetailGl : public rsw::render::testing::HeadlessGlTest {};

constexpr int kWidth = 320;
constexpr int kHeight = 240;
// Looking down -z at the origin from 20 units: 240 / (2 tan 22.5 deg) = 289.7 pixels of one
// unit at depth 1, 14.5 at the origin.
const OrbitCamera kFront{.target = {0, 0, 0}, .distance = 20, .yaw_degrees = 0, .pitch_degrees = 0};
constexpr float kPixelsPerUnitAtDepthOne = 289.7f;

BoxInstance instance(std::array<float, 3> centre, std::array<float, 3> size,
                     std::array<float, 3> colour, std::array<float, 4> orientation = {0, 0, 0, 1}) {
  BoxInstance out;
  for (int k = 0; k < 3; ++k) {
    out.centre[k] = centre[static_cast<std::size_t>(k)];
    out.size[k] = size[static_cast<std::size_t>(k)];
    out.colour[k] = colour[static_cast<std::size_t>(k)];
  }
  for (int k = 0; k < 4; ++k)
    out.orientation[k] = orientation[static_cast<std::size_t>(k)];
  return out;
}

// `count` instances in front of kFront, turned at random, their bounding spheres 7 to 23
// pixels across: every one an impostor.
std::vector<BoxInstance> impostor_sized(std::size_t count, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> x(-7, 7);
  std::uniform_real_distribution<float> y(-5, 5);
  std::uniform_real_distribution<float> z(-2, 2);
  std::uniform_real_distribution<float> side(0.3f, 0.8f);
  std::uniform_real_distribution<float> unit(0, 1);
  std::normal_distribution<float> gauss;
  std::vector<BoxInstance> instances;
  for (std::size_t i = 0; i < count; ++i) {
    std::array<float, 4> q = {gauss(random), gauss(random), gauss(random), gauss(random)};
    const float length = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (float& c : q)
      c /= length;
    instances.push_back(instance({x(random), y(random), z(random)},
                                 {side(random), side(random), side(random)},
                                 {unit(random), unit(random), unit(random)}, q));
  }
  return instances;
}

std::vector<std::uint8_t> draw(Renderer& renderer, Shape shape,
                               const std::vector<BoxInstance>& instances,
                               const OrbitCamera& camera = kFront) {
  renderer.begin_frame(camera);
  renderer.draw_instances(shape, instances);
  return renderer.read_rgba();
}

// Pixels whose colour differs by more than `tolerance` in some channel.
std::size_t differing_pixels(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b,
                             int tolerance) {
  std::size_t differing = 0;
  for (std::size_t at = 0; at < a.size(); at += 4) {
    for (std::size_t c = 0; c < 3; ++c) {
      if (std::abs(int{a[at + c]} - int{b[at + c]}) > tolerance) {
        ++differing;
        break;
      }
    }
  }
  return differing;
}

std::size_t background_pixels(const std::vector<std::uint8_t>& rgba) {
  std::size_t background = 0;
  for (std::size_t at = 0; at < rgba.size(); at += 4) {
    if (rgba[at] == 20 && rgba[at + 1] == 23 && rgba[at + 2] == 28) ++background;
  }
  return background;
}

std::array<int, 3> pixel(const std::vector<std::uint8_t>& rgba, int x, int y_from_bottom) {
  const std::size_t at = (static_cast<std::size_t>(kHeight - 1 - y_from_bottom) * kWidth +
                          static_cast<std::size_t>(x)) *
                         4;
  return {rgba[at], rgba[at + 1], rgba[at + 2]};
}

// The pixel (from the bottom left) under the point (x, y, z) seen by kFront.
std::array<int, 2> pixel_of(float x, float y, float z = 0) {
  const float scale = kPixelsPerUnitAtDepthOne / (kFront.distance - z);
  return {static_cast<int>(std::floor(kWidth / 2.0f + x * scale)),
          static_cast<int>(std::floor(kHeight / 2.0f + y * scale))};
}

// The point at depth plane z that kFront sees at the centre of the pixel (x, y).
std::array<float, 2> at_pixel(int x, int y, float z) {
  const float scale = kPixelsPerUnitAtDepthOne / (kFront.distance - z);
  return {(static_cast<float>(x) + 0.5f - kWidth / 2.0f) / scale,
          (static_cast<float>(y) + 0.5f - kHeight / 2.0f) / scale};
}

TEST_F(LevelOfDetailGl, ImpostorsCoverTheMeshesPixelsInTheirColours) {
  Renderer meshes({.width = kWidth, .height = kHeight, .draw_path = DrawPath::Meshes});
  Renderer detail({.width = kWidth, .height = kHeight, .draw_path = DrawPath::LevelOfDetail});
  for (const Shape shape : {Shape::Box, Shape::Chair}) {
    const std::vector<BoxInstance> instances = impostor_sized(150, 7);
    const auto expected = draw(meshes, shape, instances);
    const auto got = draw(detail, shape, instances);
    const DrawCounts counts = detail.frame_counts();
    EXPECT_EQ(counts.impostors, instances.size());
    EXPECT_EQ(counts.meshes + counts.splats + counts.culled, 0u);
    EXPECT_EQ(meshes.frame_counts().meshes, instances.size());
    // Pixels at edges and where two instances cut each other may fall either way: 6 and 8
    // of about 10,000 on llvmpipe.
    const std::size_t drawn = expected.size() / 4 - background_pixels(expected);
    ASSERT_GT(drawn, 5'000u);
    EXPECT_LT(differing_pixels(got, expected, 6), drawn / 500)
        << "of " << drawn << " pixels drawn, shape " << static_cast<int>(shape);
  }
}

TEST_F(LevelOfDetailGl, SphereImpostorsAreTheMeshesSphereSmoothed) {
  Renderer meshes({.width = kWidth, .height = kHeight, .draw_path = DrawPath::Meshes});
  Renderer detail({.width = kWidth, .height = kHeight, .draw_path = DrawPath::LevelOfDetail});
  const std::vector<BoxInstance> instances = impostor_sized(150, 11);
  const auto expected = draw(meshes, Shape::Sphere, instances);
  const auto got = draw(detail, Shape::Sphere, instances);
  EXPECT_EQ(detail.frame_counts().impostors, instances.size());
  // 320 triangles with interpolated normals against the true ellipsoid: close in shape and
  // shading, not equal (1.5% of the pixels differ by more than 24 on llvmpipe).
  const std::size_t drawn = expected.size() / 4 - background_pixels(expected);
  EXPECT_LT(differing_pixels(got, expected, 24), drawn / 20) << "of " << drawn;
}

TEST_F(LevelOfDetailGl, LargeOnesAreMeshesAndOnesOutOfViewAreCulled) {
  Renderer renderer({.width = kWidth, .height = kHeight, .draw_path = DrawPath::LevelOfDetail});
  const std::vector<BoxInstance> instances = {
      instance({0, 0, 0}, {4, 4, 4}, {1, 0, 0}),         // 100 pixels across: a mesh
      instance({0, 0, 30}, {1, 1, 1}, {0, 1, 0}),        // behind the eye
      instance({40, 0, 0}, {1, 1, 1}, {0, 1, 0}),        // far to the right
      instance({0, 0, -2000}, {1, 1, 1}, {0, 1, 0}),     // past the far plane
      instance({11, 0, 0}, {1, 1, 1}, {0, 0, 1}),        // across the image's right edge
      instance({0.6f, 0, 19.5f}, {1, 1, 1}, {0, 0, 1}),  // across the near plane, beside
      instance({-5, 3, 0}, {0.5f, 0.5f, 0.5f}, {0, 0, 1}),
      instance({5, -3, 0}, {0.02f, 0.02f, 0.02f}, {1, 1, 0}),
  };
  const auto rgba = draw(renderer, Shape::Box, instances);
  const DrawCounts counts = renderer.frame_counts();
  EXPECT_EQ(counts.meshes, 3u);
  EXPECT_EQ(counts.culled, 3u);
  EXPECT_EQ(counts.impostors, 1u);
  EXPECT_EQ(counts.splats, 1u);
  const auto centre = pixel(rgba, kWidth / 2, kHeight / 2);
  EXPECT_GT(centre[0], 50);  // the red box, in front of which nothing lies
  EXPECT_LT(centre[1], 10);
  const auto [edge_x, edge_y] = pixel_of(10.95f, 0);
  EXPECT_GT(pixel(rgba, edge_x, edge_y)[2], 50) << "the box across the edge";
}

TEST_F(LevelOfDetailGl, SplatsLightThePixelUnderTheirCentreTheNearestInFront) {
  Renderer renderer({.width = kWidth, .height = kHeight, .draw_path = DrawPath::LevelOfDetail});
  const float tiny = 0.03f;  // 0.8 pixels across at most
  // At pixel centres, so that the pixels under the splats are plain.
  const auto [ax, ay] = at_pixel(40, 50, 0);
  const auto [far_x, far_y] = at_pixel(250, 180, -0.5f);
  const auto [near_x, near_y] = at_pixel(250, 180, 0.5f);
  const auto [cx, cy] = at_pixel(200, 60, 0);
  const auto [hidden_x, hidden_y] = at_pixel(200, 60, -1);
  const auto [front_x, front_y] = at_pixel(205, 60, 1.5f);
  const std::vector<BoxInstance> instances = {
      instance({ax, ay, 0}, {tiny, tiny, tiny}, {1, 0, 0}),
      // two at one pixel: the nearer, blue, drawn second, wins
      instance({far_x, far_y, -0.5f}, {tiny, tiny, tiny}, {1, 0, 0}),
      instance({near_x, near_y, 0.5f}, {tiny, tiny, tiny}, {0, 0, 1}),
      // one behind a box, one in front of it
      instance({hidden_x, hidden_y, -1}, {tiny, tiny, tiny}, {1, 0, 0}),
      instance({front_x, front_y, 1.5f}, {tiny, tiny, tiny}, {0, 1, 0}),
      instance({cx + 0.15f, cy, 0}, {0.8f, 0.8f, 0.8f}, {1, 1, 1}),
  };
  const auto rgba = draw(renderer, Shape::Box, instances);
  const DrawCounts counts = renderer.frame_counts();
  EXPECT_EQ(counts.splats, 5u);
  EXPECT_EQ(counts.impostors, 1u);

  const auto red = pixel(rgba, 40, 50);
  EXPECT_GT(red[0], 60);
  EXPECT_LT(red[1] + red[2], 10);
  EXPECT_EQ(pixel(rgba, 41, 50), (std::array<int, 3>{20, 23, 28})) << "one pixel, not two";
  const auto blue = pixel(rgba, 250, 180);
  EXPECT_GT(blue[2], 60);
  EXPECT_LT(blue[0], 10);
  const auto hidden = pixel(rgba, 200, 60);
  EXPECT_EQ(hidden[0], hidden[2]) << "the white box hides the red splat";
  const auto green = pixel(rgba, 205, 60);
  EXPECT_GT(green[1], 60);
  EXPECT_LT(green[0] + green[2], 10);

  // The composite empties the pixels it shows: a frame without splats shows nothing of them,
  // and one whose splats' rectangle holds the old pixels shows nothing at them either.
  const std::array<int, 3> background = {20, 23, 28};
  const auto empty = draw(renderer, Shape::Box, {instance({0, 0, 30}, {1, 1, 1}, {1, 1, 1})});
  EXPECT_EQ(renderer.frame_counts().culled, 1u);
  EXPECT_EQ(background_pixels(empty), static_cast<std::size_t>(kWidth * kHeight));
  draw(renderer, Shape::Box, instances);
  const auto [low_x, low_y] = at_pixel(10, 10, 0);
  const auto [high_x, high_y] = at_pixel(300, 230, 0);
  const auto around = draw(renderer, Shape::Box,
                           {instance({low_x, low_y, 0}, {tiny, tiny, tiny}, {1, 1, 1}),
                            instance({high_x, high_y, 0}, {tiny, tiny, tiny}, {1, 1, 1})});
  EXPECT_EQ(renderer.frame_counts().splats, 2u);
  EXPECT_EQ(pixel(around, 40, 50), background);
  EXPECT_EQ(pixel(around, 250, 180), background);
  EXPECT_EQ(pixel(around, 205, 60), background);

  // Two batches in a frame: each composites its own splats, the second's rectangle over the
  // first's pixel leaving it (its instance 0, blue, is not the first batch's red one).
  const auto [left_x, left_y] = at_pixel(30, 40, 0);
  renderer.begin_frame(kFront);
  renderer.draw_instances(Shape::Box, std::vector{instances[0]});
  renderer.draw_instances(
      Shape::Chair,
      std::vector{instance({left_x, left_y, 0}, {tiny, tiny, tiny}, {0, 0, 1}), instances[2]});
  const auto two = renderer.read_rgba();
  EXPECT_EQ(renderer.frame_counts().splats, 3u);
  EXPECT_GT(pixel(two, 40, 50)[0], 60);
  EXPECT_LT(pixel(two, 40, 50)[2], 10);
  EXPECT_GT(pixel(two, 30, 40)[2], 60);
  EXPECT_GT(pixel(two, 250, 180)[2], 60);
}

TEST_F(LevelOfDetailGl, AResizedImageSplatsWhereItShouldAndNowhereElse) {
  Renderer renderer({.width = 64, .height = 64, .draw_path = DrawPath::LevelOfDetail});
  const std::vector<BoxInstance> instances = {
      instance({0, 0, 0}, {0.02f, 0.02f, 0.02f}, {1, 1, 0}),
      instance({1, 1, 0}, {0.02f, 0.02f, 0.02f}, {1, 1, 0})};
  draw(renderer, Shape::Box, instances);
  EXPECT_EQ(renderer.frame_counts().splats, 2u);
  renderer.resize(kWidth, kHeight);
  const auto rgba = draw(renderer, Shape::Box, std::vector{instances[0]});
  EXPECT_EQ(renderer.frame_counts().splats, 1u);
  const auto [x, y] = pixel_of(0, 0);
  EXPECT_GT(pixel(rgba, x, y)[0], 60);
  EXPECT_GT(pixel(rgba, x, y)[1], 60);
  EXPECT_EQ(background_pixels(rgba), static_cast<std::size_t>(kWidth * kHeight - 1));
}

TEST_F(LevelOfDetailGl, AFlatInstanceIsAMesh) {
  Renderer renderer({.width = kWidth, .height = kHeight, .draw_path = DrawPath::LevelOfDetail});
  const OrbitCamera above{.distance = 20, .yaw_degrees = 0, .pitch_degrees = 60};
  const auto rgba =
      draw(renderer, Shape::Box, {instance({0, 0, 0}, {0.8f, 0, 0.8f}, {1, 0, 0})}, above);
  EXPECT_EQ(renderer.frame_counts().meshes, 1u);
  EXPECT_GT(pixel(rgba, kWidth / 2, kHeight / 2)[0], 60) << "a plate seen from above";
}

// An impostor 300 pixels across is past llvmpipe's largest point (255): a mesh there, whatever
// mesh_pixels says; the image is the meshes' either way. (The test asks the GL nothing itself:
// in a shared build its own GL loader is not the library's.)
TEST_F(LevelOfDetailGl, AnImpostorLargerThanTheLargestPointIsAMesh) {
  constexpr int kSide = 1024;
  Renderer meshes({.width = kSide, .height = kSide, .draw_path = DrawPath::Meshes});
  Renderer detail(
      {.width = kSide, .height = kSide, .draw_path = DrawPath::LevelOfDetail, .mesh_pixels = 2000});
  const std::vector<BoxInstance> big = {
      instance({0, 0, 0}, {3, 3, 3}, {1, 0.5f, 0}, {0.2f, 0.3f, 0.1f, 0.927f})};
  const auto expected = draw(meshes, Shape::Box, big);
  const auto got = draw(detail, Shape::Box, big);
  const DrawCounts counts = detail.frame_counts();
  EXPECT_EQ(counts.meshes + counts.impostors, 1u);
  if (context_->description().find("llvmpipe") != std::string::npos) {
    EXPECT_EQ(counts.meshes, 1u) << "llvmpipe's largest point is 255 pixels";
  }
  const std::size_t drawn = expected.size() / 4 - background_pixels(expected);
  ASSERT_GT(drawn, 50'000u);
  EXPECT_LT(differing_pixels(got, expected, 6), drawn / 500);
}

TEST_F(LevelOfDetailGl, InstancesThatAreNotFiniteAreCulledAndHideNothing) {
  Renderer renderer({.width = kWidth, .height = kHeight, .draw_path = DrawPath::LevelOfDetail});
  const std::vector<BoxInstance> good = impostor_sized(30, 9);
  const auto expected = draw(renderer, Shape::Box, good);
  std::vector<BoxInstance> mixed = good;
  const float nan = std::nanf("");
  const float inf = std::numeric_limits<float>::infinity();
  mixed.push_back(instance({nan, 0, 0}, {1, 1, 1}, {1, 1, 1}));
  mixed.push_back(instance({0, 0, 0}, {nan, 1, 1}, {1, 1, 1}));
  mixed.push_back(instance({0, inf, 0}, {1, 1, 1}, {1, 1, 1}));
  mixed.push_back(instance({0, 0, 0}, {inf, inf, inf}, {1, 1, 1}));
  const auto got = draw(renderer, Shape::Box, mixed);
  EXPECT_EQ(renderer.frame_counts().culled, 4u);
  EXPECT_EQ(renderer.frame_counts().impostors, good.size());
  EXPECT_EQ(got, expected);
}

TEST_F(LevelOfDetailGl, AutoDrawsMeshesOnASoftwareRasteriserAndTheLevelOfDetailOnAGpu) {
  Renderer renderer({.width = kWidth, .height = kHeight});
  const std::string gl = context_->description();
  const bool software =
      gl.find("llvmpipe") != std::string::npos || gl.find("softpipe") != std::string::npos;
  EXPECT_EQ(renderer.options().draw_path, software ? DrawPath::Meshes : DrawPath::LevelOfDetail)
      << gl;
  const std::vector<BoxInstance> instances = impostor_sized(40, 5);
  draw(renderer, Shape::Box, instances);
  const DrawCounts counts = renderer.frame_counts();
  EXPECT_EQ(software ? counts.meshes : counts.impostors, instances.size());
}

TEST_F(LevelOfDetailGl, SizesOutOfRangeAreRefused) {
  for (const float pixels : {-1.0f, std::nanf(""), 1e9f}) {
    EXPECT_THROW(Renderer({.width = 8, .height = 8, .mesh_pixels = pixels}), rsw::Error);
    EXPECT_THROW(Renderer({.width = 8, .height = 8, .splat_pixels = pixels}), rsw::Error);
  }
}

TEST_F(LevelOfDetailGl, ThePathChangesBetweenFramesAndTheFrameBeforeKeepsItsCounts) {
  Renderer renderer({.width = kWidth, .height = kHeight, .draw_path = DrawPath::Meshes});
  const std::vector<BoxInstance> instances = impostor_sized(10, 3);
  const auto meshes = draw(renderer, Shape::Chair, instances);
  EXPECT_EQ(renderer.frame_counts().meshes, 10u);
  EXPECT_EQ(renderer.frame_counts().impostors, 0u);

  renderer.set_draw_path(DrawPath::LevelOfDetail);
  const auto detail = draw(renderer, Shape::Chair, instances);
  EXPECT_EQ(renderer.frame_counts().impostors, 10u);
  EXPECT_EQ(renderer.frame_counts().meshes, 0u);
  EXPECT_EQ(renderer.previous_frame_counts().meshes, 10u);
  EXPECT_LT(differing_pixels(meshes, detail, 6), 20u);

  renderer.set_draw_path(DrawPath::Meshes);
  EXPECT_EQ(draw(renderer, Shape::Chair, instances), meshes);
  EXPECT_EQ(renderer.frame_counts().meshes, 10u);
  EXPECT_EQ(renderer.previous_frame_counts().impostors, 10u);
  EXPECT_EQ(renderer.previous_frame_counts().meshes, 0u);
}

}  // namespace
