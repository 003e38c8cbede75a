// Window: GLFW 3.3 with an OpenGL 4.5 core context loaded through GLAD. GLFW's callbacks
// gather key presses, clicks, drags and wheel turns between polls; poll_events() turns them into
// this frame's input. An overlay that installs its own GLFW callbacks afterwards (the ImGui backend
// does) chains to these, so both see every event.
#include "rsw/render/window.hpp"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string>
#include <utility>

#include "rsw/engine/error.hpp"
#include "rsw/render/renderer.hpp"

namespace rsw::render {
namespace {

constexpr int kMaxSide = 16384;
constexpr float kDragDegreesPerPixel = 0.3f;
constexpr float kKeyDegreesPerSecond = 90.0f;
constexpr float kKeyZoomPerSecond = 0.5f;  // the distance halves in a second of Page Up
constexpr float kWheelZoomPerStep = 0.9f;
// A press and release of the left button this close together (in screen units) is a click.
constexpr double kClickSlop = 4.0;

// GLFW's codes of Key's first keys, in Key's order; the rest (F1 .. F12, A .. Z, 0 .. 9) are
// runs of consecutive codes in GLFW as in Key.
constexpr int kNavigationCodes[] = {GLFW_KEY_ESCAPE,  GLFW_KEY_SPACE,     GLFW_KEY_ENTER,
                                    GLFW_KEY_TAB,     GLFW_KEY_BACKSPACE, GLFW_KEY_LEFT,
                                    GLFW_KEY_RIGHT,   GLFW_KEY_UP,        GLFW_KEY_DOWN,
                                    GLFW_KEY_PAGE_UP, GLFW_KEY_PAGE_DOWN};
static_assert(std::size(kNavigationCodes) == static_cast<std::size_t>(Key::F1));
constexpr int kKeyCount = static_cast<int>(Key::Digit9) + 1;

constexpr int glfw_code(Key key) {
  const auto run = [key](Key first, int first_code) {
    return first_code + static_cast<int>(key) - static_cast<int>(first);
  };
  if (key >= Key::Digit0) return run(Key::Digit0, GLFW_KEY_0);
  if (key >= Key::A) return run(Key::A, GLFW_KEY_A);
  if (key >= Key::F1) return run(Key::F1, GLFW_KEY_F1);
  return kNavigationCodes[static_cast<int>(key)];
}
static_assert(glfw_code(Key::F12) == GLFW_KEY_F12 && glfw_code(Key::Z) == GLFW_KEY_Z &&
              glfw_code(Key::Digit9) == GLFW_KEY_9);

// GLFW reports errors through a callback; the last one explains a failed call.
std::string& last_glfw_error() {
  static std::string message;
  return message;
}

void record_glfw_error(int code, const char* description) {
  last_glfw_error() = std::string(description != nullptr ? description : "unknown") + " (GLFW " +
                      std::to_string(code) + ")";
}

[[noreturn]] void unavailable(const std::string& what) {
  const std::string& cause = last_glfw_error();
  throw Error(ErrorKind::DeviceUnavailable,
              "no window: " + what + (cause.empty() ? std::string() : ": " + cause));
}

}  // namespace

struct Window::Impl {
  using Clock = std::chrono::steady_clock;

  GLFWwindow* window = nullptr;
  std::string description;
  // Gathered by the callbacks since the last poll.
  std::vector<Key> pending_presses;
  double pending_orbit[2] = {0, 0};
  double pending_pan[2] = {0, 0};
  double pending_wheel = 0;
  double cursor[2] = {0, 0};
  bool have_cursor = false;
  std::vector<Pixel> pending_clicks;
  std::optional<std::array<double, 2>> left_down;   // where the left button went down
  std::optional<std::array<double, 2>> right_down;  // where the right button went down
  bool right_released = false;
  // The last poll's input.
  std::vector<Key> presses;
  std::vector<Pixel> clicks;
  std::optional<MouseDrag> right_drag;
  double orbit[2] = {0, 0};
  double pan[2] = {0, 0};
  double wheel = 0;
  float seconds = 0;  // since the poll before
  Clock::time_point last_poll = Clock::now();
  std::function<bool()> wants_mouse;
  std::function<bool()> wants_keyboard;

  static Impl& of(GLFWwindow* window) {
    return *static_cast<Impl*>(glfwGetWindowUserPointer(window));
  }

  static void on_key(GLFWwindow* window, int key, int, int action, int) {
    if (action != GLFW_PRESS) return;
    for (int index = 0; index < kKeyCount; ++index) {
      const auto candidate = static_cast<Key>(index);
      if (glfw_code(candidate) == key) of(window).pending_presses.push_back(candidate);
    }
  }

  static void on_cursor(GLFWwindow* window, double x, double y) {
    Impl& state = of(window);
    if (state.have_cursor) {
      const double dx = x - state.cursor[0];
      const double dy = y - state.cursor[1];
      const bool left = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
      const bool shift = glfwGetKey(window, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
                         glfwGetKey(window, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
      if (glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS || (left && shift)) {
        state.pending_pan[0] += dx;
        state.pending_pan[1] += dy;
      } else if (left) {
        state.pending_orbit[0] += dx;
        state.pending_orbit[1] += dy;
      }
    }
    state.cursor[0] = x;
    state.cursor[1] = y;
    state.have_cursor = true;
  }

  static void on_scroll(GLFWwindow* window, double, double y) { of(window).pending_wheel += y; }

  static void on_button(GLFWwindow* window, int button, int action, int) {
    Impl& state = of(window);
    double x = 0;
    double y = 0;
    glfwGetCursorPos(window, &x, &y);
    const std::array<double, 2> at = {x, y};
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
      if (action == GLFW_PRESS) {
        state.left_down = state.mouse_claimed() ? std::nullopt : std::optional(at);
      } else if (state.left_down) {
        const auto [from_x, from_y] = *std::exchange(state.left_down, std::nullopt);
        if (std::abs(x - from_x) <= kClickSlop && std::abs(y - from_y) <= kClickSlop)
          state.pending_clicks.push_back(state.to_pixel(at));
      }
    } else if (button == GLFW_MOUSE_BUTTON_RIGHT) {
      if (action == GLFW_PRESS) {
        state.right_down = state.mouse_claimed() ? std::nullopt : std::optional(at);
      } else if (state.right_down) {
        state.right_released = true;
      }
    }
  }

  // A point in screen units (GLFW's cursor) in framebuffer pixels (they differ on high-DPI
  // screens).
  Pixel to_pixel(const std::array<double, 2>& at) const {
    int width = 0;
    int height = 0;
    int pixels_wide = 0;
    int pixels_high = 0;
    glfwGetWindowSize(window, &width, &height);
    glfwGetFramebufferSize(window, &pixels_wide, &pixels_high);
    const double scale_x = width > 0 ? static_cast<double>(pixels_wide) / width : 1.0;
    const double scale_y = height > 0 ? static_cast<double>(pixels_high) / height : 1.0;
    return {static_cast<float>(at[0] * scale_x), static_cast<float>(at[1] * scale_y)};
  }

  bool mouse_claimed() const { return wants_mouse && wants_mouse(); }
  bool keyboard_claimed() const { return wants_keyboard && wants_keyboard(); }
};

namespace {
Window* open_window = nullptr;  // GLFW is process-wide: one window at a time
}  // namespace

Window::Window(WindowOptions options) : impl_(std::make_unique<Impl>()) {
  const auto in_range = [](int side) { return side >= 1 && side <= kMaxSide; };
  if (!in_range(options.width) || !in_range(options.height)) {
    throw Error(ErrorKind::InvalidArgument,
                "window " + std::to_string(options.width) + "x" + std::to_string(options.height) +
                    ": each side must be 1 .. " + std::to_string(kMaxSide));
  }
  if (open_window != nullptr) {
    throw Error(ErrorKind::InvalidArgument, "a window is already open (one per process)");
  }
  last_glfw_error().clear();
  glfwSetErrorCallback(record_glfw_error);
  if (glfwInit() != GLFW_TRUE) unavailable("GLFW could not start (no display?)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
  GLFWwindow* window =
      glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
  if (window == nullptr) {
    glfwTerminate();
    unavailable("the display gives no OpenGL 4.5 core context");
  }
  glfwMakeContextCurrent(window);
  const int version = gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress));
  if (GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 45) {
    glfwDestroyWindow(window);
    glfwTerminate();
    unavailable("OpenGL 4.5 core could not be loaded");
  }
  glfwSwapInterval(options.vsync ? 1 : 0);

  Impl& state = *impl_;
  state.window = window;
  glfwSetWindowUserPointer(window, &state);
  glfwSetKeyCallback(window, Impl::on_key);
  glfwSetCursorPosCallback(window, Impl::on_cursor);
  glfwSetScrollCallback(window, Impl::on_scroll);
  glfwSetMouseButtonCallback(window, Impl::on_button);
  const auto text = [](GLenum name) {
    const auto* value = reinterpret_cast<const char*>(glGetString(name));
    return std::string(value != nullptr ? value : "?");
  };
  state.description =
      "OpenGL " + text(GL_VERSION) + ", " + text(GL_RENDERER) + ", GLFW " + glfwGetVersionString();
  open_window = this;
}

Window::~Window() {
  glfwDestroyWindow(impl_->window);
  glfwTerminate();
  open_window = nullptr;
}

bool Window::display_named() noexcept {
  const auto named = [](const char* variable) {
    const char* value = std::getenv(variable);
    return value != nullptr && *value != '\0';
  };
  return named("DISPLAY") || named("WAYLAND_DISPLAY");
}

void Window::poll_events() {
  Impl& state = *impl_;
  glfwPollEvents();
  const Impl::Clock::time_point now = Impl::Clock::now();
  state.seconds = std::min(std::chrono::duration<float>(now - state.last_poll).count(), 0.1f);
  state.last_poll = now;
  state.presses = std::exchange(state.pending_presses, {});
  if (state.keyboard_claimed()) state.presses.clear();
  for (int axis = 0; axis < 2; ++axis) {
    state.orbit[axis] = std::exchange(state.pending_orbit[axis], 0.0);
    state.pan[axis] = std::exchange(state.pending_pan[axis], 0.0);
  }
  state.wheel = std::exchange(state.pending_wheel, 0.0);
  state.clicks = std::exchange(state.pending_clicks, {});
  state.right_drag.reset();
  if (state.right_down) {
    double x = 0;
    double y = 0;
    glfwGetCursorPos(state.window, &x, &y);
    state.right_drag = MouseDrag{.from = state.to_pixel(*state.right_down),
                                 .to = state.to_pixel({x, y}),
                                 .released = state.right_released};
    if (state.right_released) state.right_down.reset();
  }
  state.right_released = false;
}

bool Window::should_close() const noexcept {
  return glfwWindowShouldClose(impl_->window) == GLFW_TRUE;
}

void Window::request_close() noexcept {
  glfwSetWindowShouldClose(impl_->window, GLFW_TRUE);
}

const std::vector<Key>& Window::key_presses() const noexcept {
  return impl_->presses;
}

const std::vector<Pixel>& Window::clicks() const noexcept {
  return impl_->clicks;
}

std::optional<MouseDrag> Window::right_drag() const noexcept {
  return impl_->right_drag;
}

bool Window::key_down(Key key) const noexcept {
  return glfwGetKey(impl_->window, glfw_code(key)) == GLFW_PRESS;
}

void Window::drive_camera(OrbitCamera& camera) const noexcept {
  const Impl& state = *impl_;
  if (!state.mouse_claimed()) {
    camera.orbit(static_cast<float>(-state.orbit[0]) * kDragDegreesPerPixel,
                 static_cast<float>(state.orbit[1]) * kDragDegreesPerPixel);
    // A drag across the whole height moves the target by about the distance.
    const float per_pixel = 1.0f / static_cast<float>(std::max(framebuffer_size()[1], 1));
    camera.pan(static_cast<float>(-state.pan[0]) * per_pixel,
               static_cast<float>(state.pan[1]) * per_pixel);
    if (state.wheel != 0) camera.zoom(std::pow(kWheelZoomPerStep, static_cast<float>(state.wheel)));
  }
  if (state.keyboard_claimed()) return;
  const auto held = [&](Key a, Key b) { return key_down(a) || key_down(b) ? 1.0f : 0.0f; };
  const float turn = kKeyDegreesPerSecond * state.seconds;
  camera.orbit((held(Key::Right, Key::D) - held(Key::Left, Key::A)) * turn,
               (held(Key::Up, Key::W) - held(Key::Down, Key::S)) * turn);
  const float zoom_in = held(Key::PageUp, Key::E) - held(Key::PageDown, Key::Q);
  if (zoom_in != 0) camera.zoom(std::pow(kKeyZoomPerSecond, zoom_in * state.seconds));
}

std::array<int, 2> Window::framebuffer_size() const noexcept {
  std::array<int, 2> size{0, 0};
  glfwGetFramebufferSize(impl_->window, &size[0], &size[1]);
  return size;
}

void Window::present(const Renderer& renderer) {
  const auto [width, height] = framebuffer_size();
  if (width > 0 && height > 0) renderer.blit_to_default_framebuffer(width, height);
  glfwSwapBuffers(impl_->window);
}

void Window::make_current() {
  glfwMakeContextCurrent(impl_->window);
}

const std::string& Window::description() const noexcept {
  return impl_->description;
}

void Window::set_input_claims(std::function<bool()> wants_mouse,
                              std::function<bool()> wants_keyboard) {
  impl_->wants_mouse = std::move(wants_mouse);
  impl_->wants_keyboard = std::move(wants_keyboard);
}

void* Window::native_handle() const noexcept {
  return impl_->window;
}

}  // namespace rsw::render
