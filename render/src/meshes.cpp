#include "meshes.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <utility>

namespace rsw::render::detail {
namespace {

// Appends the box [low, high] with outward face normals.
void add_box(Mesh& mesh, const std::array<float, 3>& low, const std::array<float, 3>& high) {
  for (int axis = 0; axis < 3; ++axis) {
    for (const bool upper : {false, true}) {
      // The face whose normal is -axis or +axis: its corners span the other two axes, ordered
      // so that (u x v) points along the normal (counter-clockwise seen from outside).
      const int u = (axis + (upper ? 1 : 2)) % 3;
      const int v = (axis + (upper ? 2 : 1)) % 3;
      const auto first = static_cast<std::uint32_t>(mesh.vertices.size());
      for (const auto& [a, b] : {std::pair{false, false}, std::pair{true, false},
                                 std::pair{true, true}, std::pair{false, true}}) {
        MeshVertex corner{};
        corner.position[axis] = upper ? high[axis] : low[axis];
        corner.position[u] = a ? high[u] : low[u];
        corner.position[v] = b ? high[v] : low[v];
        corner.normal[axis] = upper ? 1.0f : -1.0f;
        mesh.vertices.push_back(corner);
      }
      for (const std::uint32_t corner : {0u, 1u, 2u, 0u, 2u, 3u})
        mesh.indices.push_back(first + corner);
    }
  }
}

std::array<float, 3> normalised(std::array<float, 3> v) {
  const float length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return {v[0] / length, v[1] / length, v[2] / length};
}

}  // namespace

Mesh unit_box() {
  Mesh mesh;
  add_box(mesh, {-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f});
  return mesh;
}

std::vector<PartBox> chair_parts() {
  constexpr float kLeg = 0.12f;      // leg thickness
  constexpr float kSeatTop = 0.05f;  // seat top, just above half height
  constexpr float kSeatBottom = -0.05f;
  constexpr float kBack = 0.12f;  // back thickness
  std::vector<PartBox> parts = {{{-0.5f, kSeatBottom, -0.5f}, {0.5f, kSeatTop, 0.5f}}};  // seat
  for (const float x : {-0.5f, 0.5f - kLeg}) {
    for (const float z : {-0.5f, 0.5f - kLeg}) {
      parts.push_back({{x, -0.5f, z}, {x + kLeg, kSeatBottom, z + kLeg}});  // legs
    }
  }
  parts.push_back({{-0.5f, kSeatTop, -0.5f}, {0.5f, 0.5f, -0.5f + kBack}});  // back
  return parts;
}

Mesh unit_chair() {
  Mesh mesh;
  for (const PartBox& part : chair_parts())
    add_box(mesh, part.low, part.high);
  return mesh;
}

Mesh unit_sphere(int subdivisions) {
  // The icosahedron's 12 corners: (0, +-1, +-t), (+-1, +-t, 0), (+-t, 0, +-1), t the golden ratio.
  const float t = (1.0f + std::sqrt(5.0f)) / 2.0f;
  std::vector<std::array<float, 3>> points = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                              {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                              {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  for (auto& point : points)
    point = normalised(point);
  std::vector<std::array<std::uint32_t, 3>> faces = {
      {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
      {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int level = 0; level < subdivisions; ++level) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> middles;
    const auto middle = [&](std::uint32_t a, std::uint32_t b) {
      const auto key = std::minmax(a, b);
      const auto found = middles.find(key);
      if (found != middles.end()) return found->second;
      points.push_back(normalised(
          {points[a][0] + points[b][0], points[a][1] + points[b][1], points[a][2] + points[b][2]}));
      const auto index = static_cast<std::uint32_t>(points.size() - 1);
      middles.emplace(key, index);
      return index;
    };
    std::vector<std::array<std::uint32_t, 3>> finer;
    finer.reserve(faces.size() * 4);
    for (const auto& [a, b, c] : faces) {
      const std::uint32_t ab = middle(a, b);
      const std::uint32_t bc = middle(b, c);
      const std::uint32_t ca = middle(c, a);
      finer.insert(finer.end(), {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}});
    }
    faces = std::move(finer);
  }
  Mesh mesh;
  for (const auto& point : points) {
    mesh.vertices.push_back(
        {{0.5f * point[0], 0.5f * point[1], 0.5f * point[2]}, {point[0], point[1], point[2]}});
  }
  for (const auto& face : faces)
    mesh.indices.insert(mesh.indices.end(), face.begin(), face.end());
  return mesh;
}

Mesh height_field_mesh(const HeightField& field) {
  Mesh mesh;
  const int columns = field.columns;
  const int rows = field.rows;
  const float step_x = (field.max_x - field.min_x) / static_cast<float>(columns - 1);
  const float step_z = (field.max_z - field.min_z) / static_cast<float>(rows - 1);
  const auto height = [&](int column, int row) {
    column = std::clamp(column, 0, columns - 1);
    row = std::clamp(row, 0, rows - 1);
    return field.heights[static_cast<std::size_t>(row) * columns + column];
  };
  mesh.vertices.reserve(static_cast<std::size_t>(columns) * rows);
  for (int row = 0; row < rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      // The normal of y = h(x, z) is (-dh/dx, 1, -dh/dz), the slopes by central differences
      // (one-sided at the edges, where the clamped neighbour is the point itself).
      const float dx = (height(column + 1, row) - height(column - 1, row)) /
                       (step_x * static_cast<float>(std::min(column + 1, columns - 1) -
                                                    std::max(column - 1, 0)));
      const float dz =
          (height(column, row + 1) - height(column, row - 1)) /
          (step_z * static_cast<float>(std::min(row + 1, rows - 1) - std::max(row - 1, 0)));
      const auto normal = normalised({-dx, 1.0f, -dz});
      mesh.vertices.push_back(
          {{field.min_x + step_x * static_cast<float>(column), height(column, row),
            field.min_z + step_z * static_cast<float>(row)},
           {normal[0], normal[1], normal[2]}});
    }
  }
  for (int row = 0; row + 1 < rows; ++row) {
    for (int column = 0; column + 1 < columns; ++column) {
      const auto at = [&](int c, int r) { return static_cast<std::uint32_t>(r * columns + c); };
      // Seen from above (+y), x right and z toward the viewer: counter-clockwise.
      mesh.indices.insert(mesh.indices.end(),
                          {at(column, row), at(column, row + 1), at(column + 1, row + 1),
                           at(column, row), at(column + 1, row + 1), at(column + 1, row)});
    }
  }
  return mesh;
}

}  // namespace rsw::render::detail
