// CUDA-GL interop: instances written by a kernel into the mapped GL buffer must draw exactly
// as the same instances uploaded from the host. Needs a CUDA device and an EGL context on it
// (labels gpu and gl); skipped, saying why, elsewhere.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/render/headless_context.hpp"
#include "rsw/render/renderer.hpp"
#include "test_instances.hpp"

namespace {

using rsw::render::OrbitCamera;
using rsw::render::Renderer;
namespace testing_instances = rsw::render::testing;

const OrbitCamera kFront{.target = {0, 0, 0}, .distance = 10, .yaw_degrees = 0, .pitch_degrees = 0};

class RendererInterop : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    const rsw::CudaRuntimeInfo& cuda = rsw::cuda_runtime_info();
    if (!cuda.available()) {
      skip_reason_ = "no CUDA device: " + cuda.unavailable_reason;
      return;
    }
    try {
      context_ = std::make_unique<rsw::render::HeadlessContext>();
      std::printf("context: %s\n", context_->description().c_str());
    } catch (const rsw::Error& error) {
      skip_reason_ = error.what();
    }
  }
  static void TearDownTestSuite() { context_.reset(); }
  void SetUp() override {
    if (!context_) GTEST_SKIP() << skip_reason_;
    context_->make_current();
  }

  static inline std::unique_ptr<rsw::render::HeadlessContext> context_;
  static inline std::string skip_reason_;
};

TEST_F(RendererInterop, KernelWrittenInstancesDrawAsUploadedOnes) {
  Renderer renderer({.width = 96, .height = 64});
  rsw::Stream stream;
  for (const std::size_t count : {2u, 1000u, 20011u, 3u}) {  // grows, then shrinks
    const rsw::DeviceSpan<rsw::render::BoxInstance> mapped =
        renderer.map_instances(count, stream.handle());
    ASSERT_EQ(mapped.size, count);
    testing_instances::write_instances(mapped.data, count, stream.handle());
    renderer.draw_mapped(kFront);
    const std::vector<std::uint8_t> from_kernel = renderer.read_rgba();

    renderer.draw_boxes(testing_instances::host_instances(count), kFront);
    const std::vector<std::uint8_t> from_host = renderer.read_rgba();
    EXPECT_EQ(from_kernel, from_host) << count << " instances";
    // The red box at x = -2 is 15 pixels left of the centre.
    const std::size_t left = (32u * 96u + 48u - 15u) * 4u;
    EXPECT_GT(from_kernel[left], 100) << count << " instances";
  }
}

TEST_F(RendererInterop, DrawMappedNeedsAMapping) {
  Renderer renderer({.width = 8, .height = 8});
  EXPECT_THROW(renderer.draw_mapped(kFront), rsw::Error);
  renderer.map_instances(0);
  renderer.draw_mapped(kFront);                            // no instances: the background
  EXPECT_THROW(renderer.draw_mapped(kFront), rsw::Error);  // already handed back
}

}  // namespace
