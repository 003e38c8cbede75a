// rsw::render::HeadlessContext: an OpenGL 4.5 core context with no window, through EGL.
//
// On an NVIDIA machine it uses the EGL device (EGL_EXT_platform_device) that is the same GPU
// as the CUDA device asked for: EGL numbers devices in its own order, so the match is made
// through EGL_NV_device_cuda, not by position. Elsewhere (Mesa, llvmpipe on a machine without
// a GPU) it uses the surfaceless platform. libEGL is opened at run time: without it, or
// without a display that gives OpenGL 4.5 core, construction throws rsw::Error
// (DeviceUnavailable) saying why.
#pragma once

#include <memory>
#include <string>

#include "rsw/engine/api.hpp"

namespace rsw::render {

/// Setup of a HeadlessContext.
struct HeadlessContextOptions {
  /// The CUDA device whose GPU should render, when EGL can name it; -1: any EGL display.
  int cuda_device = 0;
};

/// Which EGL platform a HeadlessContext runs on.
enum class EglPlatform {
  Device,       ///< EGL_EXT_platform_device: a GPU, chosen to match the CUDA device
  Surfaceless,  ///< EGL_MESA_platform_surfaceless: Mesa (llvmpipe without a GPU)
};

/// An EGL display and an OpenGL 4.5 core context, current on the creating thread. Drawing
/// goes to framebuffer objects (there is no default framebuffer). Move-only.
class RSW_API HeadlessContext {
 public:
  /// Opens libEGL, picks the display and makes the context current; throws rsw::Error
  /// (DeviceUnavailable) when there is none that gives OpenGL 4.5 core.
  explicit HeadlessContext(HeadlessContextOptions options = {});
  ~HeadlessContext();
  /// Moves: the moved-from context may only be destroyed or assigned to.
  ///@{
  HeadlessContext(HeadlessContext&&) noexcept;
  HeadlessContext& operator=(HeadlessContext&&) noexcept;
  ///@}
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;

  /// Makes this context current on the calling thread.
  void make_current();
  /// Ends a frame of a loop, as a window's buffer swap does: the calling thread runs at most
  /// kFramesInFlight frames ahead of the GL work, waiting for an older frame to finish beyond
  /// that. A headless loop that never waits queues frames without bound, and the driver's
  /// memory grows with them (llvmpipe: about 15 MB a frame of 20,000 boxes). Throws
  /// rsw::Error (DeviceUnavailable) when the wait fails.
  void end_frame();

  /// Frames a loop that calls end_frame() may run ahead of the GL work.
  static constexpr int kFramesInFlight = 2;
  /// The platform the display came from.
  EglPlatform platform() const noexcept;
  /// "EGL 1.5 (surfaceless), OpenGL 4.5 (Core Profile) Mesa 22.3.6, llvmpipe (LLVM 15.0.6,
  /// 256 bits)": one line for logs and --info.
  const std::string& description() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rsw::render
