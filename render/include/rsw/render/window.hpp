// rsw::render::Window: a desktop window (GLFW) with an OpenGL 4.5 core context, its input, and
// presentation of a Renderer's image.
//
//   rsw::render::Window window({.title = "RadixSweep"});
//   rsw::render::Renderer renderer({.width = 1280, .height = 720});
//   while (!window.should_close()) {
//     window.poll_events();
//     window.drive_camera(camera);                 // drag, wheel and keys move the camera
//     for (Key key : window.key_presses()) ...     // the application's shortcuts
//     renderer.draw_boxes(boxes, camera);
//     window.present(renderer);                    // copy the image to the window, swap
//   }
//
// The Renderer draws into its own framebuffer object whether or not there is a window, so the
// window only copies that image to the screen: what a screenshot saves is what was shown.
// Without a display (no X11 or Wayland server), construction throws rsw::Error
// (DeviceUnavailable); HeadlessContext is then the way to draw.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/render/orbit_camera.hpp"

namespace rsw::render {

class Renderer;

/// The keys a Window reports: what shortcuts use. (Tables in window.cpp follow this order.)
// clang-format off
enum class Key {
  /// Editing and navigation keys.
  ///@{
  Escape, Space, Enter, Tab, Backspace, Left, Right, Up, Down, PageUp, PageDown,
  ///@}
  /// Function keys.
  ///@{
  F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11, F12,
  ///@}
  /// Letter keys (US layout positions, as GLFW names them).
  ///@{
  A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z,
  ///@}
  /// The digit keys of the main block.
  ///@{
  Digit0, Digit1, Digit2, Digit3, Digit4, Digit5, Digit6, Digit7, Digit8, Digit9,
  ///@}
};
// clang-format on

/// A point of the window's image, in framebuffer pixels from its top left corner.
using Pixel = std::array<float, 2>;

/// A drag of the right mouse button: where it was pressed and where the pointer is now.
struct MouseDrag {
  Pixel from = {0, 0};    ///< where the button went down
  Pixel to = {0, 0};      ///< where the pointer is (or was, when released)
  bool released = false;  ///< the button came up during the last poll: the drag is over
};

/// Setup of a Window.
struct WindowOptions {
  int width = 1280;                  ///< client area width in screen coordinates, 1 .. 16384
  int height = 720;                  ///< client area height in screen coordinates, 1 .. 16384
  std::string title = "RadixSweep";  ///< window title
  bool vsync = true;                 ///< wait for the display's refresh when presenting
  bool visible = true;               ///< false: a hidden window (tests under Xvfb)
};

/// A GLFW window whose OpenGL 4.5 core context is current on the creating thread. One window
/// per process. Not copyable or movable (GLFW's callbacks point at it).
class RSW_API Window {
 public:
  /// Opens the window and loads OpenGL through GLAD; throws rsw::Error (DeviceUnavailable)
  /// when there is no display or it gives no OpenGL 4.5 core context, (InvalidArgument) for
  /// a size out of range or when another Window is open.
  explicit Window(WindowOptions options = {});
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  /// Whether a display server is named in the environment (DISPLAY or WAYLAND_DISPLAY): the
  /// demo goes headless without one, before trying to open a window.
  static bool display_named() noexcept;

  /// Processes pending events: this frame's key presses, mouse drags and wheel turns replace
  /// the last frame's.
  void poll_events();
  /// True once the user closed the window (or request_close() was called).
  bool should_close() const noexcept;
  /// Asks the frame loop to end (Escape in the demo).
  void request_close() noexcept;

  /// Keys pressed during the last poll_events(), in order, unless the overlay took the keyboard.
  const std::vector<Key>& key_presses() const noexcept;
  /// Whether `key` is held down now.
  bool key_down(Key key) const noexcept;
  /// Moves `camera` by the last poll's input, unless the overlay took it: left drag orbits,
  /// middle drag (or left drag with Shift held) pans, the wheel zooms; arrows or W/A/S/D
  /// orbit and Page Up/Down or Q/E zoom while held, at a rate independent of the frame rate.
  /// The right button is the application's (right_drag()).
  void drive_camera(OrbitCamera& camera) const noexcept;
  /// Where the left button was clicked during the last poll (pressed and released again
  /// within a few pixels: not a drag), unless the overlay took the mouse.
  const std::vector<Pixel>& clicks() const noexcept;
  /// The right button's drag while it is held, and at the poll that saw it released; none
  /// otherwise, or when it began over the overlay.
  std::optional<MouseDrag> right_drag() const noexcept;

  /// Size of the drawable area in pixels (differs from the window size on high-DPI screens).
  std::array<int, 2> framebuffer_size() const noexcept;
  /// Copies `renderer`'s image to the window, scaled to the drawable area, and swaps buffers.
  void present(const Renderer& renderer);
  /// Makes the window's context current on the calling thread.
  void make_current();
  /// "OpenGL 4.5 (Core Profile) Mesa 22.3.6, llvmpipe (LLVM 15.0.6, 256 bits), GLFW 3.3.8 X11":
  /// one line for logs.
  const std::string& description() const noexcept;

  /// Lets an overlay claim input: while `wants_mouse` returns true, mouse motion does not
  /// move the camera; while `wants_keyboard` does, key_presses() is empty. Either may be
  /// empty (no claim).
  void set_input_claims(std::function<bool()> wants_mouse, std::function<bool()> wants_keyboard);
  /// The GLFWwindow*, for libraries that drive GLFW themselves (the ImGui backend).
  void* native_handle() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rsw::render
