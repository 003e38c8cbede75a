# What the renderer (RSW_BUILD_RENDER=ON) builds on, all from Debian's packages as installed by
# scripts/setup. A missing one stops the configure with the package to install, rather than
# failing later in the middle of a build. The GPU machine has none of these: it configures with
# -DRSW_BUILD_RENDER=OFF.
find_package(PkgConfig QUIET)

function(rsw_require_render_dependency found what debian_package)
  if(NOT ${found})
    message(FATAL_ERROR
      "RSW_BUILD_RENDER=ON needs ${what} (Debian package ${debian_package}). "
      "Run scripts/setup, or configure with -DRSW_BUILD_RENDER=OFF.")
  endif()
endfunction()

rsw_require_render_dependency(PKG_CONFIG_FOUND "pkg-config" pkg-config)

find_package(glfw3 3.3 QUIET)
rsw_require_render_dependency(glfw3_FOUND "GLFW 3.3" libglfw3-dev)

find_package(glm QUIET)
rsw_require_render_dependency(glm_FOUND "GLM" libglm-dev)

pkg_check_modules(RSW_IMGUI QUIET IMPORTED_TARGET imgui)
rsw_require_render_dependency(RSW_IMGUI_FOUND "Dear ImGui" libimgui-dev)
# Debian's libimgui.a carries the GLFW and OpenGL 3 backends; their headers sit apart.
find_path(RSW_IMGUI_BACKENDS_DIR imgui_impl_glfw.h
  PATHS ${RSW_IMGUI_INCLUDE_DIRS} PATH_SUFFIXES backends NO_DEFAULT_PATH)
rsw_require_render_dependency(RSW_IMGUI_BACKENDS_DIR "Dear ImGui's GLFW and OpenGL 3 backends"
  libimgui-dev)

pkg_check_modules(RSW_STB QUIET IMPORTED_TARGET stb)
rsw_require_render_dependency(RSW_STB_FOUND "stb" libstb-dev)

# GLAD 2 generates the GL 4.5 core and EGL loaders at build time, offline (--reproducible).
find_program(RSW_GLAD_EXECUTABLE glad)
rsw_require_render_dependency(RSW_GLAD_EXECUTABLE "the glad 2 generator" python3-glad)
