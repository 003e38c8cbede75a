// The GLFW window, run under Xvfb in CI (Mesa's GLX gives OpenGL 4.5 core): a hidden window
// opens with its context, shows a renderer's image (read back from the window's own
// framebuffer before the swap), takes no input it was not given, and carries an overlay.
// Skipped, saying why, where no display is named. Without a display, opening one is an
// rsw::Error, not a crash (that test runs everywhere).
#include <gtest/gtest.h>

#include <glad/gl.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "rsw/engine/error.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/render/overlay.hpp"
#include "rsw/render/renderer.hpp"
#include "rsw/render/window.hpp"

namespace {

using rsw::render::BoxInstance;
using rsw::render::OrbitCamera;
using rsw::render::Renderer;
using rsw::render::Window;

class WindowGl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Window::display_named()) GTEST_SKIP() << "no display named (DISPLAY, WAYLAND_DISPLAY)";
    try {
      window_.emplace(rsw::render::WindowOptions{.width = 160, .height = 120, .visible = false});
    } catch (const rsw::Error& error) {
      GTEST_SKIP() << error.what();
    }
    std::printf("window: %s\n", window_->description().c_str());
    // This test reads the window's pixels with GL itself. In a shared build its GLAD is not
    // the library's (each has its own function pointers), so it loads its own.
    ASSERT_NE(gladLoaderLoadGL(), 0);
  }

  std::optional<Window> window_;
};

TEST_F(WindowGl, ShowsTheRenderersImage) {
  const auto [width, height] = window_->framebuffer_size();
  ASSERT_GT(width, 0);
  ASSERT_GT(height, 0);
  EXPECT_NE(window_->description().find("OpenGL"), std::string::npos);
  Renderer renderer({.width = width, .height = height, .background = {0, 0, 1}});
  BoxInstance box;
  box.size[0] = box.size[1] = box.size[2] = 3;
  box.colour[0] = 1;
  box.colour[1] = box.colour[2] = 0;
  renderer.draw_boxes(std::vector{box}, OrbitCamera{.distance = 10, .pitch_degrees = 0});
  renderer.blit_to_default_framebuffer(width, height);
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 4);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  const auto at = [&](int x, int y) { return (static_cast<std::size_t>(y) * width + x) * 4; };
  const std::size_t centre = at(width / 2, height / 2);
  EXPECT_GT(pixels[centre], 100) << "the red box in the middle";
  EXPECT_LT(pixels[centre + 2], 60);
  const std::size_t corner = at(1, 1);
  EXPECT_LT(pixels[corner], 40) << "the blue background in the corner";
  EXPECT_GT(pixels[corner + 2], 200);
  window_->present(renderer);
}

TEST_F(WindowGl, NoInputLeavesTheCameraAndKeysAlone) {
  window_->poll_events();
  window_->poll_events();
  OrbitCamera camera{.target = {1, 2, 3}, .distance = 7, .yaw_degrees = 10, .pitch_degrees = 5};
  window_->drive_camera(camera);
  EXPECT_FLOAT_EQ(camera.distance, 7);
  EXPECT_FLOAT_EQ(camera.yaw_degrees, 10);
  EXPECT_FLOAT_EQ(camera.pitch_degrees, 5);
  EXPECT_FLOAT_EQ(camera.target[0], 1);
  EXPECT_TRUE(window_->key_presses().empty());
  EXPECT_FALSE(window_->key_down(rsw::render::Key::Space));
  EXPECT_FALSE(window_->should_close());
  window_->request_close();
  EXPECT_TRUE(window_->should_close());
}

TEST_F(WindowGl, CarriesAnOverlay) {
  const auto [width, height] = window_->framebuffer_size();
  Renderer renderer({.width = width, .height = height});
  rsw::render::Overlay overlay(*window_);
  rsw::render::OverlayControls controls{.backends = {"CPU"}, .sorts = {"CPU radix"}};
  rsw::StageProfiler profiler;
  for (int frame = 0; frame < 3; ++frame) {
    window_->poll_events();
    profiler.end_frame();
    renderer.draw_boxes({}, {});
    overlay.draw({.profiler = &profiler, .stages = {"frame"}}, controls, renderer);
    window_->present(renderer);
  }
  EXPECT_FALSE(controls.reset);
  EXPECT_THROW(Window second({.visible = false}), rsw::Error) << "one window at a time";
}

TEST(WindowWithoutDisplay, OpeningIsADeviceUnavailableError) {
  ::unsetenv("DISPLAY");
  ::unsetenv("WAYLAND_DISPLAY");
  EXPECT_FALSE(Window::display_named());
  try {
    Window window({.visible = false});
    ADD_FAILURE() << "a window opened without a display";
  } catch (const rsw::Error& error) {
    EXPECT_EQ(error.kind(), rsw::ErrorKind::DeviceUnavailable);
    EXPECT_NE(std::string(error.what()).find("no window"), std::string::npos) << error.what();
  }
}

}  // namespace
