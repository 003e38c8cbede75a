#include "level_of_detail.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glm/gtc/type_ptr.hpp>
#include <glm/mat4x4.hpp>
#include <glm/matrix.hpp>
#include <optional>
#include <string>

namespace rsw::render::detail {
namespace {

// Threads of a compute work group: a group of the sorting pass adds its counts to the global
// ones with one atomic each, so larger groups mean fewer atomics on the same few words.
constexpr GLuint kGroup = 256;
constexpr GLuint kNone = 0xffffffffu;

// The command buffer, as uints: the meshes' DrawElementsIndirectCommand, the impostors' and
// the splat rectangle's DrawArraysIndirectCommand, and from word 13 the rectangle's corners in
// pixels (low x, low y, high x, high y), as the shaders write and read them.
constexpr GLuint kMeshCommand = 0;       // count, instances (counted), first, base vertex, base
constexpr GLuint kImpostorCommand = 5;   // count (counted), instances, first, base instance
constexpr GLuint kCompositeCommand = 9;  // count (4 once a splat is seen), instances, ...
constexpr GLuint kCommandWords = 17;
constexpr GLuint kCountWords = 4;  // a frame's meshes, impostors, splats and culled

// Buffer bindings, the same in every program.
constexpr GLuint kInstancesBinding = 0;
constexpr GLuint kListsBinding = 1;
constexpr GLuint kCommandsBinding = 2;
constexpr GLuint kSplatDepthsBinding = 3;
constexpr GLuint kSplatsBinding = 4;
constexpr GLuint kFrameCountsBinding = 5;
constexpr GLuint kSplatIdsBinding = 6;

// What every stage shares: the instances as BoxInstance records (16 floats) and a rotation.
constexpr const char* kCommon = R"(#version 450 core
const uint kNone = 0xffffffffu;
layout(std430, binding = 0) readonly buffer Instances { float instance_data[]; };

struct Instance {
  vec3 centre;
  vec3 size;
  vec4 orientation;
  vec3 colour;
};

Instance load_instance(uint i) {
  uint at = 16u * i;
  Instance b;
  b.centre = vec3(instance_data[at], instance_data[at + 1u], instance_data[at + 2u]);
  b.size = vec3(instance_data[at + 3u], instance_data[at + 4u], instance_data[at + 5u]);
  b.orientation = vec4(instance_data[at + 6u], instance_data[at + 7u], instance_data[at + 8u],
                       instance_data[at + 9u]);
  b.colour = vec3(instance_data[at + 10u], instance_data[at + 11u], instance_data[at + 12u]);
  return b;
}

vec3 rotate(vec4 q, vec3 v) {
  return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v);
}

// The extent on screen (normalised device coordinates) of the instance's unit cube, and its
// nearest corner's depth.
void screen_extent(Instance b, mat4 view_projection, out vec2 low, out vec2 high,
                   out float nearest) {
  low = vec2(1e30);
  high = vec2(-1e30);
  nearest = 1.0;
  for (int k = 0; k < 8; ++k) {
    vec3 corner = vec3(float(k & 1), float((k >> 1) & 1), float((k >> 2) & 1)) - 0.5;
    vec4 clip = view_projection * vec4(b.centre + rotate(b.orientation, corner * b.size), 1.0);
    vec3 device = clip.xyz / clip.w;
    low = min(low, device.xy);
    high = max(high, device.xy);
    nearest = min(nearest, device.z);
  }
}

// The side of the point over that extent, in pixels.
float point_size(vec2 low, vec2 high, vec2 image_size) {
  vec2 pixels = (high - low) * 0.5 * image_size;
  return max(pixels.x, pixels.y) + 2.0;
}

// The shading of a lit surface, as the mesh's fragment shader has it.
vec3 lit(vec3 colour, vec3 normal, vec3 light) {
  return colour * (0.25 + 0.75 * max(dot(normal, light), 0.0));
}
)";

// What the compute passes add: the index of a thread across a dispatch of (x, y) groups.
constexpr const char* kComputeCommon = R"(
uint thread_index() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
         gl_LocalInvocationIndex;
}
)";

// The command buffer as a batch starts: zero counts, the mesh's index count, an empty
// rectangle. Written on the GPU, in order with the batches before, where an upload from the
// host would wait for the last frame's indirect draws to finish reading it.
constexpr const char* kReset = R"(
layout(std430, binding = 2) writeonly buffer Commands { uint command[]; };
uniform uint index_count;

void main() {
  if (thread_index() != 0u) return;
  command[0] = index_count;
  for (int k = 1; k < 17; ++k) command[k] = 0u;
  command[6] = 1u;
  command[10] = 1u;
  command[13] = kNone;
  command[14] = kNone;
}
)";

constexpr const char* kClassify = R"(
layout(std430, binding = 1) writeonly buffer Lists { uint list[]; };
layout(std430, binding = 2) buffer Commands { uint command[]; };
layout(std430, binding = 3) buffer SplatDepths { uint splat_depth[]; };
layout(std430, binding = 4) writeonly buffer Splats { uvec2 splat[]; };
layout(std430, binding = 5) buffer FrameCounts { uint frame_count[]; };
uniform uint instance_count;
uniform uint list_capacity;
uniform mat4 view;
uniform mat4 view_projection;
uniform vec4 planes[6];
uniform vec2 image_size;
uniform float pixels_per_unit;
uniform float near_plane;
uniform float far_plane;
uniform float mesh_pixels;
uniform float splat_pixels;
uniform float largest_point;

const int kMesh = 0, kImpostor = 1, kSplat = 2, kCulled = 3;

// Whether every component is a finite number, by its exponent bits (which no assumption of
// the compiler's about NaN can fold away).
bool finite(vec3 v) {
  return all(lessThan((floatBitsToUint(v) >> 23u) & 0xffu, uvec3(0xffu)));
}
shared uint group_count[4];
shared uint group_base[2];
shared uint rectangle[4];

void main() {
  uint local = gl_LocalInvocationIndex;
  if (local < 4u) group_count[local] = 0u;
  if (local == 0u) {
    rectangle[0] = kNone;
    rectangle[1] = kNone;
    rectangle[2] = 0u;
    rectangle[3] = 0u;
  }
  barrier();

  uint i = thread_index();
  int kind = -1;
  uint slot = 0u;
  uvec2 pixel = uvec2(0u);
  uint depth_bits = 0u;
  if (i < instance_count) {
    Instance b = load_instance(i);
    float radius = 0.5 * length(b.size);
    kind = kCulled;  // as is an instance that is not finite, which no form could draw
    bool inside = finite(b.centre) && finite(b.size) && finite(vec3(radius));
    for (int p = 0; p < 6; ++p) {
      inside = inside && dot(planes[p].xyz, b.centre) + planes[p].w >= -radius;
    }
    if (inside) {
      float depth = -(view * vec4(b.centre, 1.0)).z;
      vec4 clip = view_projection * vec4(b.centre, 1.0);
      vec2 window = (clip.xy / clip.w * 0.5 + 0.5) * image_size;
      float diameter = 2.0 * radius * pixels_per_unit / depth;
      // A point is drawn only where its centre is in view, and an impostor's depth is its
      // corners': the instance clear of the planes and well inside the image, or a mesh. So
      // is a flat one (a side of size 0), whose unit space an impostor cannot reach.
      vec3 side = abs(b.size);
      bool clear = depth - radius > near_plane && depth + radius < far_plane &&
                   all(greaterThanEqual(window, vec2(diameter + 1.0))) &&
                   all(lessThan(window, image_size - vec2(diameter + 1.0))) &&
                   min(side.x, min(side.y, side.z)) > 1e-6 * max(side.x, max(side.y, side.z));
      if (!clear || diameter >= mesh_pixels) {
        kind = kMesh;
      } else if (diameter >= splat_pixels) {
        // The perspective draws the extent out towards the image's corners: a point the GL
        // cannot draw so large leaves the instance a mesh.
        vec2 low, high;
        float nearest;
        screen_extent(b, view_projection, low, high, nearest);
        kind = point_size(low, high, image_size) <= largest_point ? kImpostor : kMesh;
      } else {
        kind = kSplat;
        pixel = uvec2(window);
        depth_bits = floatBitsToUint(0.5 * clip.z / clip.w + 0.5);
      }
    }
    slot = atomicAdd(group_count[kind], 1u);
    if (kind == kSplat) {
      atomicMin(rectangle[0], pixel.x);
      atomicMin(rectangle[1], pixel.y);
      atomicMax(rectangle[2], pixel.x);
      atomicMax(rectangle[3], pixel.y);
    }
  }
  barrier();
  if (local == 0u) {
    group_base[0] = atomicAdd(command[1], group_count[kMesh]);
    group_base[1] = atomicAdd(command[5], group_count[kImpostor]);
    for (int k = 0; k < 4; ++k) {
      if (group_count[k] > 0u) atomicAdd(frame_count[k], group_count[k]);
    }
    if (group_count[kSplat] > 0u) {
      command[9] = 4u;
      atomicMin(command[13], rectangle[0]);
      atomicMin(command[14], rectangle[1]);
      atomicMax(command[15], rectangle[2]);
      atomicMax(command[16], rectangle[3]);
    }
  }
  barrier();
  if (kind == kMesh) list[group_base[0] + slot] = i;
  if (kind == kImpostor) list[list_capacity + group_base[1] + slot] = i;
  if (i < instance_count) {
    uint at = pixel.y * uint(image_size.x) + pixel.x;
    splat[i] = uvec2(kind == kSplat ? at : kNone, depth_bits);
    if (kind == kSplat) atomicMin(splat_depth[at], depth_bits);
  }
}
)";

constexpr const char* kMeshVertex = R"(
layout(location = 0) in vec3 vertex_position;
layout(location = 1) in vec3 vertex_normal;
layout(std430, binding = 1) readonly buffer Lists { uint list[]; };
uniform mat4 view_projection;
out vec3 world_normal;
out vec3 colour;

void main() {
  Instance b = load_instance(list[gl_InstanceID]);
  vec3 world = b.centre + rotate(b.orientation, vertex_position * b.size);
  world_normal = rotate(b.orientation, vertex_normal / max(b.size, vec3(1e-20)));
  colour = b.colour;
  gl_Position = view_projection * vec4(world, 1.0);
}
)";

constexpr const char* kMeshFragment = R"(
in vec3 world_normal;
in vec3 colour;
uniform vec3 light_direction;
out vec4 fragment;

void main() {
  fragment = vec4(lit(colour, normalize(world_normal), light_direction), 1.0);
}
)";

constexpr const char* kImpostorVertex = R"(
layout(std430, binding = 1) readonly buffer Lists { uint list[]; };
uniform uint list_capacity;
uniform mat4 view_projection;
uniform vec2 image_size;
uniform vec3 eye;
uniform vec3 ray_at_origin;  // the ray through window point (0, 0), to the far plane
uniform vec3 ray_step_x;     // its change a pixel to the right
uniform vec3 ray_step_y;     // and a pixel up
flat out vec3 origin;        // the eye, in the instance's unit space
flat out vec3 ray_base;      // the ray through window point (0, 0), in that space
flat out vec3 ray_x;
flat out vec3 ray_y;
flat out vec3 size;
flat out vec4 orientation;
flat out vec3 colour;

// A point over the shape's unit cube on screen: its corners' extent, at the nearest corner's
// depth (the fragments' depth is never nearer, which keeps the early depth test). The rays of
// its pixels, affine in the window position, are taken into the instance's unit space here
// (unrotated and unscaled: a ray's parameter t is the same there).
void main() {
  Instance b = load_instance(list[list_capacity + uint(gl_VertexID)]);
  vec4 undo = vec4(-b.orientation.xyz, b.orientation.w);
  origin = rotate(undo, eye - b.centre) / b.size;
  ray_base = rotate(undo, ray_at_origin) / b.size;
  ray_x = rotate(undo, ray_step_x) / b.size;
  ray_y = rotate(undo, ray_step_y) / b.size;
  size = b.size;
  orientation = b.orientation;
  colour = b.colour;
  vec2 low, high;
  float nearest;
  screen_extent(b, view_projection, low, high, nearest);
  gl_PointSize = point_size(low, high, image_size);
  gl_Position = vec4(0.5 * (low + high), nearest, 1.0);
}
)";

constexpr const char* kImpostorFragment = R"(
layout(depth_greater) out float gl_FragDepth;
uniform vec2 depth_of_t;  // a hit at ray parameter t has depth x - y / t
uniform vec3 light_direction;
uniform int box_count;
uniform vec3 box_low[8];
uniform vec3 box_high[8];
uniform int sphere;
flat in vec3 origin;
flat in vec3 ray_base;
flat in vec3 ray_x;
flat in vec3 ray_y;
flat in vec3 size;
flat in vec4 orientation;
flat in vec3 colour;
out vec4 fragment;

// The pixel's ray, origin + t * ray, cast at the shape in its unit space: the nearest hit
// gives the normal and the depth.
void main() {
  vec3 ray = ray_base + gl_FragCoord.x * ray_x + gl_FragCoord.y * ray_y;
  float nearest = 1e30;
  vec3 unit_normal = vec3(0.0);
  if (sphere != 0) {  // |origin + t ray| = 1/2
    float a = dot(ray, ray);
    float half_b = dot(origin, ray);
    float discriminant = half_b * half_b - a * (dot(origin, origin) - 0.25);
    if (discriminant >= 0.0) {
      float t = (-half_b - sqrt(discriminant)) / a;
      if (t > 0.0) {
        nearest = t;
        unit_normal = origin + t * ray;
      }
    }
  } else {
    vec3 reciprocal = 1.0 / mix(ray, vec3(1e-30), equal(ray, vec3(0.0)));
    for (int k = 0; k < box_count; ++k) {
      vec3 to_low = (box_low[k] - origin) * reciprocal;
      vec3 to_high = (box_high[k] - origin) * reciprocal;
      vec3 enter = min(to_low, to_high);
      float t_enter = max(max(enter.x, enter.y), enter.z);
      vec3 leave = max(to_low, to_high);
      float t_leave = min(min(leave.x, leave.y), leave.z);
      if (t_enter <= t_leave && t_enter > 0.0 && t_enter < nearest) {
        nearest = t_enter;
        unit_normal = t_enter == enter.x   ? vec3(-sign(ray.x), 0.0, 0.0)
                      : t_enter == enter.y ? vec3(0.0, -sign(ray.y), 0.0)
                                           : vec3(0.0, 0.0, -sign(ray.z));
      }
    }
  }
  if (nearest == 1e30) discard;
  // Never nearer than the point's own depth (its nearest corner), which a rounding of the
  // same value along another path could make it.
  gl_FragDepth = max(depth_of_t.x - depth_of_t.y / nearest, gl_FragCoord.z);
  // The normal of a scaled surface is the unit one divided by the scale, rotated.
  vec3 world_normal = normalize(rotate(orientation, unit_normal / size));
  fragment = vec4(lit(colour, world_normal, light_direction), 1.0);
}
)";

constexpr const char* kResolve = R"(
layout(std430, binding = 3) readonly buffer SplatDepths { uint splat_depth[]; };
layout(std430, binding = 4) readonly buffer Splats { uvec2 splat[]; };
layout(std430, binding = 6) buffer SplatIds { uint splat_id[]; };
uniform uint instance_count;

// Of the splats at the pixel's nearest depth, the lowest instance: the same one every frame.
void main() {
  uint i = thread_index();
  if (i >= instance_count) return;
  uvec2 s = splat[i];
  if (s.x != kNone && splat_depth[s.x] == s.y) atomicMin(splat_id[s.x], i);
}
)";

constexpr const char* kCompositeVertex = R"(
layout(std430, binding = 2) readonly buffer Commands { uint command[]; };
uniform vec2 image_size;

// The rectangle of pixels that hold splats, as a strip of two triangles.
void main() {
  vec2 low = vec2(float(command[13]), float(command[14]));
  vec2 high = vec2(float(command[15]), float(command[16])) + 1.0;
  vec2 corner = vec2((gl_VertexID & 1) != 0 ? high.x : low.x, (gl_VertexID & 2) != 0 ? high.y : low.y);
  gl_Position = vec4(corner / image_size * 2.0 - 1.0, 0.0, 1.0);
}
)";

constexpr const char* kCompositeFragment = R"(
layout(std430, binding = 3) buffer SplatDepths { uint splat_depth[]; };
layout(std430, binding = 6) buffer SplatIds { uint splat_id[]; };
uniform uint image_width;
uniform vec3 eye;
uniform vec3 light_direction;
out vec4 fragment;

// A splat's colour: the three faces it shows, each lit, weighted by their area on screen.
vec3 splat_colour(Instance b) {
  vec3 towards_eye = normalize(eye - b.centre);
  vec3 area = vec3(b.size.y * b.size.z, b.size.z * b.size.x, b.size.x * b.size.y);
  float weight = 0.0;
  vec3 sum = vec3(0.0);
  for (int axis = 0; axis < 3; ++axis) {
    vec3 unit = vec3(0.0);
    unit[axis] = 1.0;
    vec3 normal = rotate(b.orientation, unit);
    float facing = dot(normal, towards_eye);
    if (facing < 0.0) {
      normal = -normal;
      facing = -facing;
    }
    float w = abs(area[axis]) * facing;
    weight += w;
    sum += w * lit(b.colour, normal, light_direction);
  }
  return weight > 0.0 ? sum / weight : b.colour;
}

// Every pixel of the rectangle empties its two buffers for the next batch; one without a splat
// writes the far depth, which the depth test turns away (a discard could drop the stores).
void main() {
  uint at = uint(gl_FragCoord.y) * image_width + uint(gl_FragCoord.x);
  uint id = splat_id[at];
  uint depth = splat_depth[at];
  splat_id[at] = kNone;
  splat_depth[at] = kNone;
  if (id == kNone) {
    gl_FragDepth = 1.0;
    fragment = vec4(0.0);
  } else {
    gl_FragDepth = uintBitsToFloat(depth);
    fragment = vec4(splat_colour(load_instance(id)), 1.0);
  }
}
)";

std::string program_text(const char* body) {
  return std::string(kCommon) + body;
}

std::string compute_text(const char* body) {
  return std::string(kCommon) + "layout(local_size_x = " + std::to_string(kGroup) + ") in;\n" +
         kComputeCommon + body;
}

// A (x, y) dispatch of groups of kGroup threads covering `count`.
void dispatch_over(std::size_t count) {
  constexpr std::size_t kMostGroupsAlongX = 65535;  // the least any GL implementation allows
  const std::size_t groups = std::max<std::size_t>((count + kGroup - 1) / kGroup, 1);
  const std::size_t along_x = std::min(groups, kMostGroupsAlongX);
  glDispatchCompute(static_cast<GLuint>(along_x),
                    static_cast<GLuint>((groups + along_x - 1) / along_x), 1);
}

GLint location(const ShaderProgram& program, const char* name) {
  return glGetUniformLocation(program.handle(), name);  // -1 where unused: GL ignores it
}

void set_matrix(const ShaderProgram& program, const char* name, const Matrix4& matrix) {
  glProgramUniformMatrix4fv(program.handle(), location(program, name), 1, GL_FALSE, matrix.data());
}

void set_vector(const ShaderProgram& program, const char* name, const std::array<float, 3>& v) {
  glProgramUniform3fv(program.handle(), location(program, name), 1, v.data());
}

void set_image_size(const ShaderProgram& program, const FrameView& view) {
  glProgramUniform2f(program.handle(), location(program, "image_size"),
                     static_cast<float>(view.width), static_cast<float>(view.height));
}

// The offset of a word of the command buffer, as the indirect draws take it.
const void* at_word(GLuint word) {
  return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(word) * sizeof(GLuint));
}

void make_buffer(GLuint& buffer, std::size_t bytes) {
  glDeleteBuffers(1, &buffer);
  glCreateBuffers(1, &buffer);
  glNamedBufferData(buffer, static_cast<GLsizeiptr>(bytes), nullptr, GL_DYNAMIC_DRAW);
}

void clear_counts(GLuint buffer) {
  const GLuint zero = 0;
  glClearNamedBufferData(buffer, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
}

DrawCounts read_counts(GLuint buffer) {
  std::array<GLuint, kCountWords> counts{};
  glGetNamedBufferSubData(buffer, 0, sizeof(counts), counts.data());
  return {.meshes = counts[0], .impostors = counts[1], .splats = counts[2], .culled = counts[3]};
}

void fill_with_none(GLuint buffer) {
  const GLuint none = kNone;
  glClearNamedBufferData(buffer, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
}

}  // namespace

FrameView FrameView::of(const OrbitCamera& camera, int width, int height,
                        const std::array<float, 3>& light) {
  FrameView frame;
  frame.width = width;
  frame.height = height;
  frame.eye = camera.eye();
  frame.light = light;
  frame.near_plane = camera.near_plane;
  frame.far_plane = camera.far_plane;
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  const glm::mat4 view = glm::make_mat4(camera.view().data());
  const glm::mat4 projection = glm::make_mat4(camera.projection(aspect).data());
  const glm::mat4 view_projection = projection * view;
  std::copy_n(glm::value_ptr(view), 16, frame.view.begin());
  std::copy_n(glm::value_ptr(view_projection), 16, frame.view_projection.begin());
  frame.pixels_per_unit = static_cast<float>(height) * projection[1][1] / 2.0f;
  // The point of the far plane at window point (x, y) is the inverse view-projection times
  // (2x / width - 1, 2y / height - 1, 1, 1), whose w is the same everywhere on that plane
  // (1 / far): the ray from the eye to it is affine in x and y.
  const glm::mat4 inverse = glm::inverse(view_projection);
  const float w = inverse[2][3] + inverse[3][3];
  const glm::vec3 eye = glm::make_vec3(frame.eye.data());
  const glm::vec3 step_x = glm::vec3(inverse[0]) * (2.0f / static_cast<float>(width)) / w;
  const glm::vec3 step_y = glm::vec3(inverse[1]) * (2.0f / static_cast<float>(height)) / w;
  const glm::vec3 far_at_origin =
      glm::vec3(inverse[2]) + glm::vec3(inverse[3]) - glm::vec3(inverse[0]) - glm::vec3(inverse[1]);
  const glm::vec3 at_origin = far_at_origin / w - eye;
  frame.ray_at_origin = {at_origin.x, at_origin.y, at_origin.z};
  frame.ray_step_x = {step_x.x, step_x.y, step_x.z};
  frame.ray_step_y = {step_y.x, step_y.y, step_y.z};
  // Such a ray meets view depth d at t = d / far, where the projection gives window depth
  // (far + near) / (2 (far - near)) + 1/2 - near / ((far - near) t).
  const float near = camera.near_plane;
  const float far = camera.far_plane;
  frame.depth_of_t = {0.5f * (far + near) / (far - near) + 0.5f, near / (far - near)};
  // The planes from the rows of the view-projection (Gribb and Hartmann): the fourth row plus
  // or minus each of the first three, inward, scaled to unit normals.
  const glm::mat4 rows = glm::transpose(view_projection);
  for (int k = 0; k < 6; ++k) {
    const glm::vec4 plane = rows[3] + (k % 2 == 0 ? 1.0f : -1.0f) * rows[k / 2];
    const float length = glm::length(glm::vec3(plane));
    for (int c = 0; c < 4; ++c)
      frame.planes[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)] = plane[c] / length;
  }
  return frame;
}

LevelOfDetail::LevelOfDetail(int width, int height, float mesh_pixels, float splat_pixels)
    : reset_(compute_text(kReset)),
      classify_(compute_text(kClassify)),
      meshes_(program_text(kMeshVertex), program_text(kMeshFragment)),
      impostors_(program_text(kImpostorVertex), program_text(kImpostorFragment)),
      resolve_(compute_text(kResolve)),
      composite_(program_text(kCompositeVertex), program_text(kCompositeFragment)) {
  glCreateVertexArrays(1, &empty_array_);
  make_buffer(commands_, kCommandWords * sizeof(GLuint));
  make_buffer(frame_counts_, kCountWords * sizeof(GLuint));
  clear_counts(frame_counts_);
  glCreateBuffers(1, &counts_read_);
  glNamedBufferData(counts_read_, kCountWords * sizeof(GLuint), nullptr, GL_DYNAMIC_READ);
  GLfloat point_sizes[2] = {1, 1};
  glGetFloatv(GL_POINT_SIZE_RANGE, point_sizes);
  largest_point_ = point_sizes[1];
  splat_pixels_ = splat_pixels;
  mesh_pixels_ = mesh_pixels;
  // The instances are read as one shader storage block of 64-byte records, indexed by 32-bit
  // word offsets.
  GLint64 block_bytes = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block_bytes);
  most_instances_ = std::min<std::size_t>(
      static_cast<std::size_t>(std::max<GLint64>(block_bytes, 0)) / sizeof(BoxInstance),
      std::size_t{1} << 28);
  resize(width, height);
}

LevelOfDetail::~LevelOfDetail() {
  for (GLuint* buffer :
       {&lists_, &splats_, &commands_, &frame_counts_, &counts_read_, &splat_depths_, &splat_ids_})
    glDeleteBuffers(1, buffer);
  glDeleteSync(previous_copied_);
  glDeleteVertexArrays(1, &empty_array_);
}

void LevelOfDetail::resize(int width, int height) {
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  make_buffer(splat_depths_, pixels * sizeof(GLuint));
  make_buffer(splat_ids_, pixels * sizeof(GLuint));
  fill_with_none(splat_depths_);
  fill_with_none(splat_ids_);
}

void LevelOfDetail::begin_frame() {
  // The frame that ends here has issued all its work: its counts are copied aside, on the GPU,
  // and a fence says when the copy is done; then the counts start again.
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glCopyNamedBufferSubData(frame_counts_, counts_read_, 0, 0, kCountWords * sizeof(GLuint));
  glDeleteSync(previous_copied_);
  previous_copied_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  previous_.reset();
  clear_counts(frame_counts_);
}

void LevelOfDetail::reserve(std::size_t count) {
  if (count <= capacity_) return;
  const std::size_t records = std::max(count, capacity_ + capacity_ / 2);
  make_buffer(lists_, 2 * records * sizeof(GLuint));
  make_buffer(splats_, 2 * records * sizeof(GLuint));
  capacity_ = records;
}

void LevelOfDetail::draw(GLuint instances, std::size_t count, GLuint vertex_array,
                         GLsizei index_count, const ImpostorShape& shape, const FrameView& view) {
  if (count == 0) return;
  reserve(count);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kInstancesBinding, instances);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kListsBinding, lists_);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCommandsBinding, commands_);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSplatDepthsBinding, splat_depths_);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSplatsBinding, splats_);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kFrameCountsBinding, frame_counts_);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSplatIdsBinding, splat_ids_);
  sort_instances(count, index_count, view);

  // Every pixel of the splats' rectangle must run, to empty its buffers: no scissor.
  glDisable(GL_SCISSOR_TEST);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glBindBuffer(GL_DRAW_INDIRECT_BUFFER, commands_);
  draw_meshes(vertex_array, view);
  draw_impostors(shape, view);
  draw_splats(count, view);
  glBindVertexArray(0);
  glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
}

void LevelOfDetail::sort_instances(std::size_t count, GLsizei index_count, const FrameView& view) {
  // The last batch's rectangle has emptied the splat buffers; the commands start afresh.
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  glProgramUniform1ui(reset_.handle(), location(reset_, "index_count"),
                      static_cast<GLuint>(index_count));
  glUseProgram(reset_.handle());
  glDispatchCompute(1, 1, 1);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);

  const GLuint classify = classify_.handle();
  glProgramUniform1ui(classify, location(classify_, "instance_count"), static_cast<GLuint>(count));
  glProgramUniform1ui(classify, location(classify_, "list_capacity"),
                      static_cast<GLuint>(capacity_));
  set_matrix(classify_, "view", view.view);
  set_matrix(classify_, "view_projection", view.view_projection);
  glProgramUniform4fv(classify, location(classify_, "planes"), 6, view.planes[0].data());
  set_image_size(classify_, view);
  glProgramUniform1f(classify, location(classify_, "pixels_per_unit"), view.pixels_per_unit);
  glProgramUniform1f(classify, location(classify_, "near_plane"), view.near_plane);
  glProgramUniform1f(classify, location(classify_, "far_plane"), view.far_plane);
  glProgramUniform1f(classify, location(classify_, "mesh_pixels"), mesh_pixels_);
  glProgramUniform1f(classify, location(classify_, "splat_pixels"), splat_pixels_);
  glProgramUniform1f(classify, location(classify_, "largest_point"), largest_point_);
  glUseProgram(classify);
  dispatch_over(count);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
}

void LevelOfDetail::draw_meshes(GLuint vertex_array, const FrameView& view) {
  set_matrix(meshes_, "view_projection", view.view_projection);
  set_vector(meshes_, "light_direction", view.light);
  glUseProgram(meshes_.handle());
  glBindVertexArray(vertex_array);
  glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, at_word(kMeshCommand));
}

void LevelOfDetail::draw_impostors(const ImpostorShape& shape, const FrameView& view) {
  const GLuint impostors = impostors_.handle();
  glProgramUniform1ui(impostors, location(impostors_, "list_capacity"),
                      static_cast<GLuint>(capacity_));
  set_matrix(impostors_, "view_projection", view.view_projection);
  set_vector(impostors_, "eye", view.eye);
  set_vector(impostors_, "ray_at_origin", view.ray_at_origin);
  set_vector(impostors_, "ray_step_x", view.ray_step_x);
  set_vector(impostors_, "ray_step_y", view.ray_step_y);
  glProgramUniform2f(impostors, location(impostors_, "depth_of_t"), view.depth_of_t[0],
                     view.depth_of_t[1]);
  set_vector(impostors_, "light_direction", view.light);
  set_image_size(impostors_, view);
  const std::size_t boxes = std::min(shape.boxes.size(), kMostImpostorBoxes);
  std::array<float, 3 * kMostImpostorBoxes> low{};
  std::array<float, 3 * kMostImpostorBoxes> high{};
  for (std::size_t k = 0; k < boxes; ++k) {
    std::copy_n(shape.boxes[k].low.begin(), 3, low.begin() + static_cast<std::ptrdiff_t>(3 * k));
    std::copy_n(shape.boxes[k].high.begin(), 3, high.begin() + static_cast<std::ptrdiff_t>(3 * k));
  }
  glProgramUniform1i(impostors, location(impostors_, "box_count"), static_cast<GLint>(boxes));
  glProgramUniform3fv(impostors, location(impostors_, "box_low"), GLsizei{kMostImpostorBoxes},
                      low.data());
  glProgramUniform3fv(impostors, location(impostors_, "box_high"), GLsizei{kMostImpostorBoxes},
                      high.data());
  glProgramUniform1i(impostors, location(impostors_, "sphere"), shape.sphere ? 1 : 0);
  glUseProgram(impostors);
  glBindVertexArray(empty_array_);
  glEnable(GL_PROGRAM_POINT_SIZE);
  glDrawArraysIndirect(GL_POINTS, at_word(kImpostorCommand));
  glDisable(GL_PROGRAM_POINT_SIZE);
}

void LevelOfDetail::draw_splats(std::size_t count, const FrameView& view) {
  const GLuint resolve = resolve_.handle();
  glProgramUniform1ui(resolve, location(resolve_, "instance_count"), static_cast<GLuint>(count));
  glUseProgram(resolve);
  dispatch_over(count);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);

  const GLuint composite = composite_.handle();
  set_image_size(composite_, view);
  glProgramUniform1ui(composite, location(composite_, "image_width"),
                      static_cast<GLuint>(view.width));
  set_vector(composite_, "eye", view.eye);
  set_vector(composite_, "light_direction", view.light);
  glUseProgram(composite);
  glBindVertexArray(empty_array_);
  glDrawArraysIndirect(GL_TRIANGLE_STRIP, at_word(kCompositeCommand));
}

bool LevelOfDetail::holds(std::size_t count) const noexcept {
  return count <= most_instances_;
}

DrawCounts LevelOfDetail::frame_counts() const {
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  return read_counts(frame_counts_);
}

std::optional<DrawCounts> LevelOfDetail::previous_frame_counts() {
  if (!previous_ && previous_copied_ != nullptr) {
    const GLenum copied = glClientWaitSync(previous_copied_, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
    if (copied == GL_ALREADY_SIGNALED || copied == GL_CONDITION_SATISFIED) {
      previous_ = read_counts(counts_read_);
    }
  }
  return previous_;
}

}  // namespace rsw::render::detail
