// The scenes make_scene() builds, one factory each.
#pragma once

#include <memory>

#include "rsw/scenes/scene.hpp"

namespace rsw::scenes::detail {

std::unique_ptr<Scene> make_boxes_scene();
std::unique_ptr<Scene> make_chairs_scene();
std::unique_ptr<Scene> make_nbody_scene();
std::unique_ptr<Scene> make_particles_scene();
std::unique_ptr<Scene> make_worlds_scene();

}  // namespace rsw::scenes::detail
