// rsw::render::OrbitCamera: a camera that circles a target point, as the demo's mouse and keys
// move it (drag to orbit, wheel to zoom, pan to move the target).
#pragma once

#include <array>

#include "rsw/engine/api.hpp"

namespace rsw::render {

/// A column-major 4x4 matrix, as OpenGL takes it.
using Matrix4 = std::array<float, 16>;

/// A ray from the eye into the scene: the points origin + t * direction for t >= 0.
struct CameraRay {
  std::array<float, 3> origin = {0, 0, 0};     ///< the eye
  std::array<float, 3> direction = {0, 0, 1};  ///< unit length
};

/// A camera on a sphere around `target`, looking at it, with +y up.
struct OrbitCamera {
  std::array<float, 3> target = {0, 0, 0};  ///< the point looked at, in world units
  float distance = 10;                      ///< from target to eye, world units, > 0
  float yaw_degrees = 0;     ///< around +y; 0 puts the eye on the +z side of the target
  float pitch_degrees = 20;  ///< above the target's horizontal plane, within (-90, 90)
  float fov_y_degrees = 45;  ///< vertical field of view
  float near_plane = 0.1f;   ///< distance to the near clipping plane, > 0
  float far_plane = 1000;    ///< distance to the far clipping plane, > near_plane

  /// The eye's position in world coordinates.
  RSW_API std::array<float, 3> eye() const noexcept;
  /// World to view transform.
  RSW_API Matrix4 view() const noexcept;
  /// View to clip transform for a viewport of this width / height.
  RSW_API Matrix4 projection(float aspect) const noexcept;
  /// The ray from the eye through the point (x, y) of a width x height image, in pixels from
  /// its top left corner (a pixel's centre is at + 0.5): what the pixel shows lies on it.
  RSW_API CameraRay ray_through(float x, float y, int width, int height) const noexcept;
  /// Turns the camera by mouse motion: yaw by `right`, pitch by `up` degrees, pitch kept
  /// within +-89 degrees.
  RSW_API void orbit(float right, float up) noexcept;
  /// Moves the eye toward the target by `factor` of the distance (0.9: 10% closer).
  RSW_API void zoom(float factor) noexcept;
  /// Moves the target (and the eye with it) in the view plane: `right` and `up` in units of
  /// the distance (0.1: a tenth of the way from eye to target).
  RSW_API void pan(float right, float up) noexcept;
};

}  // namespace rsw::render
