// OrbitCamera's matrices, checked against points whose images are known, and its moves.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "rsw/render/orbit_camera.hpp"

namespace {

using rsw::render::Matrix4;
using rsw::render::OrbitCamera;

std::array<float, 4> transform(const Matrix4& m, std::array<float, 4> p) {
  std::array<float, 4> out{};
  for (int row = 0; row < 4; ++row) {
    for (int k = 0; k < 4; ++k)
      out[row] += m[k * 4 + row] * p[k];
  }
  return out;
}

TEST(OrbitCamera, YawZeroPutsTheEyeOnPlusZ) {
  OrbitCamera camera{.target = {1, 2, 3}, .distance = 5, .yaw_degrees = 0, .pitch_degrees = 0};
  const auto eye = camera.eye();
  EXPECT_NEAR(eye[0], 1, 1e-5);
  EXPECT_NEAR(eye[1], 2, 1e-5);
  EXPECT_NEAR(eye[2], 8, 1e-5);
  camera.yaw_degrees = 90;
  EXPECT_NEAR(camera.eye()[0], 6, 1e-5);
  EXPECT_NEAR(camera.eye()[2], 3, 1e-4);
  camera.pitch_degrees = 90;
  EXPECT_NEAR(camera.eye()[1], 7, 1e-5);
}

TEST(OrbitCamera, ViewPutsTheTargetStraightAhead) {
  const OrbitCamera camera{
      .target = {1, 2, 3}, .distance = 5, .yaw_degrees = 30, .pitch_degrees = 20};
  const auto target = transform(camera.view(), {1, 2, 3, 1});
  EXPECT_NEAR(target[0], 0, 1e-5);
  EXPECT_NEAR(target[1], 0, 1e-5);
  EXPECT_NEAR(target[2], -5, 1e-5);  // OpenGL looks down -z
}

TEST(OrbitCamera, ProjectionMapsTheNearAndFarPlanesToTheDepthRange) {
  const OrbitCamera camera{.near_plane = 0.5f, .far_plane = 50};
  const Matrix4 projection = camera.projection(1.5f);
  const auto near = transform(projection, {0, 0, -0.5f, 1});
  const auto far = transform(projection, {0, 0, -50, 1});
  EXPECT_NEAR(near[2] / near[3], -1, 1e-5);
  EXPECT_NEAR(far[2] / far[3], 1, 1e-4);
  // The top of the field of view at depth d is d * tan(fov / 2) above the axis.
  const float top = 10 * std::tan(camera.fov_y_degrees * 3.14159265f / 360);
  const auto edge = transform(projection, {0, top, -10, 1});
  EXPECT_NEAR(edge[1] / edge[3], 1, 1e-4);
}

TEST(OrbitCamera, OrbitKeepsThePitchOffThePoles) {
  OrbitCamera camera;
  camera.orbit(10, 200);
  EXPECT_FLOAT_EQ(camera.pitch_degrees, 89);
  EXPECT_FLOAT_EQ(camera.yaw_degrees, 10);
  camera.orbit(0, -400);
  EXPECT_FLOAT_EQ(camera.pitch_degrees, -89);
  camera.zoom(0.5f);
  EXPECT_FLOAT_EQ(camera.distance, 5);
}

// Panning moves the target across the view: right along the screen's x, up along its y, by
// the distance times the amount; the view direction does not change.
TEST(OrbitCamera, PanMovesTheTargetInTheViewPlane) {
  OrbitCamera camera{.target = {1, 2, 3}, .distance = 4, .yaw_degrees = 0, .pitch_degrees = 0};
  camera.pan(0.5f, 0.25f);  // looking down -z: screen right is +x, screen up is +y
  EXPECT_NEAR(camera.target[0], 3, 1e-5);
  EXPECT_NEAR(camera.target[1], 3, 1e-5);
  EXPECT_NEAR(camera.target[2], 3, 1e-5);
  EXPECT_FLOAT_EQ(camera.distance, 4);
  camera.yaw_degrees = 90;  // eye on +x, looking down -x: screen right is -z
  camera.pan(0.25f, 0);
  EXPECT_NEAR(camera.target[2], 2, 1e-5);
}

// A pixel's ray passes through what the pixel shows: points along the rays through pixels
// across the image project back onto those pixels, and the middle pixel's ray hits the target.
TEST(OrbitCamera, APixelsRayProjectsBackOntoThePixel) {
  const OrbitCamera camera{
      .target = {1, -2, 3}, .distance = 7, .yaw_degrees = 40, .pitch_degrees = 25};
  const int width = 320;
  const int height = 200;
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  const rsw::render::CameraRay middle = camera.ray_through(160, 100, width, height);
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_NEAR(middle.origin[static_cast<std::size_t>(axis)],
                camera.eye()[static_cast<std::size_t>(axis)], 1e-5);
    EXPECT_NEAR(middle.origin[static_cast<std::size_t>(axis)] +
                    7 * middle.direction[static_cast<std::size_t>(axis)],
                camera.target[static_cast<std::size_t>(axis)], 1e-4);
  }
  for (const auto [x, y] :
       {std::array<float, 2>{0.5f, 0.5f}, {319.5f, 0.5f}, {12.5f, 180.5f}, {250, 150}}) {
    const rsw::render::CameraRay ray = camera.ray_through(x, y, width, height);
    const float length = std::hypot(ray.direction[0], ray.direction[1], ray.direction[2]);
    EXPECT_NEAR(length, 1, 1e-5);
    for (const float t : {1.0f, 20.0f}) {
      const std::array<float, 4> point = {ray.origin[0] + t * ray.direction[0],
                                          ray.origin[1] + t * ray.direction[1],
                                          ray.origin[2] + t * ray.direction[2], 1};
      const auto clip = transform(camera.projection(aspect), transform(camera.view(), point));
      EXPECT_NEAR((clip[0] / clip[3] + 1) / 2 * width, x, 1e-2) << x << ", " << y << " at " << t;
      EXPECT_NEAR((1 - clip[1] / clip[3]) / 2 * height, y, 1e-2) << x << ", " << y << " at " << t;
    }
  }
}

}  // namespace
