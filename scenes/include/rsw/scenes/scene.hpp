// rsw::scenes::Scene: what the demo runs. A scene owns its bodies on the CPU or the GPU, steps
// them (collisions through the broad phase), reports its counts and draws itself with a
// Renderer. Switching the backend moves the state: a running scene keeps going where it was.
//
//   std::unique_ptr<Scene> scene = rsw::scenes::make_scene("boxes");
//   scene->reset({.count = 100'000, .seed = 7, .backend = rsw::Backend::Auto});
//   while (running) {
//     scene->step(profiler);            // times its stages in the profiler
//     renderer.begin_frame(camera);
//     scene->draw(renderer, profiler);
//   }
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/render/orbit_camera.hpp"
#include "rsw/render/renderer.hpp"
#include "rsw/sort/sorter.hpp"

namespace rsw::scenes {

/// How a scene starts.
struct SceneSettings {
  std::size_t count = 10'000;                    ///< bodies (or particles), >= 1
  std::uint32_t seed = 1;                        ///< the same seed, backend and count: the same run
  Backend backend = Backend::Auto;               ///< where the simulation runs
  sort::Algorithm sort = sort::Algorithm::Auto;  ///< the broad phase's sort
};

/// What the overlay shows of the last step.
struct SceneStats {
  std::size_t objects = 0;     ///< bodies in the scene
  std::size_t worlds = 0;      ///< independent worlds the bodies are in (0: the scene is one)
  std::size_t candidates = 0;  ///< broad-phase candidate pairs tested
  std::size_t pairs = 0;       ///< overlapping pairs found
  int sort_passes_run = 0;     ///< radix passes of the box sort that moved data
  int sort_passes_total = 0;   ///< passes its bit range needs
  bool events = false;         ///< the scene keeps its bodies in a physics::World
  std::size_t found = 0;       ///< pairs that began overlapping at its last step
  std::size_t lost = 0;        ///< pairs that ended overlapping at its last step
};

/// A simulation the demo runs and draws.
class RSW_API Scene {
 public:
  virtual ~Scene() = default;
  /// "boxes", ...: the name --scene takes.
  virtual std::string_view name() const noexcept = 0;
  /// The count the demo starts this scene with on `backend` (Cpu or Cuda): what runs
  /// smoothly there.
  virtual std::size_t default_count(Backend backend) const noexcept = 0;
  /// Starts afresh; throws rsw::Error (InvalidArgument) for a count out of range, and
  /// (DeviceUnavailable) for Backend::Cuda without a device.
  virtual void reset(const SceneSettings& settings) = 0;
  /// Advances one frame (1/60 s), timing its stages in `profiler`.
  virtual void step(StageProfiler& profiler) = 0;
  /// Moves the state to `backend` (Auto resolved) and runs there from now on.
  virtual void set_backend(Backend backend) = 0;
  /// The broad phase's sort from now on.
  virtual void set_sort(sort::Algorithm sort) = 0;
  /// The backend the scene runs on (never Auto).
  virtual Backend backend() const noexcept = 0;
  /// Counts of the last step.
  virtual SceneStats stats() const = 0;
  /// The centres of the scene's bodies, copied to the host (tests and tools).
  virtual std::vector<std::array<float, 3>> positions() const = 0;
  /// A camera that shows the whole scene.
  virtual render::OrbitCamera camera() const = 0;
  /// Draws the scene into the frame `renderer` has begun, timing it as "render". On the GPU
  /// the instances are written by a kernel into the renderer's buffers (CUDA-GL interop).
  virtual void draw(render::Renderer& renderer, StageProfiler& profiler) = 0;
};

/// The scenes make_scene() knows, in the order the UI lists them.
RSW_API std::vector<std::string> scene_names();
/// A scene by name (see scene_names()); throws rsw::Error (InvalidArgument) naming the choices.
/// The scene is empty until reset().
RSW_API std::unique_ptr<Scene> make_scene(std::string_view name);

}  // namespace rsw::scenes
