// The renderer's meshes, in the unit space an instance scales: the box [-0.5, 0.5]^3, a chair
// inside the same cube, a sphere of diameter 1; and the height field's mesh in world space.
// Triangles are counter-clockwise seen from outside; every vertex has its face's (box, chair)
// or the surface's (sphere, height field) normal.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "rsw/render/renderer.hpp"

namespace rsw::render::detail {

struct MeshVertex {
  float position[3];
  float normal[3];
};

struct Mesh {
  std::vector<MeshVertex> vertices;
  std::vector<std::uint32_t> indices;
};

/// A box of a shape in its unit space: the corners `low` and `high`.
struct PartBox {
  std::array<float, 3> low;
  std::array<float, 3> high;
};

/// The cube [-0.5, 0.5]^3: 24 vertices (4 a face), 36 indices.
Mesh unit_box();
/// The boxes of the chair in [-0.5, 0.5]^3, facing +z: a seat at half height, four legs under
/// it, a back rising from the seat's -z edge to the top. Its size is (1, 1, 1) at scale 1.
std::vector<PartBox> chair_parts();
/// The chair of chair_parts() as a mesh.
Mesh unit_chair();
/// A sphere of radius 0.5: an icosahedron subdivided `subdivisions` times, pushed out.
Mesh unit_sphere(int subdivisions);
/// The surface of `field` in world coordinates, normals from central differences.
Mesh height_field_mesh(const HeightField& field);

}  // namespace rsw::render::detail
