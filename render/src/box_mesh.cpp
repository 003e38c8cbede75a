#include "box_mesh.hpp"

#include <initializer_list>
#include <utility>

namespace rsw::render::detail {

BoxMesh unit_box_mesh() {
  BoxMesh mesh{};
  std::size_t vertex = 0;
  std::size_t index = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (const float side : {-0.5f, 0.5f}) {
      // The face whose normal is +-axis: its corners span the other two axes, ordered so
      // that (u x v) points along the normal (counter-clockwise seen from outside).
      const int u = (axis + (side > 0 ? 1 : 2)) % 3;
      const int v = (axis + (side > 0 ? 2 : 1)) % 3;
      const auto first = static_cast<std::uint16_t>(vertex);
      for (const auto& [a, b] : {std::pair{-0.5f, -0.5f}, std::pair{0.5f, -0.5f},
                                 std::pair{0.5f, 0.5f}, std::pair{-0.5f, 0.5f}}) {
        MeshVertex& corner = mesh.vertices[vertex++];
        corner.position[axis] = side;
        corner.position[u] = a;
        corner.position[v] = b;
        corner.normal[axis] = side > 0 ? 1.0f : -1.0f;
      }
      for (const std::uint16_t corner : std::initializer_list<std::uint16_t>{0, 1, 2, 0, 2, 3}) {
        mesh.indices[index++] = static_cast<std::uint16_t>(first + corner);
      }
    }
  }
  return mesh;
}

}  // namespace rsw::render::detail
