// The boxes scene drawn headless (llvmpipe in CI): its boxes cover part of the image and
// leave the background elsewhere; a picked box is drawn in the highlight colour.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "../render/headless_gl_fixture.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/render/renderer.hpp"
#include "rsw/scenes/scene.hpp"
#include "rsw_test/cuda_device.hpp"

namespace {

class BoxesSceneGl : public rsw::render::testing::HeadlessGlTest {};

TEST_F(BoxesSceneGl, DrawsItsBoxes) {
  std::unique_ptr<rsw::scenes::Scene> scene = rsw::scenes::make_scene("boxes");
  scene->reset({.count = 2000, .seed = 2, .backend = rsw::Backend::Cpu});
  rsw::StageProfiler profiler;
  scene->step(profiler);
  rsw::render::Renderer renderer({.width = 160, .height = 120, .background = {0, 0, 0}});
  renderer.begin_frame(scene->camera());
  scene->draw(renderer, profiler);
  const std::vector<std::uint8_t> rgba = renderer.read_rgba();
  std::size_t lit = 0;
  for (std::size_t at = 0; at < rgba.size(); at += 4)
    lit += rgba[at] + rgba[at + 1] + rgba[at + 2] > 30 ? 1 : 0;
  const double share = static_cast<double>(lit) / (160.0 * 120.0);
  EXPECT_GT(share, 0.05) << "the boxes";
  EXPECT_LT(share, 0.9) << "and the background around them";
  EXPECT_TRUE(profiler.stats("render").has_value());
}

// The box a pixel's ray picks is what the pixel shows: highlighted, the pixel turns magenta,
// on the CPU (host instances) and on the GPU (a kernel paints the mapped interop buffer).
void expect_the_picked_box_drawn_highlighted(rsw::Backend backend) {
  std::unique_ptr<rsw::scenes::Scene> scene = rsw::scenes::make_scene("boxes");
  scene->reset({.count = 2000, .seed = 2, .backend = backend});
  rsw::StageProfiler profiler;
  scene->step(profiler);
  constexpr int kWidth = 160;
  constexpr int kHeight = 120;
  rsw::render::Renderer renderer({.width = kWidth, .height = kHeight, .background = {0, 0, 0}});
  const rsw::render::OrbitCamera camera = scene->camera();
  const auto pixel = [&] {
    renderer.begin_frame(camera);
    scene->draw(renderer, profiler);
    const std::vector<std::uint8_t> rgba = renderer.read_rgba();
    const std::size_t at = (static_cast<std::size_t>(kHeight / 2) * kWidth + kWidth / 2) * 4;
    return std::array<int, 3>{rgba[at], rgba[at + 1], rgba[at + 2]};
  };
  const std::array<int, 3> before = pixel();
  const std::optional<rsw::scenes::ScenePick> picked =
      scene->pick(camera.ray_through(kWidth / 2 + 0.5f, kHeight / 2 + 0.5f, kWidth, kHeight));
  ASSERT_TRUE(picked) << "the middle of the scene is full of boxes";
  scene->set_highlight({.picked = picked->object, .partners = {1999, 5000}});
  const std::array<int, 3> after = pixel();
  EXPECT_GT(after[0], 2 * after[1]) << "red over green";
  EXPECT_GT(after[2], 2 * after[1]) << "blue over green";
  EXPECT_NE(after, before);
  scene->set_highlight({});
  EXPECT_EQ(pixel(), before);
}

TEST_F(BoxesSceneGl, APickedBoxIsDrawnHighlighted) {
  expect_the_picked_box_drawn_highlighted(rsw::Backend::Cpu);
}

TEST_F(BoxesSceneGl, APickedBoxIsDrawnHighlightedOnTheGpu) {
  RSW_REQUIRE_CUDA_DEVICE();
  expect_the_picked_box_drawn_highlighted(rsw::Backend::Cuda);
}

}  // namespace
