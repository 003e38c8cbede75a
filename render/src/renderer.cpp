// Renderer: instanced meshes, point sprites and a terrain drawn into a framebuffer object with
// a colour and a depth renderbuffer. Each shape (and the terrain, as one instance of the
// identity) is a vertex array over its mesh and its own instance buffer, which holds
// BoxInstance records as they are: the vertex shader scales, rotates (by the quaternion) and
// moves the mesh, and the fragment shader lights it with an ambient term and one directional
// light. Sprites are GL points sized by their projected radius; their fragment shader shades
// the disc as a sphere and writes the sphere's depth.
#include "rsw/render/renderer.hpp"

#include <glad/gl.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "instance_interop.hpp"
#include "level_of_detail.hpp"
#include "meshes.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/text.hpp"
#include "shader_program.hpp"

namespace rsw::render {
namespace {

constexpr int kMaxImageSide = 16384;

constexpr const char* kVertexShader = R"(#version 450 core
layout(location = 0) in vec3 vertex_position;
layout(location = 1) in vec3 vertex_normal;
layout(location = 2) in vec3 box_centre;
layout(location = 3) in vec3 box_size;
layout(location = 4) in vec4 box_orientation;
layout(location = 5) in vec4 box_colour;
uniform mat4 view_projection;
out vec3 world_normal;
out vec3 colour;

vec3 rotate(vec4 q, vec3 v) {
  return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v);
}

void main() {
  vec3 world = box_centre + rotate(box_orientation, vertex_position * box_size);
  // The normal of a scaled face is the unscaled normal divided by the scale, rotated.
  world_normal = rotate(box_orientation, vertex_normal / max(box_size, vec3(1e-20)));
  colour = box_colour.rgb;
  gl_Position = view_projection * vec4(world, 1.0);
}
)";

constexpr const char* kFragmentShader = R"(#version 450 core
in vec3 world_normal;
in vec3 colour;
uniform vec3 light_direction;
out vec4 fragment;

void main() {
  float diffuse = max(dot(normalize(world_normal), light_direction), 0.0);
  fragment = vec4(colour * (0.25 + 0.75 * diffuse), 1.0);
}
)";

constexpr const char* kSpriteVertexShader = R"(#version 450 core
layout(location = 0) in vec3 sphere_centre;
layout(location = 1) in float sphere_radius;
layout(location = 2) in vec4 sphere_colour;
uniform mat4 view;
uniform mat4 projection;
uniform float pixels_per_unit;  // image height / (2 tan(fov / 2)): pixels of 1 unit at depth 1
out vec3 view_centre;
out float radius;
out vec3 colour;

void main() {
  vec4 centre = view * vec4(sphere_centre, 1.0);
  view_centre = centre.xyz;
  radius = sphere_radius;
  colour = sphere_colour.rgb;
  gl_Position = projection * centre;
  gl_PointSize = 2.0 * sphere_radius * pixels_per_unit / max(-centre.z, 1e-6);
}
)";

constexpr const char* kSpriteFragmentShader = R"(#version 450 core
in vec3 view_centre;
in float radius;
in vec3 colour;
uniform mat4 projection;
uniform vec3 view_light;  // towards the light, in view space
out vec4 fragment;

void main() {
  vec2 offset = gl_PointCoord * 2.0 - 1.0;  // the disc, +y up
  offset.y = -offset.y;
  float squared = dot(offset, offset);
  if (squared > 1.0) discard;
  vec3 normal = vec3(offset, sqrt(1.0 - squared));
  vec4 clip = projection * vec4(view_centre + radius * normal, 1.0);
  gl_FragDepth = 0.5 * (clip.z / clip.w) + 0.5;
  float diffuse = max(dot(normal, view_light), 0.0);
  fragment = vec4(colour * (0.25 + 0.75 * diffuse), 1.0);
}
)";

constexpr int kSphereSubdivisions = 2;  // 320 triangles

// Whether the GL rasterises on the CPU (Mesa's llvmpipe or softpipe): what DrawPath::Auto
// asks. There the level of detail's passes wait each for the one before, and an impostor,
// which writes its depth, shades its hidden pixels too: the boxes scene at 20,000 boxes takes
// 64 ms a frame drawn as meshes, 82 with every box a mesh through the passes, 149 with the
// impostors of a GPU.
bool rasterises_on_the_cpu() {
  const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string name = renderer != nullptr ? renderer : "";
  return name.find("llvmpipe") != std::string::npos || name.find("softpipe") != std::string::npos;
}

std::array<float, 3> normalised(const std::array<float, 3>& v) {
  const float length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(length > 0)) return {0, 1, 0};
  return {v[0] / length, v[1] / length, v[2] / length};
}

// column-major a * b
Matrix4 multiply(const Matrix4& a, const Matrix4& b) {
  Matrix4 product{};
  for (int column = 0; column < 4; ++column) {
    for (int row = 0; row < 4; ++row) {
      float sum = 0;
      for (int k = 0; k < 4; ++k)
        sum += a[k * 4 + row] * b[column * 4 + k];
      product[column * 4 + row] = sum;
    }
  }
  return product;
}

}  // namespace

namespace {

// One instance buffer and what CUDA makes of it: a shape's BoxInstance records or the sprites.
template <class Record>
struct InstanceBuffer {
  GLuint buffer = 0;
  std::size_t capacity = 0;                          // records the buffer holds
  std::unique_ptr<detail::InstanceInterop> interop;  // the buffer as CUDA sees it, once asked
  std::size_t mapped_count = 0;

  // Grows the buffer to hold `count` records (contents not kept); true when it was replaced.
  bool reserve(std::size_t count) {
    if (count <= capacity && buffer != 0) return false;
    const std::size_t records = std::max({count, capacity + capacity / 2, std::size_t{1}});
    interop.reset();  // registered to the buffer being replaced
    glDeleteBuffers(1, &buffer);
    glCreateBuffers(1, &buffer);
    glNamedBufferData(buffer, static_cast<GLsizeiptr>(records * sizeof(Record)), nullptr,
                      GL_DYNAMIC_DRAW);
    capacity = records;
    return true;
  }
  void upload(std::span<const Record> records) {
    glNamedBufferSubData(buffer, 0, static_cast<GLsizeiptr>(records.size_bytes()), records.data());
  }
  Record* map(std::size_t count, StreamHandle stream) {
    if (!interop) interop = std::make_unique<detail::InstanceInterop>(buffer);
    mapped_count = count;
    return static_cast<Record*>(interop->map(stream));
  }
  std::size_t unmap(const char* caller) {
    if (!interop || !interop->mapped()) {
      throw Error(ErrorKind::InvalidArgument,
                  std::string(caller) + " without a mapping before it (map first)");
    }
    interop->unmap();
    return mapped_count;
  }
  void release() {
    interop.reset();
    glDeleteBuffers(1, &buffer);
    buffer = 0;
    capacity = 0;
  }
};

// A mesh drawn instanced: its vertex array reads the mesh at binding 0 and the instances at
// binding 1, advancing once an instance.
struct MeshBatch {
  GLuint vertex_array = 0;
  GLuint vertices = 0;
  GLuint indices = 0;
  GLsizei index_count = 0;
  InstanceBuffer<BoxInstance> instances;
  detail::ImpostorShape impostor;  // what the level of detail casts rays at

  void make(const detail::Mesh& mesh) {
    glCreateBuffers(1, &vertices);
    glNamedBufferStorage(vertices,
                         static_cast<GLsizeiptr>(mesh.vertices.size() * sizeof(detail::MeshVertex)),
                         mesh.vertices.data(), 0);
    glCreateBuffers(1, &indices);
    glNamedBufferStorage(indices,
                         static_cast<GLsizeiptr>(mesh.indices.size() * sizeof(std::uint32_t)),
                         mesh.indices.data(), 0);
    index_count = static_cast<GLsizei>(mesh.indices.size());
    glCreateVertexArrays(1, &vertex_array);
    glVertexArrayVertexBuffer(vertex_array, 0, vertices, 0, sizeof(detail::MeshVertex));
    glVertexArrayElementBuffer(vertex_array, indices);
    const auto attribute = [&](GLuint location, GLuint binding, GLint components,
                               std::size_t offset) {
      glEnableVertexArrayAttrib(vertex_array, location);
      glVertexArrayAttribFormat(vertex_array, location, components, GL_FLOAT, GL_FALSE,
                                static_cast<GLuint>(offset));
      glVertexArrayAttribBinding(vertex_array, location, binding);
    };
    attribute(0, 0, 3, offsetof(detail::MeshVertex, position));
    attribute(1, 0, 3, offsetof(detail::MeshVertex, normal));
    attribute(2, 1, 3, offsetof(BoxInstance, centre));
    attribute(3, 1, 3, offsetof(BoxInstance, size));
    attribute(4, 1, 4, offsetof(BoxInstance, orientation));
    attribute(5, 1, 4, offsetof(BoxInstance, colour));
    glVertexArrayBindingDivisor(vertex_array, 1, 1);
  }
  void reserve(std::size_t count) {
    if (instances.reserve(count)) {
      glVertexArrayVertexBuffer(vertex_array, 1, instances.buffer, 0, sizeof(BoxInstance));
    }
  }
  void release() {
    instances.release();
    glDeleteBuffers(1, &indices);
    glDeleteBuffers(1, &vertices);
    glDeleteVertexArrays(1, &vertex_array);
    vertex_array = vertices = indices = 0;
  }
};

}  // namespace

struct Renderer::Impl {
  RendererOptions options;
  detail::ShaderProgram program{kVertexShader, kFragmentShader};
  GLint view_projection_location = program.uniform("view_projection");
  GLint light_location = program.uniform("light_direction");
  detail::ShaderProgram sprites{kSpriteVertexShader, kSpriteFragmentShader};
  GLint sprite_view_location = sprites.uniform("view");
  GLint sprite_projection_location = sprites.uniform("projection");
  GLint sprite_scale_location = sprites.uniform("pixels_per_unit");
  GLint sprite_light_location = sprites.uniform("view_light");
  GLuint framebuffer = 0;
  GLuint colour_buffer = 0;
  GLuint depth_buffer = 0;
  std::array<MeshBatch, 3> shapes;  // by Shape
  MeshBatch terrain;                // one identity instance, when a height field is set
  GLuint sprite_array = 0;
  InstanceBuffer<SphereInstance> spheres;
  std::optional<detail::LevelOfDetail> level_of_detail;  // made when first drawn by
  DrawCounts counts;           // the frame's instances drawn as meshes outside the passes
  DrawCounts previous_counts;  // and the frame before's
  DrawCounts shown_counts;     // previous_frame_counts(): the last frame whose counts were in
  OrbitCamera camera;          // of the frame begun last

  explicit Impl(const RendererOptions& setup) : options(setup) {
    make_framebuffer();
    shapes[static_cast<int>(Shape::Box)].make(detail::unit_box());
    shapes[static_cast<int>(Shape::Box)].impostor.boxes = {
        {{-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f}}};
    shapes[static_cast<int>(Shape::Chair)].make(detail::unit_chair());
    shapes[static_cast<int>(Shape::Chair)].impostor.boxes = detail::chair_parts();
    shapes[static_cast<int>(Shape::Sphere)].make(detail::unit_sphere(kSphereSubdivisions));
    shapes[static_cast<int>(Shape::Sphere)].impostor.sphere = true;
    set_draw_path(options.draw_path);
    glCreateVertexArrays(1, &sprite_array);
    const auto attribute = [&](GLuint location, GLint components, std::size_t offset) {
      glEnableVertexArrayAttrib(sprite_array, location);
      glVertexArrayAttribFormat(sprite_array, location, components, GL_FLOAT, GL_FALSE,
                                static_cast<GLuint>(offset));
      glVertexArrayAttribBinding(sprite_array, location, 0);
    };
    attribute(0, 3, offsetof(SphereInstance, centre));
    attribute(1, 1, offsetof(SphereInstance, radius));
    attribute(2, 4, offsetof(SphereInstance, colour));
  }

  ~Impl() { release(); }

  void make_framebuffer() {
    glCreateRenderbuffers(1, &colour_buffer);
    glNamedRenderbufferStorage(colour_buffer, GL_RGBA8, options.width, options.height);
    glCreateRenderbuffers(1, &depth_buffer);
    glNamedRenderbufferStorage(depth_buffer, GL_DEPTH_COMPONENT24, options.width, options.height);
    glCreateFramebuffers(1, &framebuffer);
    glNamedFramebufferRenderbuffer(framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                   colour_buffer);
    glNamedFramebufferRenderbuffer(framebuffer, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_buffer);
    const GLenum status = glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
      release_framebuffer();
      throw Error(ErrorKind::OutOfMemory, "the renderer's " + std::to_string(options.width) + "x" +
                                              std::to_string(options.height) +
                                              " framebuffer is incomplete (status 0x" +
                                              std::to_string(status) + ")");
    }
  }

  void release_framebuffer() {
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteRenderbuffers(1, &depth_buffer);
    glDeleteRenderbuffers(1, &colour_buffer);
    framebuffer = depth_buffer = colour_buffer = 0;
  }

  void reserve_spheres(std::size_t count) {
    if (spheres.reserve(count)) {
      glVertexArrayVertexBuffer(sprite_array, 0, spheres.buffer, 0, sizeof(SphereInstance));
    }
  }

  MeshBatch& shape(Shape which) { return shapes[static_cast<std::size_t>(which)]; }

  void set_draw_path(DrawPath path) {
    const bool automatic = path == DrawPath::Auto;
    if (automatic) path = rasterises_on_the_cpu() ? DrawPath::Meshes : DrawPath::LevelOfDetail;
    if (path == DrawPath::LevelOfDetail && !level_of_detail) {
      try {
        level_of_detail.emplace(options.width, options.height, options.mesh_pixels,
                                options.splat_pixels);
      } catch (const Error&) {  // a GL that cannot build the passes: Auto draws meshes
        if (!automatic) throw;
        path = DrawPath::Meshes;
      }
    }
    options.draw_path = path;
  }

  // A shape's instances, by the draw path.
  void draw_shape(MeshBatch& batch, std::size_t count) {
    if (options.draw_path == DrawPath::Meshes || !level_of_detail->holds(count)) {
      counts.meshes += count;
      draw_batch(batch, count);
      return;
    }
    if (count == 0) return;
    bind_frame();
    level_of_detail->draw(
        batch.instances.buffer, count, batch.vertex_array, batch.index_count, batch.impostor,
        detail::FrameView::of(camera, options.width, options.height, options.light_direction));
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
  }

  void draw_batch(MeshBatch& batch, std::size_t count) {
    if (count == 0) return;
    bind_frame();
    const float aspect = static_cast<float>(options.width) / static_cast<float>(options.height);
    const Matrix4 view_projection = multiply(camera.projection(aspect), camera.view());
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glUseProgram(program.handle());
    glUniformMatrix4fv(view_projection_location, 1, GL_FALSE, view_projection.data());
    glUniform3fv(light_location, 1, options.light_direction.data());
    glBindVertexArray(batch.vertex_array);
    glDrawElementsInstanced(GL_TRIANGLES, batch.index_count, GL_UNSIGNED_INT, nullptr,
                            static_cast<GLsizei>(count));
    glBindVertexArray(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
  }

  void draw_sprites(std::size_t count) {
    if (count == 0) return;
    bind_frame();
    const float aspect = static_cast<float>(options.width) / static_cast<float>(options.height);
    const Matrix4 view = camera.view();
    const Matrix4 projection = camera.projection(aspect);
    // The light in view space: the view's rotation (upper 3x3, column-major) times it.
    const std::array<float, 3>& light = options.light_direction;
    std::array<float, 3> view_light{};
    for (int row = 0; row < 3; ++row) {
      for (int k = 0; k < 3; ++k)
        view_light[row] += view[k * 4 + row] * light[k];
    }
    const float pixels_per_unit = static_cast<float>(options.height) * projection[5] / 2.0f;
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glUseProgram(sprites.handle());
    glUniformMatrix4fv(sprite_view_location, 1, GL_FALSE, view.data());
    glUniformMatrix4fv(sprite_projection_location, 1, GL_FALSE, projection.data());
    glUniform1f(sprite_scale_location, pixels_per_unit);
    glUniform3fv(sprite_light_location, 1, view_light.data());
    glBindVertexArray(sprite_array);
    glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(count));
    glBindVertexArray(0);
    glDisable(GL_PROGRAM_POINT_SIZE);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
  }

  void bind_frame() const {
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, options.width, options.height);
  }

  void release() {
    level_of_detail.reset();
    for (MeshBatch& batch : shapes)
      batch.release();
    terrain.release();
    spheres.release();
    glDeleteVertexArrays(1, &sprite_array);
    sprite_array = 0;
    release_framebuffer();
  }
};

namespace {

void check_image_size(int width, int height) {
  const auto in_range = [](int side) { return side >= 1 && side <= kMaxImageSide; };
  if (!in_range(width) || !in_range(height)) {
    throw Error(ErrorKind::InvalidArgument,
                "renderer image " + std::to_string(width) + "x" + std::to_string(height) +
                    ": each side must be 1 .. " + std::to_string(kMaxImageSide) + " pixels");
  }
}

RendererOptions checked(RendererOptions options) {
  check_image_size(options.width, options.height);
  if (glad_glCreateFramebuffers == nullptr) {
    throw Error(ErrorKind::DeviceUnavailable,
                "the renderer needs a current OpenGL 4.5 context (HeadlessContext or a window)");
  }
  options.light_direction = normalised(options.light_direction);
  const auto size_of_form = [](float pixels, const char* name) {
    if (!(pixels >= 0 && pixels <= static_cast<float>(kMaxImageSide))) {
      throw Error(ErrorKind::InvalidArgument, std::string("renderer ") + name + " " +
                                                  std::to_string(pixels) + ": must be 0 .. " +
                                                  std::to_string(kMaxImageSide) + " pixels");
    }
  };
  size_of_form(options.mesh_pixels, "mesh_pixels");
  size_of_form(options.splat_pixels, "splat_pixels");
  return options;
}

}  // namespace

Renderer::Renderer(RendererOptions options) : impl_(std::make_unique<Impl>(checked(options))) {}

Renderer::~Renderer() = default;

void Renderer::begin_frame(const OrbitCamera& camera) {
  Impl& state = *impl_;
  state.camera = camera;
  const RendererOptions& options = state.options;
  const float clear_colour[4] = {options.background[0], options.background[1],
                                 options.background[2], 1.0f};
  const float clear_depth = 1.0f;
  glClearNamedFramebufferfv(state.framebuffer, GL_COLOR, 0, clear_colour);
  glClearNamedFramebufferfv(state.framebuffer, GL_DEPTH, 0, &clear_depth);
  state.previous_counts = std::exchange(state.counts, {});
  if (state.level_of_detail) state.level_of_detail->begin_frame();
}

void Renderer::draw_instances(Shape shape, std::span<const BoxInstance> instances) {
  if (instances.empty()) return;
  MeshBatch& batch = impl_->shape(shape);
  batch.reserve(instances.size());
  batch.instances.upload(instances);
  impl_->draw_shape(batch, instances.size());
}

DeviceSpan<BoxInstance> Renderer::map_instances(Shape shape, std::size_t count,
                                                StreamHandle stream) {
  MeshBatch& batch = impl_->shape(shape);
  batch.reserve(count);
  return {batch.instances.map(count, stream), count};
}

void Renderer::draw_mapped(Shape shape) {
  MeshBatch& batch = impl_->shape(shape);
  impl_->draw_shape(batch, batch.instances.unmap("draw_mapped()"));
}

void Renderer::draw_spheres(std::span<const SphereInstance> spheres) {
  if (spheres.empty()) return;
  impl_->reserve_spheres(spheres.size());
  impl_->spheres.upload(spheres);
  impl_->draw_sprites(spheres.size());
}

DeviceSpan<SphereInstance> Renderer::map_spheres(std::size_t count, StreamHandle stream) {
  impl_->reserve_spheres(count);
  return {impl_->spheres.map(count, stream), count};
}

void Renderer::draw_mapped_spheres() {
  impl_->draw_sprites(impl_->spheres.unmap("draw_mapped_spheres()"));
}

void Renderer::set_height_field(const HeightField& field) {
  const auto bad = [&](const std::string& why) {
    throw Error(ErrorKind::InvalidArgument, "height field " + std::to_string(field.columns) + "x" +
                                                std::to_string(field.rows) + ": " + why);
  };
  if (field.columns < 2 || field.rows < 2) bad("needs at least 2 x 2 samples");
  if (field.heights.size() != static_cast<std::size_t>(field.columns) * field.rows) {
    bad(std::to_string(field.heights.size()) + " heights, not columns x rows");
  }
  if (!(field.max_x > field.min_x) || !(field.max_z > field.min_z)) bad("empty extent");
  const auto not_finite =
      std::ranges::find_if_not(field.heights, [](float h) { return std::isfinite(h); });
  if (not_finite != field.heights.end()) {
    bad("height " + std::to_string(not_finite - field.heights.begin()) + " is not finite");
  }
  MeshBatch& terrain = impl_->terrain;
  terrain.release();
  terrain.make(detail::height_field_mesh(field));
  BoxInstance identity;
  std::copy(field.colour.begin(), field.colour.end(), identity.colour);
  terrain.reserve(1);
  terrain.instances.upload(std::span(&identity, 1));
}

void Renderer::draw_height_field() {
  if (impl_->terrain.index_count > 0) impl_->draw_batch(impl_->terrain, 1);
}

void Renderer::draw_boxes(std::span<const BoxInstance> boxes, const OrbitCamera& camera) {
  begin_frame(camera);
  draw_instances(Shape::Box, boxes);
}

DeviceSpan<BoxInstance> Renderer::map_instances(std::size_t count, StreamHandle stream) {
  return map_instances(Shape::Box, count, stream);
}

void Renderer::draw_mapped(const OrbitCamera& camera) {
  MeshBatch& boxes = impl_->shape(Shape::Box);
  const std::size_t count = boxes.instances.unmap("draw_mapped()");
  begin_frame(camera);
  impl_->draw_shape(boxes, count);
}

void Renderer::draw_over(const std::function<void()>& gl_commands) {
  const RendererOptions& options = impl_->options;
  glBindFramebuffer(GL_FRAMEBUFFER, impl_->framebuffer);
  glViewport(0, 0, options.width, options.height);
  gl_commands();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void Renderer::blit_to_default_framebuffer(int width, int height) const {
  const RendererOptions& options = impl_->options;
  const bool same_size = width == options.width && height == options.height;
  glBlitNamedFramebuffer(impl_->framebuffer, 0, 0, 0, options.width, options.height, 0, 0, width,
                         height, GL_COLOR_BUFFER_BIT, same_size ? GL_NEAREST : GL_LINEAR);
}

void Renderer::resize(int width, int height) {
  check_image_size(width, height);
  Impl& state = *impl_;
  if (width == state.options.width && height == state.options.height) return;
  const RendererOptions before = state.options;
  state.release_framebuffer();
  state.options.width = width;
  state.options.height = height;
  try {
    state.make_framebuffer();
  } catch (const Error&) {  // keep the image the renderer had
    state.options = before;
    state.make_framebuffer();
    throw;
  }
  if (state.level_of_detail) state.level_of_detail->resize(width, height);
}

void Renderer::finish() const {
  glFinish();
}

std::vector<std::uint8_t> Renderer::read_rgba() const {
  const RendererOptions& options = impl_->options;
  const auto row_bytes = static_cast<std::size_t>(options.width) * 4;
  std::vector<std::uint8_t> bottom_up(row_bytes * static_cast<std::size_t>(options.height));
  glNamedFramebufferReadBuffer(impl_->framebuffer, GL_COLOR_ATTACHMENT0);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, impl_->framebuffer);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, options.width, options.height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  std::vector<std::uint8_t> top_down(bottom_up.size());  // GL's first row is the bottom one
  for (int row = 0; row < options.height; ++row) {
    std::copy_n(bottom_up.data() + static_cast<std::size_t>(options.height - 1 - row) * row_bytes,
                row_bytes, top_down.data() + static_cast<std::size_t>(row) * row_bytes);
  }
  return top_down;
}

ImageFormat image_format_of(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  const std::size_t slash = path.rfind('/');
  const std::string extension =
      dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)
          ? std::string()
          : ascii_lowercase(path.substr(dot + 1));
  if (extension == "png") return ImageFormat::Png;
  if (extension == "jpg" || extension == "jpeg") return ImageFormat::Jpeg;
  if (extension == "bmp") return ImageFormat::Bmp;
  if (extension == "tga") return ImageFormat::Tga;
  throw Error(
      ErrorKind::InvalidArgument,
      "'" + std::string(path) +
          "': an image is written as .png, .jpg, .jpeg, .bmp or .tga, named by its extension");
}

void Renderer::save_png(const std::string& path) const {
  save_image_as(path, ImageFormat::Png);
}

void Renderer::save_image(const std::string& path) const {
  save_image_as(path, image_format_of(path));
}

void Renderer::save_image_as(const std::string& path, ImageFormat format) const {
  constexpr int kJpegQuality = 90;
  const std::vector<std::uint8_t> pixels = read_rgba();
  const int width = impl_->options.width;
  const int height = impl_->options.height;
  const char* file = path.c_str();
  int written = 0;
  switch (format) {
    case ImageFormat::Png:
      written = stbi_write_png(file, width, height, 4, pixels.data(), width * 4);
      break;
    case ImageFormat::Jpeg:
      written = stbi_write_jpg(file, width, height, 4, pixels.data(), kJpegQuality);
      break;
    case ImageFormat::Bmp: written = stbi_write_bmp(file, width, height, 4, pixels.data()); break;
    case ImageFormat::Tga: written = stbi_write_tga(file, width, height, 4, pixels.data()); break;
  }
  if (written == 0) throw Error(ErrorKind::Io, "could not write the screenshot " + path);
}

namespace {

DrawCounts sum(const DrawCounts& a, const DrawCounts& b) {
  return {.meshes = a.meshes + b.meshes,
          .impostors = a.impostors + b.impostors,
          .splats = a.splats + b.splats,
          .culled = a.culled + b.culled};
}

}  // namespace

// A frame may draw by both paths (the path switched in it): its counts are the sum.
DrawCounts Renderer::frame_counts() const {
  const Impl& state = *impl_;
  return state.level_of_detail ? sum(state.counts, state.level_of_detail->frame_counts())
                               : state.counts;
}

DrawCounts Renderer::previous_frame_counts() {
  Impl& state = *impl_;
  if (!state.level_of_detail) {
    state.shown_counts = state.previous_counts;
  } else if (const auto detail = state.level_of_detail->previous_frame_counts()) {
    state.shown_counts = sum(state.previous_counts, *detail);
  }
  return state.shown_counts;
}

void Renderer::set_draw_path(DrawPath path) {
  impl_->set_draw_path(path);
}

const RendererOptions& Renderer::options() const noexcept {
  return impl_->options;
}

}  // namespace rsw::render
