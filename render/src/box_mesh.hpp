// The unit cube [-0.5, 0.5]^3 as the renderer draws every box: 24 vertices (4 a face, so each
// face has its own normal) and 36 indices (2 triangles a face, counter-clockwise outside).
#pragma once

#include <array>
#include <cstdint>

namespace rsw::render::detail {

struct MeshVertex {
  float position[3];
  float normal[3];
};

struct BoxMesh {
  std::array<MeshVertex, 24> vertices;
  std::array<std::uint16_t, 36> indices;
};

BoxMesh unit_box_mesh();

}  // namespace rsw::render::detail
