// CUDA-GL interop: instances and sprites written by a kernel into the mapped GL buffers must
// draw exactly as the same ones uploaded from the host. Needs a CUDA device and an EGL context on
// it (labels gpu and gl); skipped, saying why, elsewhere.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "headless_gl_fixture.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/stream.hpp"
#include "rsw/render/renderer.hpp"
#include "test_instances.hpp"

namespace {

using rsw::render::OrbitCamera;
using rsw::render::Renderer;
namespace testing_instances = rsw::render::testing;

const OrbitCamera kFront{.target = {0, 0, 0}, .distance = 10, .yaw_degrees = 0, .pitch_degrees = 0};

// Also needs a CUDA device: without one the suite opens no context, so every test skips.
class RendererInterop : public rsw::render::testing::HeadlessGlTest {
 protected:
  static void SetUpTestSuite() {
    const rsw::CudaRuntimeInfo& cuda = rsw::cuda_runtime_info();
    if (!cuda.available()) {
      skip_reason_ = "no CUDA device: " + cuda.unavailable_reason;
      return;
    }
    HeadlessGlTest::SetUpTestSuite();
  }
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

TEST_F(RendererInterop, KernelWrittenSpritesAndChairsDrawAsUploadedOnes) {
  Renderer renderer({.width = 96, .height = 64});
  rsw::Stream stream;
  for (const std::size_t count : {1u, 10007u, 5u}) {
    renderer.begin_frame(kFront);
    testing_instances::write_spheres(renderer.map_spheres(count, stream.handle()).data, count,
                                     stream.handle());
    renderer.draw_mapped_spheres();
    const auto chairs = renderer.map_instances(rsw::render::Shape::Chair, count, stream.handle());
    testing_instances::write_instances(chairs.data, count, stream.handle());
    renderer.draw_mapped(rsw::render::Shape::Chair);
    const std::vector<std::uint8_t> from_kernel = renderer.read_rgba();

    renderer.begin_frame(kFront);
    renderer.draw_spheres(testing_instances::host_spheres(count));
    renderer.draw_instances(rsw::render::Shape::Chair, testing_instances::host_instances(count));
    EXPECT_EQ(from_kernel, renderer.read_rgba()) << count << " sprites and chairs";
    EXPECT_GT(from_kernel[(32u * 96u + 48u - 15u) * 4u], 100) << "chair 0, red, at x = -2";
  }
  EXPECT_THROW(renderer.draw_mapped_spheres(), rsw::Error);  // handed back already
}

TEST_F(RendererInterop, DrawMappedNeedsAMapping) {
  Renderer renderer({.width = 8, .height = 8});
  EXPECT_THROW(renderer.draw_mapped(kFront), rsw::Error);
  renderer.map_instances(0);
  renderer.draw_mapped(kFront);                            // no instances: the background
  EXPECT_THROW(renderer.draw_mapped(kFront), rsw::Error);  // already handed back
}

}  // namespace
