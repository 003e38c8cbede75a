// The EGL side of HeadlessContext: load libEGL through GLAD, pick a display (the EGL device of
// our CUDA GPU, else Mesa's surfaceless platform), create an OpenGL 4.5 core context, make it
// current with no surface, and load the GL functions.
#include "rsw/render/headless_context.hpp"

#include <glad/egl.h>
#include <glad/gl.h>

#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "rsw/engine/error.hpp"

namespace rsw::render {
namespace {

// Not in GLAD's headers: EGL_NV_device_cuda's attribute and the Mesa surfaceless platform.
constexpr EGLint kCudaDeviceAttribute = 0x323A;   // EGL_CUDA_DEVICE_NV
constexpr EGLenum kPlatformSurfaceless = 0x31DD;  // EGL_PLATFORM_SURFACELESS_MESA

[[noreturn]] void unavailable(const std::string& why) {
  throw Error(ErrorKind::DeviceUnavailable, "no headless OpenGL 4.5 context: " + why);
}

std::string egl_error_text(EGLint error) {
  char text[32];
  std::snprintf(text, sizeof(text), "EGL error 0x%04X", static_cast<unsigned>(error));
  return text;
}

// The EGL device that is CUDA device `cuda_device`, or EGL_NO_DISPLAY.
EGLDisplay device_display(int cuda_device) {
  // NVIDIA's libEGL names EGL_EXT_device_base, which is enumeration and query together.
  const bool enumeration = GLAD_EGL_EXT_device_enumeration || GLAD_EGL_EXT_device_base;
  const bool query = GLAD_EGL_EXT_device_query || GLAD_EGL_EXT_device_base;
  if (!enumeration || !query || !GLAD_EGL_EXT_platform_device) return EGL_NO_DISPLAY;
  EGLint count = 0;
  if (!eglQueryDevicesEXT(0, nullptr, &count) || count <= 0) return EGL_NO_DISPLAY;
  std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count));
  eglQueryDevicesEXT(count, devices.data(), &count);
  for (EGLDeviceEXT device : devices) {
    const char* extensions = eglQueryDeviceStringEXT(device, EGL_EXTENSIONS);
    if (extensions == nullptr ||
        std::string(extensions).find("EGL_NV_device_cuda") == std::string::npos) {
      continue;
    }
    EGLAttrib ordinal = -1;
    if (!eglQueryDeviceAttribEXT(device, kCudaDeviceAttribute, &ordinal)) continue;
    if (cuda_device < 0 || ordinal == cuda_device) {
      return eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
    }
  }
  return EGL_NO_DISPLAY;
}

}  // namespace

struct HeadlessContext::Impl {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EglPlatform platform = EglPlatform::Surfaceless;
  std::string description;
  std::deque<GLsync> frames_in_flight;  // a fence after each frame end_frame() closed

  ~Impl() {
    if (display == EGL_NO_DISPLAY) return;
    if (!frames_in_flight.empty() &&
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
      for (GLsync fence : frames_in_flight)
        glDeleteSync(fence);
    }
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
    eglTerminate(display);
  }
};

HeadlessContext::HeadlessContext(HeadlessContextOptions options) : impl_(std::make_unique<Impl>()) {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) unavailable("libEGL.so.1 could not be loaded");
  if (!GLAD_EGL_EXT_platform_base) unavailable("EGL lacks EGL_EXT_platform_base");

  Impl& state = *impl_;
  state.display = device_display(options.cuda_device);
  state.platform = EglPlatform::Device;
  if (state.display == EGL_NO_DISPLAY && GLAD_EGL_MESA_platform_surfaceless) {
    state.display = eglGetPlatformDisplayEXT(kPlatformSurfaceless, EGL_DEFAULT_DISPLAY, nullptr);
    state.platform = EglPlatform::Surfaceless;
  }
  if (state.display == EGL_NO_DISPLAY) {
    unavailable("EGL offers neither a device matching CUDA device " +
                std::to_string(options.cuda_device) + " nor the surfaceless platform");
  }
  EGLint major = 0;
  EGLint minor = 0;
  if (!eglInitialize(state.display, &major, &minor)) {
    const EGLint error = eglGetError();
    state.display = EGL_NO_DISPLAY;  // nothing to terminate
    unavailable("eglInitialize failed (" + egl_error_text(error) + ")");
  }
  gladLoaderLoadEGL(state.display);  // the display's own version and extensions
  if (!GLAD_EGL_KHR_surfaceless_context) unavailable("EGL lacks EGL_KHR_surfaceless_context");

  // Any config that renders OpenGL; with none (the default surface type is a window, which
  // a headless display may not offer), no config at all where EGL allows it.
  const EGLint config_attributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                      EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = EGL_NO_CONFIG_KHR;
  EGLint configs = 0;
  if (!eglChooseConfig(state.display, config_attributes, &config, 1, &configs) || configs < 1) {
    if (!GLAD_EGL_KHR_no_config_context) unavailable("no EGL config renders OpenGL");
    config = EGL_NO_CONFIG_KHR;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) unavailable("eglBindAPI(EGL_OPENGL_API) failed");
  const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                       4,
                                       EGL_CONTEXT_MINOR_VERSION,
                                       5,
                                       EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                       EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                       EGL_NONE};
  state.context = eglCreateContext(state.display, config, EGL_NO_CONTEXT, context_attributes);
  if (state.context == EGL_NO_CONTEXT) {
    unavailable("eglCreateContext for OpenGL 4.5 core failed (" + egl_error_text(eglGetError()) +
                ")");
  }
  make_current();
  const int gl_version = gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress));
  if (GLAD_VERSION_MAJOR(gl_version) * 10 + GLAD_VERSION_MINOR(gl_version) < 45) {
    unavailable("the context gives OpenGL " + std::to_string(GLAD_VERSION_MAJOR(gl_version)) + "." +
                std::to_string(GLAD_VERSION_MINOR(gl_version)));
  }
  const auto text = [](GLenum name) {
    const auto* value = reinterpret_cast<const char*>(glGetString(name));
    return std::string(value != nullptr ? value : "?");
  };
  state.description = "EGL " + std::to_string(major) + "." + std::to_string(minor) +
                      (state.platform == EglPlatform::Device ? " (device)" : " (surfaceless)") +
                      ", OpenGL " + text(GL_VERSION) + ", " + text(GL_RENDERER);
}

HeadlessContext::~HeadlessContext() = default;
HeadlessContext::HeadlessContext(HeadlessContext&&) noexcept = default;
HeadlessContext& HeadlessContext::operator=(HeadlessContext&&) noexcept = default;

void HeadlessContext::make_current() {
  if (!eglMakeCurrent(impl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, impl_->context)) {
    unavailable("eglMakeCurrent failed (" + egl_error_text(eglGetError()) + ")");
  }
}

void HeadlessContext::end_frame() {
  std::deque<GLsync>& fences = impl_->frames_in_flight;
  fences.push_back(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
  while (fences.size() > static_cast<std::size_t>(kFramesInFlight)) {
    // A frame that takes a minute is a driver that stopped: an error, not a hang.
    constexpr GLuint64 kOneSecond = 1'000'000'000;
    constexpr int kMostSeconds = 60;
    GLenum status = GL_TIMEOUT_EXPIRED;
    for (int second = 0; second < kMostSeconds && status == GL_TIMEOUT_EXPIRED; ++second)
      status = glClientWaitSync(fences.front(), GL_SYNC_FLUSH_COMMANDS_BIT, kOneSecond);
    glDeleteSync(fences.front());
    fences.pop_front();
    if (status == GL_WAIT_FAILED) unavailable("waiting for an earlier frame's GL work failed");
    if (status == GL_TIMEOUT_EXPIRED) {
      unavailable("an earlier frame's GL work has not finished in " +
                  std::to_string(kMostSeconds) + " s");
    }
  }
}

EglPlatform HeadlessContext::platform() const noexcept {
  return impl_->platform;
}

const std::string& HeadlessContext::description() const noexcept {
  return impl_->description;
}

}  // namespace rsw::render
