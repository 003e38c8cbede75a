// A frame loop timed with rsw::StageProfiler, on the GPU when there is one and on the CPU
// otherwise: the pattern every RadixSweep scene uses. Prints the per-stage summary and writes
// the history as JSON.
//
//   example-frame-timing [stats.json]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <numeric>
#include <vector>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/device_buffer.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/profiler.hpp"

int main(int argc, char** argv) {
  try {
    const rsw::Backend backend = rsw::resolve_backend(rsw::Backend::Auto);
    std::printf("backend: %s\n", std::string(rsw::to_string(backend)).c_str());

    std::vector<std::uint32_t> positions(1 << 20);
    std::iota(positions.begin(), positions.end(), 0u);
    rsw::DeviceBuffer<std::uint32_t> on_device;
    rsw::DeviceBuffer<std::uint32_t> copy_on_device;

    rsw::StageProfiler profiler({.history_frames = 60});
    for (int frame = 0; frame < 60; ++frame) {
      {
        auto timer = profiler.time("integrate");  // host work: always the host clock
        for (auto& position : positions)
          position = position * 1664525u + 1013904223u;
      }
      if (backend == rsw::Backend::Cuda) {
        auto timer = profiler.time("upload + copy", backend);  // CUDA events, read back later
        on_device.upload(positions);
        copy_on_device.resize_discarding(on_device.size());
        rsw::copy(on_device.span(), copy_on_device.span());
      } else {
        auto timer = profiler.time("host copy", backend);
        std::vector<std::uint32_t> copy(positions);
        positions.swap(copy);
      }
      profiler.end_frame();
    }
    profiler.flush();

    for (const rsw::StageStats& stage : profiler.stats()) {
      std::printf("%-14s median %8.3f ms  min %8.3f  max %8.3f  (%zu frames, %s)\n",
                  stage.name.c_str(), stage.median_ms, stage.min_ms, stage.max_ms, stage.samples,
                  stage.clock == rsw::Backend::Cuda ? "CUDA events" : "host clock");
    }
    if (argc > 1) profiler.write_json(argv[1]);
    return 0;
  } catch (const rsw::Error& error) {
    std::fprintf(stderr, "example-frame-timing: %s\n", error.what());
    return 1;
  }
}
