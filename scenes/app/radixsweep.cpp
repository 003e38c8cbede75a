// radixsweep: the demo executable. It reports the build and the device it runs on (--info);
// the scenes plug in here as they land.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>

#include "rsw/engine/backend.hpp"
#include "rsw/engine/build_info.hpp"
#include "rsw/engine/error.hpp"

namespace {

struct Options {
  std::string backend = "auto";
  int device = 0;
};

void print_row(std::string_view label, const std::string& value) {
  std::printf("%-14s%s\n", (std::string(label) + ":").c_str(), value.c_str());
}

void print_info(const Options& options) {
  namespace build = rsw::build_info;
  std::printf("RadixSweep %s\n", std::string(build::kVersion).c_str());
  print_row("build",
            std::string(build::kBuildType) + ", " + std::string(build::kCxxCompiler) + ", C++20");
  print_row("GPU code", build::kCuda ? std::string(build::kCudaCompiler) + ", architectures " +
                                           std::string(build::kCudaArchitectures)
                                     : "not built (" + std::string(build::kCudaCompiler) + ")");
  print_row("renderer", build::kRender ? "built" : "not built (RSW_BUILD_RENDER=OFF)");

  const rsw::CudaRuntimeInfo& cuda = rsw::cuda_runtime_info();
  if (cuda.built_with_cuda) {
    print_row("CUDA runtime",
              rsw::describe_cuda_version(cuda.runtime_version) + ", driver " +
                  (cuda.driver_version > 0 ? rsw::describe_cuda_version(cuda.driver_version)
                                           : std::string("none")));
  }
  if (cuda.available()) {
    for (const rsw::DeviceInfo& device : cuda.devices) {
      print_row("CUDA device", std::to_string(device.ordinal) + ": " + rsw::describe(device));
    }
  } else {
    print_row("CUDA device", "no CUDA device: CPU backend (" + cuda.unavailable_reason + ")");
  }

  const rsw::Backend requested = rsw::parse_backend(options.backend);
  const rsw::Backend backend = rsw::resolve_backend(requested);
  if (backend == rsw::Backend::Cuda) rsw::use_cuda_device(options.device);
  std::string chosen(rsw::to_string(backend));
  if (backend == rsw::Backend::Cuda) chosen += " on device " + std::to_string(options.device);
  print_row("backend", chosen + " (requested " + std::string(rsw::to_string(requested)) + ")");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("RadixSweep: GPU broad-phase collision detection (radix sort + sweep-and-prune)",
               "radixsweep");
  Options options;
  bool info = false;
  app.add_flag("--info", info, "Print version, build options and the CUDA device, then exit");
  app.add_option("--backend", options.backend, "Where to run: auto, cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu", "cuda"}, CLI::ignore_case))
      ->capture_default_str();
  app.add_option("--device", options.device, "CUDA device ordinal for the gpu backend")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.set_version_flag("--version", std::string(rsw::build_info::kVersion));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << "RadixSweep " << rsw::build_info::kVersion << '\n';
    return 0;
  } catch (const CLI::ParseError& error) {
    std::cerr << "radixsweep: " << error.what() << "\nRun 'radixsweep --help' for the flags.\n";
    return 2;
  }

  try {
    // --info is all there is to run until the scenes land, so it is also what no flag does.
    print_info(options);
    return 0;
  } catch (const rsw::Error& error) {
    std::cerr << "radixsweep: " << error.what() << '\n';
    return 1;
  }
}
