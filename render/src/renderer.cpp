// Renderer: one draw call of instanced unit cubes into a framebuffer object with a colour and
// a depth renderbuffer. The instance buffer holds BoxInstance records as they are; the vertex
// shader scales, rotates (by the quaternion) and moves the cube, and the fragment shader
// lights it with an ambient term and one directional light.
#include "rsw/render/renderer.hpp"

#include <glad/gl.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "box_mesh.hpp"
#include "instance_interop.hpp"
#include "rsw/engine/error.hpp"
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

struct Renderer::Impl {
  RendererOptions options;
  detail::ShaderProgram program{kVertexShader, kFragmentShader};
  GLint view_projection_location = program.uniform("view_projection");
  GLint light_location = program.uniform("light_direction");
  GLuint framebuffer = 0;
  GLuint colour_buffer = 0;
  GLuint depth_buffer = 0;
  GLuint vertex_array = 0;
  GLuint mesh_vertices = 0;
  GLuint mesh_indices = 0;
  GLuint instances = 0;
  std::size_t instance_capacity = 0;  // BoxInstance records the instance buffer holds
  std::unique_ptr<detail::InstanceInterop> interop;  // the buffer as CUDA sees it, once asked
  std::size_t mapped_count = 0;

  explicit Impl(const RendererOptions& setup) : options(setup) {
    make_framebuffer();
    make_vertex_array();
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

  void make_vertex_array() {
    const detail::BoxMesh mesh = detail::unit_box_mesh();
    glCreateBuffers(1, &mesh_vertices);
    glNamedBufferStorage(mesh_vertices, sizeof(mesh.vertices), mesh.vertices.data(), 0);
    glCreateBuffers(1, &mesh_indices);
    glNamedBufferStorage(mesh_indices, sizeof(mesh.indices), mesh.indices.data(), 0);
    glCreateVertexArrays(1, &vertex_array);
    glVertexArrayVertexBuffer(vertex_array, 0, mesh_vertices, 0, sizeof(detail::MeshVertex));
    glVertexArrayElementBuffer(vertex_array, mesh_indices);
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
    glVertexArrayBindingDivisor(vertex_array, 1, 1);  // binding 1 advances once an instance
  }

  // The instance buffer, grown to hold `count` records (contents not kept).
  void reserve_instances(std::size_t count) {
    if (count <= instance_capacity) return;
    const std::size_t capacity = std::max(count, instance_capacity + instance_capacity / 2);
    interop.reset();  // registered to the buffer being replaced
    glDeleteBuffers(1, &instances);
    glCreateBuffers(1, &instances);
    glNamedBufferData(instances, static_cast<GLsizeiptr>(capacity * sizeof(BoxInstance)), nullptr,
                      GL_DYNAMIC_DRAW);
    instance_capacity = capacity;
    glVertexArrayVertexBuffer(vertex_array, 1, instances, 0, sizeof(BoxInstance));
  }

  void release() {
    interop.reset();
    glDeleteBuffers(1, &instances);
    glDeleteBuffers(1, &mesh_indices);
    glDeleteBuffers(1, &mesh_vertices);
    glDeleteVertexArrays(1, &vertex_array);
    instances = mesh_indices = mesh_vertices = vertex_array = 0;
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
  return options;
}

}  // namespace

Renderer::Renderer(RendererOptions options) : impl_(std::make_unique<Impl>(checked(options))) {}

Renderer::~Renderer() = default;

void Renderer::draw_boxes(std::span<const BoxInstance> boxes, const OrbitCamera& camera) {
  if (!boxes.empty()) {
    impl_->reserve_instances(boxes.size());
    glNamedBufferSubData(impl_->instances, 0, static_cast<GLsizeiptr>(boxes.size_bytes()),
                         boxes.data());
  }
  draw(boxes.size(), camera);
}

DeviceSpan<BoxInstance> Renderer::map_instances(std::size_t count, StreamHandle stream) {
  Impl& state = *impl_;
  state.reserve_instances(std::max<std::size_t>(count, 1));
  if (!state.interop) state.interop = std::make_unique<detail::InstanceInterop>(state.instances);
  auto* first = static_cast<BoxInstance*>(state.interop->map(stream));
  state.mapped_count = count;
  return {first, count};
}

void Renderer::draw_mapped(const OrbitCamera& camera) {
  Impl& state = *impl_;
  if (!state.interop || !state.interop->mapped()) {
    throw Error(ErrorKind::InvalidArgument, "draw_mapped() without map_instances() before it");
  }
  state.interop->unmap();
  draw(state.mapped_count, camera);
}

void Renderer::draw(std::size_t count, const OrbitCamera& camera) {
  Impl& state = *impl_;
  const RendererOptions& options = state.options;
  glBindFramebuffer(GL_FRAMEBUFFER, state.framebuffer);
  glViewport(0, 0, options.width, options.height);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  const float clear_colour[4] = {options.background[0], options.background[1],
                                 options.background[2], 1.0f};
  const float clear_depth = 1.0f;
  glClearNamedFramebufferfv(state.framebuffer, GL_COLOR, 0, clear_colour);
  glClearNamedFramebufferfv(state.framebuffer, GL_DEPTH, 0, &clear_depth);
  if (count > 0) {
    const float aspect = static_cast<float>(options.width) / static_cast<float>(options.height);
    const Matrix4 view_projection = multiply(camera.projection(aspect), camera.view());
    glUseProgram(state.program.handle());
    glUniformMatrix4fv(state.view_projection_location, 1, GL_FALSE, view_projection.data());
    glUniform3fv(state.light_location, 1, options.light_direction.data());
    glBindVertexArray(state.vertex_array);
    glDrawElementsInstanced(GL_TRIANGLES, 36, GL_UNSIGNED_SHORT, nullptr,
                            static_cast<GLsizei>(count));
    glBindVertexArray(0);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
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

void Renderer::save_png(const std::string& path) const {
  const std::vector<std::uint8_t> pixels = read_rgba();
  const RendererOptions& options = impl_->options;
  if (stbi_write_png(path.c_str(), options.width, options.height, 4, pixels.data(),
                     options.width * 4) == 0) {
    throw Error(ErrorKind::Io, "could not write the PNG screenshot " + path);
  }
}

const RendererOptions& Renderer::options() const noexcept {
  return impl_->options;
}

}  // namespace rsw::render
