// rsw::render::Renderer: instanced meshes (boxes, chairs, spheres), point-sprite spheres for
// millions of particles and a height-field terrain, lit simply, drawn into an offscreen image
// that is read back as RGBA, saved as PNG, or shown by a Window.
//
//   rsw::render::HeadlessContext context;         // or a Window's context
//   rsw::render::Renderer renderer({.width = 1280, .height = 720});
//   renderer.begin_frame(camera);                 // clears the image
//   renderer.draw_height_field();                 // after set_height_field()
//   renderer.draw_instances(Shape::Chair, chairs);  // position, size, orientation, colour
//   renderer.draw_spheres(particles);             // centre, radius, colour
//   renderer.save_png("frame.png");
//
// Per-instance data lives in GL buffers, one per shape and one for the sprites. The draw_*
// calls upload it from host memory; with CUDA, map_instances() / map_spheres() lend the same
// buffer to a kernel instead (CUDA-GL interop: no copy through the host) and draw_mapped() /
// draw_mapped_spheres() draw what the kernel wrote:
//
//   rsw::DeviceSpan<BoxInstance> out = renderer.map_instances(Shape::Box, n, stream);
//   write_instances<<<blocks, threads, 0, stream>>>(bodies, out.data, n);
//   renderer.draw_mapped(Shape::Box);
//
// On a GPU, instances are drawn by their size on screen (DrawPath::LevelOfDetail): a compute
// pass culls them and sorts them into meshes, impostors and splats, all on the GPU.
//
// Needs a current OpenGL 4.5 core context on the calling thread for its whole life.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/render/orbit_camera.hpp"

namespace rsw::render {

/// The meshes drawn instanced, each in the unit cube [-0.5, 0.5]^3 that an instance scales.
enum class Shape {
  Box,     ///< the unit cube
  Chair,   ///< a seat at half height on four legs, its back on the -z side, up +y
  Sphere,  ///< a sphere of diameter 1 (a subdivided icosahedron), for bodies seen up close
};

/// One instance of a Shape: 64 bytes, the layout of the GL instance buffer.
struct BoxInstance {
  float centre[3] = {0, 0, 0};          ///< world position of the shape's centre
  float size[3] = {1, 1, 1};            ///< the unit shape's scale along its own axes
  float orientation[4] = {0, 0, 0, 1};  ///< unit quaternion (x, y, z, w); identity: axis-aligned
  float colour[4] = {0.8f, 0.8f, 0.8f, 1};  ///< linear RGB and alpha (alpha is not blended)
  float unused[2] = {0, 0};                 ///< padding to 64 bytes (a kernel writes whole records)
};
static_assert(sizeof(BoxInstance) == 64, "BoxInstance is the GL instance layout");

/// One point-sprite sphere: 32 bytes, the layout of the GL sprite buffer. Drawn as a screen
/// square, shaded and depth-correct as a sphere; cheap enough for millions. Sprites are
/// limited to the GL implementation's largest point size (Mesa's llvmpipe: 255 pixels).
struct SphereInstance {
  float centre[3] = {0, 0, 0};              ///< world position
  float radius = 0.5f;                      ///< world units
  float colour[4] = {0.8f, 0.8f, 0.8f, 1};  ///< linear RGB and alpha (alpha is not blended)
};
static_assert(sizeof(SphereInstance) == 32, "SphereInstance is the GL sprite layout");

/// A terrain: heights on a regular grid over [min_x, max_x] x [min_z, max_z], +y up.
struct HeightField {
  int columns = 0;             ///< samples along x, >= 2
  int rows = 0;                ///< samples along z, >= 2
  float min_x = 0;             ///< world x of column 0
  float max_x = 1;             ///< world x of the last column, > min_x
  float min_z = 0;             ///< world z of row 0
  float max_z = 1;             ///< world z of the last row, > min_z
  std::vector<float> heights;  ///< rows * columns world heights (y), row by row, finite
  std::array<float, 3> colour = {0.35f, 0.55f, 0.3f};  ///< linear RGB
};

/// How a Renderer draws the instances of its shapes.
enum class DrawPath {
  /// LevelOfDetail where the GL rasterises on a GPU; Meshes on a software rasteriser (Mesa's
  /// llvmpipe), where triangles cost little beside the fragments they shade and the level of
  /// detail's passes, each waiting for the one before, cost more than they save.
  Auto,
  /// Each instance as its shape's triangles (12 a box, 72 a chair, 320 a sphere).
  Meshes,
  /// Each instance by its size on screen, chosen on the GPU every frame: outside the view
  /// culled; large as its mesh; a few pixels as an impostor (one point whose pixels cast a
  /// ray at the shape, the same pixels the mesh would cover); under two pixels as a splat (the
  /// pixel under its centre, the nearest splat winning, shaded as the faces it shows).
  LevelOfDetail,
};

/// The instances a frame drew, by how they were drawn (DrawPath::Meshes: all as meshes).
struct DrawCounts {
  std::size_t meshes = 0;     ///< drawn as their shape's triangles
  std::size_t impostors = 0;  ///< drawn as one point casting rays at the shape
  std::size_t splats = 0;     ///< drawn as the pixel under their centre
  std::size_t culled = 0;     ///< outside the view, not drawn
};

/// Setup of a Renderer.
struct RendererOptions {
  int width = 1280;                                         ///< image width in pixels, 1 .. 16384
  int height = 720;                                         ///< image height in pixels, 1 .. 16384
  std::array<float, 3> background = {0.08f, 0.09f, 0.11f};  ///< clear colour, linear RGB
  /// Direction the light comes from (towards the light), world space; normalised by the
  /// renderer. Boxes get an ambient term plus a diffuse one from this light.
  std::array<float, 3> light_direction = {0.4f, 1.0f, 0.6f};
  /// How instances are drawn (options() tells what Auto chose); the height field is always a
  /// mesh and sprites are sprites.
  DrawPath draw_path = DrawPath::Auto;
  /// DrawPath::LevelOfDetail: the projected diameter (of the instance's bounding sphere, in
  /// pixels) from which an instance is drawn as its mesh (so is one whose impostor would be
  /// larger than the GL's largest point). An impostor shades every pixel of its square: past a
  /// few dozen pixels the mesh's triangles are the cheaper.
  float mesh_pixels = 24;
  /// DrawPath::LevelOfDetail: the projected diameter below which an instance is a splat.
  float splat_pixels = 2;
};

/// Image files a Renderer writes.
enum class ImageFormat {
  Png,   ///< .png: lossless, with alpha
  Jpeg,  ///< .jpg or .jpeg: quality 90, no alpha
  Bmp,   ///< .bmp
  Tga,   ///< .tga
};

/// The format a file name's extension asks for (.png, .jpg, .jpeg, .bmp, .tga, in any case);
/// throws rsw::Error (InvalidArgument) naming these for any other, so that a program can check
/// an output name before it runs.
RSW_API ImageFormat image_format_of(std::string_view path);

/// Draws boxes into its own colour and depth images (an OpenGL framebuffer object).
class RSW_API Renderer {
 public:
  /// Creates the shaders, the box mesh and the images; throws rsw::Error (InvalidArgument)
  /// for a size out of range, and rsw::Error when the GL objects cannot be made.
  explicit Renderer(RendererOptions options = {});
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Starts a frame: clears the image and sets the camera for the draws that follow.
  void begin_frame(const OrbitCamera& camera);
  /// Draws `instances` (host memory) of `shape` into the frame.
  void draw_instances(Shape shape, std::span<const BoxInstance> instances);
  /// Room for `count` instances of `shape` in its GL instance buffer, mapped into CUDA for
  /// work queued on `stream` (the buffer is registered with CUDA once, and again when it
  /// grows). Throws rsw::Error (DeviceUnavailable) in a build without CUDA, or rsw::Error
  /// (Cuda) when the GL context is not on the current CUDA device.
  DeviceSpan<BoxInstance> map_instances(Shape shape, std::size_t count,
                                        StreamHandle stream = nullptr);
  /// Hands `shape`'s mapped instances back to GL (after the work queued on the mapping
  /// stream) and draws them into the frame; throws rsw::Error (InvalidArgument) when nothing
  /// is mapped.
  void draw_mapped(Shape shape);
  /// Draws `spheres` (host memory) as point sprites into the frame.
  void draw_spheres(std::span<const SphereInstance> spheres);
  /// As map_instances(), for the sprite buffer.
  DeviceSpan<SphereInstance> map_spheres(std::size_t count, StreamHandle stream = nullptr);
  /// As draw_mapped(), for the sprite buffer.
  void draw_mapped_spheres();
  /// Makes `field` the terrain (its mesh is built once, here); throws rsw::Error
  /// (InvalidArgument) for fewer than 2 x 2 samples, a heights size that is not rows x columns,
  /// an empty extent or a height that is not finite.
  void set_height_field(const HeightField& field);
  /// Draws the terrain into the frame (nothing before set_height_field()).
  void draw_height_field();

  /// A frame of boxes alone: begin_frame(camera), then draw_instances(Shape::Box, boxes).
  void draw_boxes(std::span<const BoxInstance> boxes, const OrbitCamera& camera);
  /// map_instances(Shape::Box, count, stream).
  DeviceSpan<BoxInstance> map_instances(std::size_t count, StreamHandle stream = nullptr);
  /// A frame of mapped boxes alone: begin_frame(camera), then draw_mapped(Shape::Box).
  void draw_mapped(const OrbitCamera& camera);
  /// Runs `gl_commands` with the renderer's image bound as the draw framebuffer and the
  /// viewport covering it, after what was drawn so far: how an overlay draws on top.
  void draw_over(const std::function<void()>& gl_commands);
  /// Copies the image to the current context's default framebuffer (a window), scaled to
  /// `width` x `height` pixels.
  void blit_to_default_framebuffer(int width, int height) const;
  /// Resizes the image (its contents are lost); throws like the constructor for a size out of
  /// range. Same size: nothing happens.
  void resize(int width, int height);
  /// Blocks until the GL work issued so far has finished (glFinish): for timing a frame.
  void finish() const;
  /// The image as RGBA bytes, width * height * 4, top row first.
  std::vector<std::uint8_t> read_rgba() const;
  /// Writes the image to a PNG file; throws rsw::Error (Io) when it cannot.
  void save_png(const std::string& path) const;
  /// Writes the image in the format the file's extension names (see image_format_of());
  /// throws rsw::Error (InvalidArgument) for another extension, (Io) when it cannot write.
  void save_image(const std::string& path) const;
  /// The instances drawn since begin_frame(), by how; waits for the GL work issued so far.
  DrawCounts frame_counts() const;
  /// The instances the frame before drew, by how, for a display that must not wait: once its
  /// GL work is done (never waiting for it); until then those of the last frame that was.
  DrawCounts previous_frame_counts();
  /// Draws the instances of later draws by `path` (Auto: as the constructor chooses).
  void set_draw_path(DrawPath path);
  /// The options in force.
  const RendererOptions& options() const noexcept;

 private:
  void save_image_as(const std::string& path, ImageFormat format) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rsw::render
