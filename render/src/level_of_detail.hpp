// Instances drawn by their size on screen, chosen on the GPU each frame (the renderer's
// DrawPath::LevelOfDetail). A compute pass reads every instance of a batch and sorts it into:
// - culled: its bounding sphere lies outside the view frustum, or it is not finite;
// - mesh: large on screen (or flat, crossing the near or far plane or an image edge, or with
//   a point past the GL's largest): the shape's triangles, drawn instanced through an
//   indirect draw over the list of such instances;
// - impostor: a few to a few dozen pixels: one GL point covering the shape's corners on
//   screen, whose fragment shader casts the pixel's ray at the shape (its boxes, or the
//   sphere) and writes what the mesh would: the hit face's lit colour and its depth. The
//   same pixels as the mesh, so a switch between the two does not show;
// - splat: under two pixels across: no rasterisation at all. The pass keeps the nearest depth
//   at the pixel under the instance's centre (an atomic minimum of the depth's bits), a second
//   pass keeps the lowest instance at that depth, and a rectangle drawn over the splats' pixels
//   writes their colour (the visible faces' shading weighted by their area on screen) and depth
//   into the image, and empties the two per-pixel buffers for the next batch.
// The raster units see a few triangles for the large instances and one point for each small
// one; the many smallest cost an atomic each. Every pass is OpenGL 4.5 compute or draws, so
// instances written by CUDA into the interop buffer and uploaded ones take the same path, on
// a GPU and on Mesa's llvmpipe.
#pragma once

#include <glad/gl.h>

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "meshes.hpp"
#include "rsw/render/orbit_camera.hpp"
#include "rsw/render/renderer.hpp"
#include "shader_program.hpp"

namespace rsw::render::detail {

/// The form an impostor's ray is cast at, in the unit space an instance scales.
struct ImpostorShape {
  std::vector<PartBox> boxes;  ///< the shape's boxes (at most kMostImpostorBoxes)
  bool sphere = false;         ///< the sphere of diameter 1 instead of boxes
};

/// The most boxes an impostor's shape may have.
inline constexpr std::size_t kMostImpostorBoxes = 8;

/// A frame's camera as the passes use it.
struct FrameView {
  Matrix4 view{};
  Matrix4 view_projection{};
  std::array<float, 3> eye{};
  std::array<float, 3> ray_at_origin{};  ///< eye to the far plane through window point (0, 0)
  std::array<float, 3> ray_step_x{};     ///< its change a pixel to the right
  std::array<float, 3> ray_step_y{};     ///< and a pixel up
  std::array<float, 2> depth_of_t{};     ///< such a ray's point t has window depth x - y / t
  std::array<float, 3> light{};          ///< towards the light, unit length
  std::array<std::array<float, 4>, 6> planes{};  ///< the frustum's, inward, unit normals
  int width = 1;
  int height = 1;
  float near_plane = 0.1f;
  float far_plane = 1000;
  float pixels_per_unit = 1;  ///< pixels of one world unit at view depth 1

  static FrameView of(const OrbitCamera& camera, int width, int height,
                      const std::array<float, 3>& light);
};

/// The GPU buffers and programs of the level-of-detail passes. Needs the renderer's GL context
/// current.
class LevelOfDetail {
 public:
  /// For an image of width x height, with the options' sizes that part the forms.
  LevelOfDetail(int width, int height, float mesh_pixels, float splat_pixels);
  ~LevelOfDetail();
  LevelOfDetail(const LevelOfDetail&) = delete;
  LevelOfDetail& operator=(const LevelOfDetail&) = delete;

  /// The per-pixel splat buffers for an image of this size (a new size: they are made anew).
  void resize(int width, int height);
  /// Starts the next frame's counts, the last frame's copied aside on the GPU.
  void begin_frame();
  /// Draws `count` instances held in the GL buffer `instances` into the bound framebuffer:
  /// large ones with `vertex_array`'s mesh of `index_count` indices, the rest as impostors of
  /// `shape` or splats.
  void draw(GLuint instances, std::size_t count, GLuint vertex_array, GLsizei index_count,
            const ImpostorShape& shape, const FrameView& view);
  /// The instances of the frame so far by how they were drawn; waits for the GPU.
  DrawCounts frame_counts() const;
  /// Those of the frame before, once its GL work is done; never waits (none until then).
  std::optional<DrawCounts> previous_frame_counts();
  /// Whether `count` instances can be drawn here: their buffer within the largest shader
  /// storage block (otherwise they are drawn as meshes).
  bool holds(std::size_t count) const noexcept;

 private:
  void reserve(std::size_t count);
  // The passes of draw(), in order: the sorting (and the commands' reset), the meshes, the
  // impostors, and the splats' resolve and rectangle.
  void sort_instances(std::size_t count, GLsizei index_count, const FrameView& view);
  void draw_meshes(GLuint vertex_array, const FrameView& view);
  void draw_impostors(const ImpostorShape& shape, const FrameView& view);
  void draw_splats(std::size_t count, const FrameView& view);

  ShaderProgram reset_;
  ShaderProgram classify_;
  ShaderProgram meshes_;
  ShaderProgram impostors_;
  ShaderProgram resolve_;
  ShaderProgram composite_;
  GLuint empty_array_ = 0;            // for draws that read no attributes
  GLuint lists_ = 0;                  // meshes [0, capacity), impostors [capacity, 2 capacity)
  GLuint splats_ = 0;                 // per instance: its splat's pixel (or none) and depth bits
  GLuint commands_ = 0;               // the indirect draws and the splats' rectangle
  GLuint frame_counts_ = 0;           // meshes, impostors, splats, culled
  GLuint counts_read_ = 0;            // the frame before's, copied for the host
  GLsync previous_copied_ = nullptr;  // signalled once they are
  std::optional<DrawCounts> previous_;
  std::size_t most_instances_ = 0;  // what the largest shader storage block holds
  GLuint splat_depths_ = 0;         // per pixel: the nearest splat's depth bits
  GLuint splat_ids_ = 0;            // per pixel: the lowest instance at that depth
  std::size_t capacity_ = 0;
  float largest_point_ = 1;  // pixels, the GL implementation's
  float mesh_pixels_ = 0;    // the projected diameter from which instances are meshes
  float splat_pixels_ = 0;   // and below which they are splats
};

}  // namespace rsw::render::detail
