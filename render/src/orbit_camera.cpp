#include "rsw/render/orbit_camera.hpp"

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <glm/mat4x4.hpp>
#include <glm/matrix.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

namespace rsw::render {
namespace {

Matrix4 to_array(const glm::mat4& matrix) {
  Matrix4 values{};
  const float* data = glm::value_ptr(matrix);
  std::copy(data, data + 16, values.begin());
  return values;
}

glm::vec3 vec(const std::array<float, 3>& value) {
  return {value[0], value[1], value[2]};
}

}  // namespace

std::array<float, 3> OrbitCamera::eye() const noexcept {
  const float yaw = glm::radians(yaw_degrees);
  const float pitch = glm::radians(pitch_degrees);
  const glm::vec3 offset(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                         std::cos(pitch) * std::cos(yaw));
  const glm::vec3 position = vec(target) + distance * offset;
  return {position.x, position.y, position.z};
}

Matrix4 OrbitCamera::view() const noexcept {
  return to_array(glm::lookAt(vec(eye()), vec(target), glm::vec3(0, 1, 0)));
}

Matrix4 OrbitCamera::projection(float aspect) const noexcept {
  return to_array(glm::perspective(glm::radians(fov_y_degrees), aspect, near_plane, far_plane));
}

CameraRay OrbitCamera::ray_through(float x, float y, int width, int height) const noexcept {
  const float w = static_cast<float>(std::max(width, 1));
  const float h = static_cast<float>(std::max(height, 1));
  // The point in normalised device coordinates (y up), unprojected at the near plane.
  const glm::vec2 device(2.0f * x / w - 1.0f, 1.0f - 2.0f * y / h);
  const float half_height = std::tan(glm::radians(fov_y_degrees) / 2);
  const glm::vec3 in_view(device.x * half_height * (w / h), device.y * half_height, -1.0f);
  const glm::mat4 to_world = glm::inverse(glm::lookAt(vec(eye()), vec(target), glm::vec3(0, 1, 0)));
  const glm::vec3 direction = glm::normalize(glm::vec3(to_world * glm::vec4(in_view, 0.0f)));
  return {eye(), {direction.x, direction.y, direction.z}};
}

void OrbitCamera::orbit(float right, float up) noexcept {
  yaw_degrees = std::fmod(yaw_degrees + right, 360.0f);
  pitch_degrees = std::clamp(pitch_degrees + up, -89.0f, 89.0f);
}

void OrbitCamera::zoom(float factor) noexcept {
  distance = std::max(distance * factor, 1e-3f);
}

void OrbitCamera::pan(float right, float up) noexcept {
  const glm::vec3 forward = glm::normalize(vec(target) - vec(eye()));
  const glm::vec3 side = glm::normalize(glm::cross(forward, glm::vec3(0, 1, 0)));
  const glm::vec3 above = glm::cross(side, forward);
  const glm::vec3 moved = vec(target) + distance * (right * side + up * above);
  target = {moved.x, moved.y, moved.z};
}

}  // namespace rsw::render
