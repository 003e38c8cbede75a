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
//
// Picking asks the broad phase: a ray from the camera through a pixel (OrbitCamera::
// ray_through) meets the objects' boxes, and the nearest is picked; its partners are the
// objects whose boxes overlap its own now, and a region holds the objects whose boxes overlap
// it. What set_highlight() names is drawn in highlight colours.
//
//   if (auto picked = scene->pick(camera.ray_through(x, y, width, height)))
//     scene->set_highlight({.picked = picked->object, .partners =
//     scene->partners(picked->object)});
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/physics/aabb.hpp"
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

/// The object a ray picked: the nearest whose box it enters.
struct ScenePick {
  std::uint32_t object = 0;  ///< see Scene::object_name()
  float t = 0;               ///< where the ray enters its box, in units of the ray's direction
};

/// What a scene draws in highlight colours: objects by number (Scene::object_name()).
struct SceneHighlight {
  std::optional<std::uint32_t> picked;   ///< the picked object
  std::vector<std::uint32_t> partners;   ///< the objects overlapping it
  std::vector<std::uint32_t> in_region;  ///< the objects in a region
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

  /// The object whose box `ray` (in the scene as drawn) enters first, asked of the last
  /// step's broad phase (or World); none before the first step, or when it meets none.
  /// Objects are numbered 0 .. stats().objects - 1 as drawn, and a scene with fixed
  /// geometry in its World (the chairs' ground) numbers it after them.
  virtual std::optional<ScenePick> pick(const render::CameraRay& ray) = 0;
  /// The objects whose boxes overlap `object`'s at the last step (its broad-phase pairs),
  /// rising; throws rsw::Error (InvalidArgument) for a number that names no object.
  virtual std::vector<std::uint32_t> partners(std::uint32_t object) = 0;
  /// The objects whose boxes overlap `region` (in the scene as drawn) at the last step,
  /// rising; throws rsw::Error (InvalidArgument) for a region that is not a valid box.
  virtual std::vector<std::uint32_t> objects_in(const physics::Aabb& region) = 0;
  /// `object`'s box at the last step, in the scene as drawn; throws rsw::Error
  /// (InvalidArgument) for a number that names no object, or before the first step.
  virtual physics::Aabb box_of(std::uint32_t object) = 0;
  /// "chair 12", "box 4411", "ground": what the overlay calls an object.
  virtual std::string object_name(std::uint32_t object) const = 0;
  /// What draw() shows in highlight colours from now on (numbers past the scene's objects
  /// are left out).
  virtual void set_highlight(SceneHighlight highlight) = 0;
};

/// The scenes make_scene() knows, in the order the UI lists them.
RSW_API std::vector<std::string> scene_names();
/// A scene by name (see scene_names()); throws rsw::Error (InvalidArgument) naming the choices.
/// The scene is empty until reset().
RSW_API std::unique_ptr<Scene> make_scene(std::string_view name);

}  // namespace rsw::scenes
