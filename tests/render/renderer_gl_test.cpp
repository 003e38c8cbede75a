// The renderer on a headless EGL context (Mesa llvmpipe in CI, the GPU's EGL device on the
// GPU machine): known arrangements drawn and read back, colours checked where boxes must and
// must not be. Skipped, saying why, where EGL gives no OpenGL 4.5 core context.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "headless_gl_fixture.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/render/renderer.hpp"

namespace {

using rsw::render::BoxInstance;
using rsw::render::OrbitCamera;
using rsw::render::Renderer;

struct Rgb {
  int r, g, b;
};

class RendererGl : public rsw::render::testing::HeadlessGlTest {
 protected:
  static Rgb pixel(const Renderer& renderer, const std::vector<std::uint8_t>& rgba, int x, int y) {
    const std::size_t at = (static_cast<std::size_t>(y) * renderer.options().width + x) * 4;
    return {rgba[at], rgba[at + 1], rgba[at + 2]};
  }
};

BoxInstance box(float x, float y, float z, float size, std::array<float, 3> colour) {
  BoxInstance instance;
  instance.centre[0] = x;
  instance.centre[1] = y;
  instance.centre[2] = z;
  for (float& side : instance.size)
    side = size;
  instance.colour[0] = colour[0];
  instance.colour[1] = colour[1];
  instance.colour[2] = colour[2];
  return instance;
}

// Looking down -z at the origin from 10 units: with a 45 degree field of view and a 96x64
// image, one world unit at z = 0 is 64 / (2 * 10 * tan(22.5 deg)) = 7.7 pixels.
const OrbitCamera kFront{.target = {0, 0, 0}, .distance = 10, .yaw_degrees = 0, .pitch_degrees = 0};

TEST_F(RendererGl, BoxesAppearWhereTheyAreAndNowhereElse) {
  Renderer renderer({.width = 96, .height = 64});
  const std::vector<BoxInstance> boxes = {box(-2, 0, 0, 1.5f, {1, 0, 0}),
                                          box(2, 0, 0, 1.5f, {0, 0, 1})};
  renderer.draw_boxes(boxes, kFront);
  const auto rgba = renderer.read_rgba();
  ASSERT_EQ(rgba.size(), 96u * 64u * 4u);
  const Rgb left = pixel(renderer, rgba, 48 - 15, 32);  // x = -2 is 15.4 pixels left of centre
  const Rgb right = pixel(renderer, rgba, 48 + 15, 32);
  const Rgb between = pixel(renderer, rgba, 48, 32);
  const Rgb corner = pixel(renderer, rgba, 2, 2);
  EXPECT_GT(left.r, 100);
  EXPECT_LT(left.g, 40);
  EXPECT_LT(left.b, 40);
  EXPECT_GT(right.b, 100);
  EXPECT_LT(right.r, 40);
  EXPECT_LT(right.g, 40);
  for (const Rgb& background : {between, corner}) {  // the clear colour (0.08, 0.09, 0.11)
    EXPECT_NEAR(background.r, 20, 3);
    EXPECT_NEAR(background.g, 23, 3);
    EXPECT_NEAR(background.b, 28, 3);
  }
}

TEST_F(RendererGl, TheNearerBoxHidesTheFartherOne) {
  Renderer renderer({.width = 64, .height = 64});
  // Drawn far first and near first: the depth test, not the order, decides.
  for (const bool near_first : {false, true}) {
    const BoxInstance near = box(0, 0, 2, 1, {0, 1, 0});
    const BoxInstance far = box(0, 0, -2, 3, {1, 0, 0});
    const std::vector<BoxInstance> boxes =
        near_first ? std::vector{near, far} : std::vector{far, near};
    renderer.draw_boxes(boxes, kFront);
    const auto rgba = renderer.read_rgba();
    const Rgb centre = pixel(renderer, rgba, 32, 32);
    EXPECT_GT(centre.g, 100) << "near first: " << near_first;
    EXPECT_LT(centre.r, 40) << "near first: " << near_first;
    // The far box is larger: its red shows around the near one (its front face reaches 11
    // pixels from the centre, the near box 5).
    const Rgb beside =
        pixel(renderer, rgba, 32 + 8, 32);  // 5 px beyond the near box, 11 px the far
    EXPECT_GT(beside.r, 60) << "near first: " << near_first;
  }
}

TEST_F(RendererGl, TopFacesAreLitMoreThanFrontFaces) {
  Renderer renderer({.width = 64, .height = 64});
  // Seen from above and in front: the top face faces the light (0.4, 1, 0.6) more squarely.
  const OrbitCamera above{.distance = 8, .yaw_degrees = 0, .pitch_degrees = 35};
  renderer.draw_boxes(std::vector{box(0, 0, 0, 3, {1, 1, 1})}, above);
  const auto rgba = renderer.read_rgba();
  const Rgb top = pixel(renderer, rgba, 32, 20);
  const Rgb front = pixel(renderer, rgba, 32, 44);
  EXPECT_GT(top.r, front.r + 20) << "top " << top.r << ", front " << front.r;
}

TEST_F(RendererGl, NoBoxesGiveTheBackground) {
  Renderer renderer({.width = 17, .height = 5, .background = {1, 0.5f, 0}});
  renderer.draw_boxes({}, kFront);
  const auto rgba = renderer.read_rgba();
  for (std::size_t at = 0; at < rgba.size(); at += 4) {
    ASSERT_EQ(rgba[at], 255);
    ASSERT_NEAR(rgba[at + 1], 128, 1);
    ASSERT_EQ(rgba[at + 2], 0);
    ASSERT_EQ(rgba[at + 3], 255);
  }
}

TEST_F(RendererGl, ManyBoxesGrowTheInstanceBuffer) {
  Renderer renderer({.width = 64, .height = 64});
  for (const int count : {1, 10, 1000, 20011}) {
    std::vector<BoxInstance> boxes;
    for (int i = 0; i < count; ++i) {
      boxes.push_back(box(-3.0f + 6.0f * static_cast<float>(i % 100) / 99.0f,
                          -3.0f + 6.0f * static_cast<float>(i / 100 % 100) / 99.0f, 0, 0.5f,
                          {1, 1, 0}));
    }
    renderer.draw_boxes(boxes, kFront);
    const auto rgba = renderer.read_rgba();
    const Rgb first = pixel(renderer, rgba, 32 - 23, 32 + 23);  // box 0 at (-3, -3)
    EXPECT_GT(first.r, 60) << count << " boxes";
  }
}

TEST_F(RendererGl, SavePngWritesTheImage) {
  Renderer renderer({.width = 40, .height = 30});
  renderer.draw_boxes(std::vector{box(0, 0, 0, 2, {1, 1, 1})}, kFront);
  const auto path = std::filesystem::temp_directory_path() / "rsw_renderer_gl_test.png";
  renderer.save_png(path.string());
  std::ifstream file(path, std::ios::binary);
  std::array<unsigned char, 24> header{};
  file.read(reinterpret_cast<char*>(header.data()), header.size());
  ASSERT_TRUE(file) << path;
  const std::array<unsigned char, 8> signature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  EXPECT_TRUE(std::equal(signature.begin(), signature.end(), header.begin()));
  EXPECT_EQ(header[19], 40);  // IHDR width and height, big-endian
  EXPECT_EQ(header[23], 30);
  std::filesystem::remove(path);
  EXPECT_THROW(renderer.save_png("/nonexistent-directory/shot.png"), rsw::Error);
}

TEST_F(RendererGl, ImageSizesOutOfRangeAreErrors) {
  for (const auto& [width, height] : {std::pair{0, 10}, std::pair{10, -1}, std::pair{20000, 1}}) {
    try {
      Renderer renderer({.width = width, .height = height});
      ADD_FAILURE() << width << "x" << height << " was accepted";
    } catch (const rsw::Error& error) {
      EXPECT_EQ(error.kind(), rsw::ErrorKind::InvalidArgument);
    }
  }
}

TEST_F(RendererGl, ResizeChangesTheImageAndKeepsItOnABadSize) {
  Renderer renderer({.width = 40, .height = 30});
  renderer.resize(64, 48);
  renderer.draw_boxes(std::vector{box(0, 0, 0, 2, {0, 1, 0})}, kFront);
  auto rgba = renderer.read_rgba();
  ASSERT_EQ(rgba.size(), 64u * 48u * 4u);
  EXPECT_GT(pixel(renderer, rgba, 32, 24).g, 100);
  EXPECT_THROW(renderer.resize(0, 48), rsw::Error);
  EXPECT_EQ(renderer.options().width, 64);
  EXPECT_EQ(renderer.options().height, 48);
  renderer.draw_boxes(std::vector{box(0, 0, 0, 2, {0, 1, 0})}, kFront);
  rgba = renderer.read_rgba();
  EXPECT_GT(pixel(renderer, rgba, 32, 24).g, 100);
}

rsw::render::SphereInstance sprite(float x, float y, float z, float radius,
                                   std::array<float, 3> colour) {
  rsw::render::SphereInstance sphere;
  sphere.centre[0] = x;
  sphere.centre[1] = y;
  sphere.centre[2] = z;
  sphere.radius = radius;
  std::copy(colour.begin(), colour.end(), sphere.colour);
  return sphere;
}

// A sprite of radius 1 at 10 units covers a disc of 7.7 pixels around its centre, lit from
// above more than from below; outside the disc is the background.
TEST_F(RendererGl, SpritesAreLitDiscsOfTheirProjectedRadius) {
  Renderer renderer({.width = 64, .height = 64});
  renderer.begin_frame(kFront);
  renderer.draw_spheres(std::vector{sprite(0, 0, 0, 1, {1, 1, 1})});
  const auto rgba = renderer.read_rgba();
  EXPECT_GT(pixel(renderer, rgba, 32, 32).r, 120);  // (0.25 + 0.75 * 0.49) * 255 facing us
  EXPECT_GT(pixel(renderer, rgba, 32 + 6, 32).r, 60) << "inside the disc";
  EXPECT_NEAR(pixel(renderer, rgba, 32 + 10, 32).r, 20, 3) << "outside the disc";
  EXPECT_NEAR(pixel(renderer, rgba, 32, 32 + 10).r, 20, 3) << "outside the disc";
  EXPECT_GT(pixel(renderer, rgba, 32, 32 - 5).r, pixel(renderer, rgba, 32, 32 + 5).r + 30)
      << "the top faces the light";
}

// Sprites write their sphere's depth: a box passing through a sprite's centre shows in front
// of the sprite's edge and behind its middle.
TEST_F(RendererGl, SpritesAndMeshesShareTheDepthBuffer) {
  Renderer renderer({.width = 64, .height = 64});
  renderer.begin_frame(kFront);
  renderer.draw_spheres(std::vector{sprite(0, 0, 0, 2, {1, 0, 0})});
  BoxInstance slab = box(0, 0, 0, 3, {0, 0, 1});
  slab.size[0] = 8;  // a wide slab through the sphere's centre, its front at z = 1.5
  slab.size[1] = 0.5f;
  renderer.draw_instances(rsw::render::Shape::Box, std::vector{slab});
  const auto rgba = renderer.read_rgba();
  const Rgb middle = pixel(renderer, rgba, 32, 32);  // the sphere's front is at z = 2
  EXPECT_GT(middle.r, 100);
  EXPECT_LT(middle.b, 60);
  const Rgb edge = pixel(renderer, rgba, 32 + 14, 32);  // 1.8 units out: the sphere at z = 0.8
  EXPECT_GT(edge.b, 100);
  EXPECT_LT(edge.r, 60);
}

// A chair seen from the front: its seat across the middle, its legs below at the sides, and
// the gap between the legs shows the background.
TEST_F(RendererGl, ChairsStandOnTheirLegs) {
  Renderer renderer({.width = 64, .height = 64});
  renderer.begin_frame(kFront);
  BoxInstance chair = box(0, 0, 0, 4, {1, 1, 0});
  renderer.draw_instances(rsw::render::Shape::Chair, std::vector{chair});
  const auto rgba = renderer.read_rgba();
  // The seat spans y in [-0.2, 0.2]; the front legs, x in +-[1.52, 2] and 8 units from the eye
  // (9.7 pixels a unit), reach 14.7 to 19.3 pixels out from the middle, below the seat.
  EXPECT_GT(pixel(renderer, rgba, 32, 32).r, 60) << "the seat";
  EXPECT_GT(pixel(renderer, rgba, 32 - 17, 32 + 8).r, 60) << "a front leg";
  EXPECT_NEAR(pixel(renderer, rgba, 32, 32 + 8).r, 20, 3) << "between the legs";
  EXPECT_GT(pixel(renderer, rgba, 32, 32 - 8).r, 60) << "the back, behind the seat";
}

TEST_F(RendererGl, SphereMeshesAreRound) {
  Renderer renderer({.width = 64, .height = 64});
  renderer.begin_frame(kFront);
  renderer.draw_instances(rsw::render::Shape::Sphere, std::vector{box(0, 0, 0, 2, {0, 1, 0})});
  const auto rgba = renderer.read_rgba();
  EXPECT_GT(pixel(renderer, rgba, 32, 32).g, 100);
  EXPECT_GT(pixel(renderer, rgba, 32 + 6, 32).g, 40) << "inside the radius (7.7 px)";
  // A box of the same size would cover its corner at (5.4, 5.4) px; the sphere does not.
  EXPECT_NEAR(pixel(renderer, rgba, 32 + 6, 32 + 6).g, 23, 3);
}

TEST_F(RendererGl, TheHeightFieldIsDrawnUnderTheCamera) {
  Renderer renderer({.width = 64, .height = 64});
  rsw::render::HeightField field{
      .columns = 3, .rows = 3, .min_x = -4, .max_x = 4, .min_z = -4, .max_z = 4};
  field.heights.assign(9, -1.0f);
  field.colour = {0, 1, 0};
  renderer.draw_height_field();  // nothing set yet: nothing drawn, no error
  renderer.set_height_field(field);
  const OrbitCamera above{.distance = 6, .yaw_degrees = 0, .pitch_degrees = 60};
  renderer.begin_frame(above);
  renderer.draw_height_field();
  const auto rgba = renderer.read_rgba();
  EXPECT_GT(pixel(renderer, rgba, 32, 32).g, 100);  // lit from above: bright green
  EXPECT_LT(pixel(renderer, rgba, 32, 32).r, 30);
  // The top row looks 37.5 degrees down, reaching y = -1 at z = -5: beyond the far edge.
  EXPECT_NEAR(pixel(renderer, rgba, 32, 1).g, 23, 3) << "the sky beyond the terrain";

  for (const auto& bad :
       {rsw::render::HeightField{.columns = 1, .rows = 3},
        rsw::render::HeightField{.columns = 2, .rows = 2, .heights = {0, 0, 0}},
        rsw::render::HeightField{.columns = 2, .rows = 2, .max_x = 0, .heights = {0, 0, 0, 0}},
        rsw::render::HeightField{.columns = 2, .rows = 2, .heights = {0, 0, NAN, 0}}}) {
    EXPECT_THROW(renderer.set_height_field(bad), rsw::Error);
  }
}

}  // namespace
