// A linked GLSL program, owned: compile errors become rsw::Error with the driver's log.
#pragma once

#include <glad/gl.h>

#include <initializer_list>
#include <string_view>

namespace rsw::render::detail {

class ShaderProgram {
 public:
  /// Compiles and links a vertex and a fragment shader (GLSL 4.50 core); throws rsw::Error
  /// naming the stage and quoting the driver's log when either fails.
  ShaderProgram(std::string_view vertex_source, std::string_view fragment_source);
  /// Compiles and links a compute shader alone; throws like the constructor above.
  explicit ShaderProgram(std::string_view compute_source);
  ~ShaderProgram();
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;

  GLuint handle() const noexcept { return program_; }
  /// The location of a uniform; throws rsw::Error when the program has no such uniform.
  GLint uniform(const char* name) const;

 private:
  void link(std::initializer_list<GLuint> shaders);

  GLuint program_ = 0;
};

}  // namespace rsw::render::detail
