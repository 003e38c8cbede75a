// rsw::render::Renderer: instanced boxes drawn with simple lighting into an offscreen image,
// read back as RGBA or saved as PNG.
//
//   rsw::render::HeadlessContext context;         // or a Window's context
//   rsw::render::Renderer renderer({.width = 1280, .height = 720});
//   renderer.draw_boxes(instances, camera);       // one instance per box: position, size, ...
//   renderer.save_png("frame.png");
//
// The per-instance data lives in one GL buffer. draw_boxes() uploads it from host memory;
// with CUDA, map_instances() lends the same buffer to a kernel instead (CUDA-GL interop: no
// copy through the host) and draw_mapped() draws what the kernel wrote:
//
//   rsw::DeviceSpan<BoxInstance> out = renderer.map_instances(n, stream);
//   write_instances<<<blocks, threads, 0, stream>>>(bodies, out.data, n);
//   renderer.draw_mapped(camera);
//
// Needs a current OpenGL 4.5 core context on the calling thread for its whole life.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rsw/engine/api.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/render/orbit_camera.hpp"

namespace rsw::render {

/// One box to draw: 64 bytes, the layout of the GL instance buffer.
struct BoxInstance {
  float centre[3] = {0, 0, 0};          ///< world position of the box's centre
  float size[3] = {1, 1, 1};            ///< edge lengths along the box's own axes
  float orientation[4] = {0, 0, 0, 1};  ///< unit quaternion (x, y, z, w); identity: axis-aligned
  float colour[4] = {0.8f, 0.8f, 0.8f, 1};  ///< linear RGB and alpha (alpha is not blended)
  float unused[2] = {0, 0};                 ///< padding to 64 bytes (a kernel writes whole records)
};
static_assert(sizeof(BoxInstance) == 64, "BoxInstance is the GL instance layout");

/// Setup of a Renderer.
struct RendererOptions {
  int width = 1280;                                         ///< image width in pixels, 1 .. 16384
  int height = 720;                                         ///< image height in pixels, 1 .. 16384
  std::array<float, 3> background = {0.08f, 0.09f, 0.11f};  ///< clear colour, linear RGB
  /// Direction the light comes from (towards the light), world space; normalised by the
  /// renderer. Boxes get an ambient term plus a diffuse one from this light.
  std::array<float, 3> light_direction = {0.4f, 1.0f, 0.6f};
};

/// Draws boxes into its own colour and depth images (an OpenGL framebuffer object).
class RSW_API Renderer {
 public:
  /// Creates the shaders, the box mesh and the images; throws rsw::Error (InvalidArgument)
  /// for a size out of range, and rsw::Error when the GL objects cannot be made.
  explicit Renderer(RendererOptions options = {});
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Clears the image and draws `boxes` (host memory) as seen by `camera`.
  void draw_boxes(std::span<const BoxInstance> boxes, const OrbitCamera& camera);
  /// Room for `count` instances in the GL instance buffer, mapped into CUDA for work queued
  /// on `stream` (the buffer is registered with CUDA once, and again when it grows). Throws
  /// rsw::Error (DeviceUnavailable) in a build without CUDA, or rsw::Error (Cuda) when the
  /// GL context is not on the current CUDA device.
  DeviceSpan<BoxInstance> map_instances(std::size_t count, StreamHandle stream = nullptr);
  /// Hands the mapped instances back to GL (after the work queued on the mapping stream) and
  /// draws them as draw_boxes() would; throws rsw::Error (InvalidArgument) when nothing is
  /// mapped.
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
  /// The options in force.
  const RendererOptions& options() const noexcept;

 private:
  void draw(std::size_t count, const OrbitCamera& camera);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rsw::render
