#include "rsw/scenes/scene.hpp"

#include <string>

#include "rsw/engine/error.hpp"
#include "scene_registry.hpp"

namespace rsw::scenes {

std::vector<std::string> scene_names() {
  return {"chairs", "particles", "nbody", "boxes", "worlds"};
}

std::unique_ptr<Scene> make_scene(std::string_view name) {
  if (name == "boxes") return detail::make_boxes_scene();
  if (name == "chairs") return detail::make_chairs_scene();
  if (name == "nbody") return detail::make_nbody_scene();
  if (name == "particles") return detail::make_particles_scene();
  if (name == "worlds") return detail::make_worlds_scene();
  std::string choices;
  for (const std::string& known : scene_names())
    choices += (choices.empty() ? "" : ", ") + known;
  throw Error(ErrorKind::InvalidArgument,
              "unknown scene '" + std::string(name) + "' (scenes: " + choices + ")");
}

}  // namespace rsw::scenes
