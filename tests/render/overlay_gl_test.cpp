// The ImGui overlay drawn headless over a renderer's image: its panels cover the top left
// corner (stats), the top right (controls) and, when asked, the bottom right (help); the rest
// of the image is left as the renderer drew it; with no input the controls are not changed.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "headless_gl_fixture.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/render/overlay.hpp"
#include "rsw/render/renderer.hpp"

namespace {

using rsw::render::Overlay;
using rsw::render::OverlayControls;
using rsw::render::OverlayStats;
using rsw::render::Renderer;

constexpr int kWidth = 1024;
constexpr int kHeight = 768;
constexpr std::uint8_t kBackground[3] = {255, 0, 255};  // magenta: no panel colour is near it

class OverlayGl : public rsw::render::testing::HeadlessGlTest {
 protected:
  // Share of the pixels of the rectangle [x0, x1) x [y0, y1) that are not the background.
  static double covered(const std::vector<std::uint8_t>& rgba, int x0, int y0, int x1, int y1) {
    int changed = 0;
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
        const std::size_t at = (static_cast<std::size_t>(y) * kWidth + x) * 4;
        if (rgba[at] != kBackground[0] || rgba[at + 1] != kBackground[1] ||
            rgba[at + 2] != kBackground[2]) {
          ++changed;
        }
      }
    }
    return static_cast<double>(changed) / ((x1 - x0) * (y1 - y0));
  }

  static OverlayControls demo_controls() {
    return {
        .scenes = {"chairs", "particles", "n-body"},
        .scene = 1,
        .count = 5000,
        .backends = {"CPU", "GPU"},
        .backend = 1,
        .sorts = {"CPU radix", "four-way", "Onesweep"},
        .sort = 2,
        .shortcuts = {{"Space", "pause"}, {"N", "step"}, {"R", "reset"}, {"F12", "screenshot"}}};
  }

  static rsw::StageProfiler profiler_with_frames() {
    rsw::StageProfiler profiler;
    for (int frame = 0; frame < 30; ++frame) {
      profiler.add_sample("keys", 0.1 + 0.01 * frame);
      profiler.add_sample("sort", 0.5);
      profiler.add_sample("sweep", 0.3);
      profiler.end_frame();
    }
    return profiler;
  }

  void SetUp() override {
    HeadlessGlTest::SetUp();
    if (IsSkipped()) return;
    renderer_.emplace(
        rsw::render::RendererOptions{.width = kWidth, .height = kHeight, .background = {1, 0, 1}});
  }

  std::optional<Renderer> renderer_;
};

TEST_F(OverlayGl, PanelsCoverTheTopCornersAndNothingElse) {
  const rsw::StageProfiler profiler = profiler_with_frames();
  Overlay overlay;
  OverlayControls controls = demo_controls();
  const OverlayControls before = controls;
  const OverlayStats stats{.profiler = &profiler,
                           .stages = {"keys", "sort", "sweep", "never timed"},
                           .device = "test device",
                           .objects = 123456,
                           .candidates = 7890123,
                           .pairs = 4567,
                           .sort_passes_run = 2,
                           .sort_passes_total = 4};
  for (int frame = 0; frame < 3; ++frame) {  // ImGui sizes auto-resized panels over frames
    renderer_->draw_boxes({}, {});
    overlay.draw(stats, controls, *renderer_);
  }
  const std::vector<std::uint8_t> rgba = renderer_->read_rgba();
  EXPECT_GT(covered(rgba, 10, 10, 110, 60), 0.9) << "the stats panel's top left";
  EXPECT_GT(covered(rgba, kWidth - 60, 12, kWidth - 12, 40), 0.9) << "the controls, top right";
  EXPECT_EQ(covered(rgba, kWidth / 2 - 20, kHeight / 2 - 20, kWidth / 2 + 20, kHeight / 2 + 20),
            0.0)
      << "the middle";
  EXPECT_EQ(covered(rgba, kWidth - 60, kHeight - 40, kWidth, kHeight), 0.0)
      << "no help panel (bottom right) unless asked";
  EXPECT_EQ(controls.scene, before.scene);
  EXPECT_EQ(controls.count, before.count);
  EXPECT_EQ(controls.backend, before.backend);
  EXPECT_EQ(controls.sort, before.sort);
  EXPECT_FALSE(controls.step || controls.reset || controls.screenshot || controls.paused);
  EXPECT_FALSE(overlay.wants_mouse());
  EXPECT_FALSE(overlay.wants_keyboard());
}

TEST_F(OverlayGl, TheHelpPanelOpensAtTheBottomRight) {
  Overlay overlay;
  OverlayControls controls = demo_controls();
  controls.show_help = true;
  for (int frame = 0; frame < 3; ++frame) {
    renderer_->draw_boxes({}, {});
    overlay.draw({}, controls, *renderer_);
  }
  const std::vector<std::uint8_t> rgba = renderer_->read_rgba();
  EXPECT_GT(covered(rgba, kWidth - 40, kHeight - 30, kWidth - 12, kHeight - 12), 0.9);
  EXPECT_TRUE(controls.show_help);
}

TEST_F(OverlayGl, OneOverlayAtATime) {
  Overlay first;
  EXPECT_THROW(Overlay second, rsw::Error);
}

}  // namespace
