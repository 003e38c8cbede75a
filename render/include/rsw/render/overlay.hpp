// rsw::render::Overlay: Dear ImGui panels drawn over a Renderer's image. The stats panel (top
// left) reads the engine's StageProfiler (frame rate, per-stage milliseconds with history
// plots) and the counts the application passes; the controls panel (top right) edits an
// OverlayControls that the application acts on; a help panel (bottom right) lists the
// keyboard shortcuts.
//
//   rsw::render::Overlay overlay(window);            // or Overlay() with no window: headless
//   OverlayControls controls{.scenes = {"chairs", "particles", "n-body"}, ...};
//   ... each frame, after drawing the scene:
//   overlay.draw({.profiler = &profiler, .stages = {"keys", "sort", "sweep"}, ...}, controls,
//                renderer);
//   if (std::exchange(controls.reset, false)) scene.reset();
//
// With a Window, the overlay takes mouse and keyboard input while the pointer is over a
// panel or a text field has focus (the window's camera and shortcuts then ignore it). With
// none, it draws the same panels into headless frames, so screenshots show them. One Overlay
// at a time (ImGui's context is global); needs the Renderer's GL context current.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/render/renderer.hpp"

namespace rsw::render {

class Window;

/// What the stats panel shows this frame.
struct OverlayStats {
  /// Per-stage times and their histories; the frame rate comes from its "frame" stage.
  const StageProfiler* profiler = nullptr;
  /// The stages to list, in this order; stages the profiler has not seen are left out.
  std::vector<std::string> stages;
  std::string device;          ///< where the work runs: "NVIDIA H100 80GB HBM3", "CPU, 16 threads"
  std::size_t objects = 0;     ///< bodies or particles in the scene
  std::size_t worlds = 0;      ///< independent worlds the objects are in (0: the scene is one)
  std::size_t candidates = 0;  ///< broad-phase candidate pairs tested
  std::size_t pairs = 0;       ///< overlapping pairs found
  int sort_passes_run = 0;     ///< radix passes that moved data in the frame's box sort
  int sort_passes_total = 0;   ///< passes its bit range needs
  bool events = false;         ///< the scene reports contacts (a physics::World's events)
  std::size_t found = 0;       ///< contacts that began at the last step
  std::size_t lost = 0;        ///< contacts that ended at the last step
  std::string picked;          ///< the picked object's name ("chair 12"), empty when none
  std::vector<std::string> partners;  ///< the names of the objects overlapping it
  std::string region;                 ///< what a region holds ("412 objects"), empty when none
  DrawCounts drawn;  ///< instances drawn (the frame before's), by how; all zero: none listed
};

/// The demo's controls, edited by the overlay; the application acts on them. The three
/// requests (step, reset, screenshot) are set for one frame: clear them after acting.
struct OverlayControls {
  std::vector<std::string> scenes;    ///< choices of scene
  int scene = 0;                      ///< index into scenes
  int count = 1000;                   ///< objects wanted; applied on reset
  int count_min = 1;                  ///< slider range (logarithmic)
  int count_max = 1 << 24;            ///< slider range (logarithmic)
  int seed = 1;                       ///< the scene's random start; applied on reset
  std::vector<std::string> backends;  ///< "CPU", and "GPU" where a device is usable
  int backend = 0;                    ///< index into backends
  std::vector<std::string> sorts;     ///< "CPU radix", "four-way", "Onesweep"
  int sort = 0;                       ///< index into sorts
  std::vector<std::string> draws;     ///< "level of detail", "meshes": the renderer's paths
  int draw = 0;                       ///< index into draws
  bool paused = false;                ///< the simulation holds still (drawing goes on)
  bool step = false;                  ///< request: advance one frame while paused
  bool reset = false;                 ///< request: restart the scene (with count objects)
  bool screenshot = false;            ///< request: save the next frame as PNG
  bool show_help = false;             ///< the help panel is open
  /// The help panel's rows: key, what it does.
  std::vector<std::pair<std::string, std::string>> shortcuts;
};

/// Dear ImGui (Debian's libimgui-dev, its GLFW and OpenGL 3 backends) over a Renderer.
class RSW_API Overlay {
 public:
  /// An overlay that takes input from `window` (which must outlive it). Throws rsw::Error
  /// (DeviceUnavailable) when ImGui's OpenGL backend cannot load GL, (InvalidArgument) when
  /// another Overlay exists.
  explicit Overlay(Window& window);
  /// A headless overlay: no input; panels drawn into every frame as they are.
  Overlay();
  ~Overlay();
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;

  /// Builds the panels from `stats` and `controls` (editing `controls` with this frame's
  /// input) and draws them over `renderer`'s image.
  void draw(const OverlayStats& stats, OverlayControls& controls, Renderer& renderer);
  /// Whether the pointer is over a panel (its clicks and drags are the overlay's).
  bool wants_mouse() const noexcept;
  /// Whether a panel has keyboard focus (keys typed are the overlay's).
  bool wants_keyboard() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rsw::render
