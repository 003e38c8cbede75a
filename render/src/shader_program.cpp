#include "shader_program.hpp"

#include <string>

#include "rsw/engine/error.hpp"

namespace rsw::render::detail {
namespace {

GLuint compile(GLenum stage, std::string_view source, const char* stage_name) {
  const GLuint shader = glCreateShader(stage);
  const char* text = source.data();
  const auto length = static_cast<GLint>(source.size());
  glShaderSource(shader, 1, &text, &length);
  glCompileShader(shader);
  GLint compiled = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &compiled);
  if (compiled == GL_TRUE) return shader;
  GLint log_length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &log_length);
  std::string log(static_cast<std::size_t>(log_length > 0 ? log_length : 1), '\0');
  glGetShaderInfoLog(shader, log_length, nullptr, log.data());
  glDeleteShader(shader);
  throw Error(ErrorKind::InvalidArgument,
              std::string("compiling the ") + stage_name + " shader: " + log.c_str());
}

}  // namespace

ShaderProgram::ShaderProgram(std::string_view vertex_source, std::string_view fragment_source) {
  const GLuint vertex = compile(GL_VERTEX_SHADER, vertex_source, "vertex");
  GLuint fragment = 0;
  try {
    fragment = compile(GL_FRAGMENT_SHADER, fragment_source, "fragment");
  } catch (...) {
    glDeleteShader(vertex);
    throw;
  }
  link({vertex, fragment});
}

ShaderProgram::ShaderProgram(std::string_view compute_source) {
  link({compile(GL_COMPUTE_SHADER, compute_source, "compute")});
}

void ShaderProgram::link(std::initializer_list<GLuint> shaders) {
  program_ = glCreateProgram();
  for (const GLuint shader : shaders)
    glAttachShader(program_, shader);
  glLinkProgram(program_);
  for (const GLuint shader : shaders)
    glDeleteShader(shader);  // flagged; freed with the program
  GLint linked = GL_FALSE;
  glGetProgramiv(program_, GL_LINK_STATUS, &linked);
  if (linked == GL_TRUE) return;
  GLint log_length = 0;
  glGetProgramiv(program_, GL_INFO_LOG_LENGTH, &log_length);
  std::string log(static_cast<std::size_t>(log_length > 0 ? log_length : 1), '\0');
  glGetProgramInfoLog(program_, log_length, nullptr, log.data());
  glDeleteProgram(program_);
  throw Error(ErrorKind::InvalidArgument, std::string("linking a shader program: ") + log.c_str());
}

ShaderProgram::~ShaderProgram() {
  glDeleteProgram(program_);
}

GLint ShaderProgram::uniform(const char* name) const {
  const GLint location = glGetUniformLocation(program_, name);
  if (location < 0) {
    throw Error(ErrorKind::InvalidArgument, std::string("shader program has no uniform ") + name);
  }
  return location;
}

}  // namespace rsw::render::detail
