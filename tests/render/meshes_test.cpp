// The renderer's meshes without GL: every triangle winds counter-clockwise seen from outside
// (its normal agrees with its vertices' normals), the unit shapes fill the unit cube, the
// sphere's points lie on it, and the height field follows its heights and slopes.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>

#include "meshes.hpp"

namespace {

using rsw::render::HeightField;
using rsw::render::detail::Mesh;

std::array<float, 3> face_normal(const Mesh& mesh, std::size_t triangle) {
  const auto& a = mesh.vertices[mesh.indices[triangle * 3]].position;
  const auto& b = mesh.vertices[mesh.indices[triangle * 3 + 1]].position;
  const auto& c = mesh.vertices[mesh.indices[triangle * 3 + 2]].position;
  const float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const float v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}

void expect_outward_unit_normals(const Mesh& mesh, const std::string& name) {
  ASSERT_EQ(mesh.indices.size() % 3, 0u) << name;
  for (const auto& vertex : mesh.vertices) {
    const auto& n = vertex.normal;
    EXPECT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0f, 1e-5f) << name;
  }
  for (std::size_t triangle = 0; triangle < mesh.indices.size() / 3; ++triangle) {
    const auto normal = face_normal(mesh, triangle);
    for (int corner = 0; corner < 3; ++corner) {
      const auto& n = mesh.vertices[mesh.indices[triangle * 3 + corner]].normal;
      ASSERT_GT(normal[0] * n[0] + normal[1] * n[1] + normal[2] * n[2], 0.0f)
          << name << ": triangle " << triangle << " winds against its normals";
    }
  }
}

void expect_fills_the_unit_cube(const Mesh& mesh, const std::string& name) {
  for (int axis = 0; axis < 3; ++axis) {
    float low = 1;
    float high = -1;
    for (const auto& vertex : mesh.vertices) {
      low = std::min(low, vertex.position[axis]);
      high = std::max(high, vertex.position[axis]);
    }
    EXPECT_NEAR(low, -0.5f, 1e-6f) << name << ", axis " << axis;
    EXPECT_NEAR(high, 0.5f, 1e-6f) << name << ", axis " << axis;
  }
}

TEST(Meshes, BoxAndChairFillTheUnitCubeFacingOut) {
  const Mesh box = rsw::render::detail::unit_box();
  EXPECT_EQ(box.vertices.size(), 24u);
  EXPECT_EQ(box.indices.size(), 36u);
  expect_outward_unit_normals(box, "box");
  expect_fills_the_unit_cube(box, "box");
  const Mesh chair = rsw::render::detail::unit_chair();
  EXPECT_EQ(chair.indices.size(), 6u * 36u) << "seat, four legs and a back";
  expect_outward_unit_normals(chair, "chair");
  expect_fills_the_unit_cube(chair, "chair");
}

TEST(Meshes, SphereLiesOnItsRadius) {
  for (const int subdivisions : {0, 1, 3}) {
    const Mesh sphere = rsw::render::detail::unit_sphere(subdivisions);
    EXPECT_EQ(sphere.indices.size(), 3u * 20u << (2 * subdivisions));
    expect_outward_unit_normals(sphere, "sphere " + std::to_string(subdivisions));
    for (const auto& vertex : sphere.vertices) {
      const auto& p = vertex.position;
      EXPECT_NEAR(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), 0.5f, 1e-5f);
    }
  }
}

TEST(Meshes, HeightFieldFollowsItsHeightsAndSlopes) {
  // y = 2x - z over [-1, 2] x [0, 3] on a 4 x 5 grid: a plane with normal (-2, 1, 1) / sqrt 6.
  HeightField field{.columns = 4, .rows = 5, .min_x = -1, .max_x = 2, .min_z = 0, .max_z = 3};
  for (int row = 0; row < field.rows; ++row) {
    for (int column = 0; column < field.columns; ++column) {
      const float x = -1.0f + static_cast<float>(column);
      const float z = 0.75f * static_cast<float>(row);
      field.heights.push_back(2 * x - z);
    }
  }
  const Mesh mesh = rsw::render::detail::height_field_mesh(field);
  ASSERT_EQ(mesh.vertices.size(), 20u);
  EXPECT_EQ(mesh.indices.size(), 3u * 4u * 6u);
  const auto& last = mesh.vertices.back().position;
  EXPECT_FLOAT_EQ(last[0], 2);
  EXPECT_FLOAT_EQ(last[2], 3);
  EXPECT_FLOAT_EQ(last[1], 2 * 2 - 3);
  const float scale = 1 / std::sqrt(6.0f);
  for (const auto& vertex : mesh.vertices) {
    EXPECT_NEAR(vertex.normal[0], -2 * scale, 1e-5f);
    EXPECT_NEAR(vertex.normal[1], scale, 1e-5f);
    EXPECT_NEAR(vertex.normal[2], scale, 1e-5f);
  }
  expect_outward_unit_normals(mesh, "height field");
}

}  // namespace
