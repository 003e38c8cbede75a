// radixsweep-bench: one subcommand per benchmark; each prints a table and, with --json FILE,
// writes its rows together with the machine they were measured on.
//
//   radixsweep-bench copy --bytes 64M,1G --algo host,cuda --reps 20 --json copy.json
//   radixsweep-bench sort --n 16M --dist uniform,sorted --algo onesweep,cub --mode keys,pairs
//   radixsweep-bench broadphase --n 100K,1M --scene uniform --backend cpu,cuda
//   radixsweep-bench broadphase --boxes my_boxes.csv --pairs-out pairs.csv
//   radixsweep-bench render --n 1M --path upload,interop
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench_report.hpp"
#include "broadphase_bench.hpp"
#include "copy_bench.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"
#include "sort_bench.hpp"
#if RSW_BENCH_RENDER
#include "render_bench.hpp"
#endif

namespace {

std::vector<std::size_t> parse_sizes(const std::vector<std::string>& texts) {
  std::vector<std::size_t> sizes;
  for (const std::string& text : texts)
    sizes.push_back(rsw::bench::parse_size(text));
  return sizes;
}

void print_machine() {
  const rsw::CudaRuntimeInfo& cuda = rsw::cuda_runtime_info();
  if (cuda.available()) {
    std::printf("device: %s\n", rsw::describe(cuda.devices.front()).c_str());
  } else {
    std::printf("device: none (%s)\n", cuda.unavailable_reason.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("radixsweep-bench: RadixSweep benchmarks (table on stdout, rows as JSON)",
               "radixsweep-bench");
  app.require_subcommand(1);
  std::string json_path;
  app.add_option("--json", json_path, "Also write the rows, with the machine, to this file");

  const bool has_device = rsw::cuda_runtime_info().available();
  CLI::App* copy = app.add_subcommand("copy", "Memory bandwidth: std::memcpy and device copies");
  copy->fallthrough();  // --json may follow the subcommand
  std::vector<std::string> copy_sizes = {"64M", "1G"};
  std::vector<std::string> copy_algos = {"host"};
  if (has_device) copy_algos.push_back("cuda");
  rsw::bench::CopyBenchOptions copy_options;
  copy->add_option("--bytes", copy_sizes, "Bytes per copy (64K, 256M, 1G; comma list)")
      ->delimiter(',')
      ->capture_default_str();
  copy->add_option("--algo", copy_algos, "host, cuda (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"host", "cuda"}))
      ->capture_default_str();
  copy->add_option("--reps", copy_options.repetitions, "Timed repetitions per row")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  copy->add_option("--warmup", copy_options.warmup, "Untimed runs before them")
      ->capture_default_str();

  CLI::App* sort = app.add_subcommand("sort", "Radix sorts beside std::sort, CUB and Thrust");
  sort->fallthrough();
  std::vector<std::string> sort_sizes = {"1M", "16M"};
  std::vector<std::string> sort_algos = {"cpu", "std"};
  if (has_device) sort_algos = {"cpu", "std", "fourway", "onesweep", "cub", "thrust"};
  rsw::bench::SortBenchOptions sort_options{.distributions = {"uniform"}, .modes = {"keys"}};
  sort->add_option("--n", sort_sizes, "Keys per sort (65536, 64K, 16M; comma list)")
      ->delimiter(',')
      ->capture_default_str();
  sort->add_option("--dist", sort_options.distributions,
                   "uniform, narrow8, narrow16, allequal, sorted, reversed, nearlysorted, "
                   "fewunique, gaussianfloats, specialfloats (comma list)")
      ->delimiter(',')
      ->capture_default_str();
  sort->add_option(
          "--algo", sort_algos,
          "cpu, std, fourway, onesweep, onesweep-nearly (with SortOptions::nearly_sorted), cub, "
          "thrust (comma list)")
      ->delimiter(',')
      ->check(
          CLI::IsMember({"cpu", "std", "fourway", "onesweep", "onesweep-nearly", "cub", "thrust"}))
      ->capture_default_str();
  sort->add_option("--mode", sort_options.modes, "keys, pairs (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"keys", "pairs"}))
      ->capture_default_str();
  sort->add_option("--reps", sort_options.repetitions, "Timed repetitions of GPU sorts")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sort->add_option("--host-reps", sort_options.host_repetitions, "Timed repetitions of host sorts")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sort->add_option("--warmup", sort_options.warmup, "Untimed runs before them")
      ->capture_default_str();
  sort->add_flag("--cold-l2", sort_options.cold_l2,
                 "Evict the input from L2 before each timed GPU sort (default: the input is "
                 "in L2 as its copy into place left it)");
  sort->add_option("--cpu-threads", sort_options.cpu_threads,
                   "Threads of the cpu sort (0: all hardware threads)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();

  CLI::App* broadphase =
      app.add_subcommand("broadphase", "Sweep-and-prune frames: per-stage times and counts");
  broadphase->fallthrough();
  std::vector<std::string> broadphase_sizes = {"100K"};
  rsw::bench::BroadPhaseBenchOptions broadphase_options{
      .scenes = {"uniform"}, .backends = {"cpu"}, .modes = {"cells"}};
  if (has_device) broadphase_options.backends = {"cpu", "cuda"};
  broadphase->add_option("--n", broadphase_sizes, "Boxes (100K, 1M; comma list)")
      ->delimiter(',')
      ->capture_default_str();
  broadphase
      ->add_option("--scene", broadphase_options.scenes,
                   "uniform, clustered, mixed, giantbox, touchinggrid, degenerate, hotspots")
      ->delimiter(',')
      ->capture_default_str();
  broadphase->add_option("--backend", broadphase_options.backends, "cpu, cuda (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cpu", "cuda", "gpu"}))
      ->capture_default_str();
  broadphase
      ->add_option("--mode", broadphase_options.modes,
                   "cells (sweep inside y-z grid cells), xsweep (the paper's single sweep)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cells", "xsweep"}))
      ->capture_default_str();
  broadphase
      ->add_option("--input", broadphase_options.inputs,
                   "host (boxes from host memory, pairs back to it), device (device arrays in, "
                   "device pairs out: the GPU-resident frame)")
      ->delimiter(',')
      ->check(CLI::IsMember({"host", "device"}))
      ->capture_default_str();
  broadphase
      ->add_option("--boxes", broadphase_options.boxes_file,
                   "CSV of boxes (min_x,min_y,min_z,max_x,max_y,max_z per line) instead "
                   "of a scene")
      ->check(CLI::ExistingFile);
  broadphase->add_option("--pairs-out", broadphase_options.pairs_file,
                         "Write the pairs (a,b per line) of the first backend's last frame");
  broadphase
      ->add_option("--pairs-per-box", broadphase_options.pairs_per_box,
                   "Density of generated scenes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  broadphase
      ->add_option("--motion", broadphase_options.motion,
                   "Jitter per frame in box sizes (0: still boxes)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  broadphase->add_option("--frames", broadphase_options.frames, "Timed frames")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  broadphase->add_option("--warmup", broadphase_options.warmup, "Untimed frames before them")
      ->capture_default_str();
  broadphase
      ->add_option("--stage-times", broadphase_options.stage_times,
                   "on, off (comma list): time each stage, or only the frame (a row '-untimed')")
      ->delimiter(',')
      ->capture_default_str();

#if RSW_BENCH_RENDER
  CLI::App* render = app.add_subcommand(
      "render", "Headless frames of instanced boxes: host upload vs CUDA-GL interop");
  render->fallthrough();
  std::vector<std::string> render_sizes = {"100K", "1M"};
  rsw::bench::RenderBenchOptions render_options{.paths = {"upload"}};
  if (has_device) render_options.paths = {"upload", "interop"};
  render->add_option("--n", render_sizes, "Instances per frame (100K, 1M; comma list)")
      ->delimiter(',')
      ->capture_default_str();
  render
      ->add_option("--path", render_options.paths,
                   "upload (host writes, uploads each frame), interop (a kernel writes the GL "
                   "buffer)")
      ->delimiter(',')
      ->check(CLI::IsMember({"upload", "interop"}))
      ->capture_default_str();
  render->add_option("--width", render_options.width, "Image width")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  render->add_option("--height", render_options.height, "Image height")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  render->add_option("--frames", render_options.frames, "Timed frames")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  render->add_option("--warmup", render_options.warmup, "Untimed frames before them")
      ->capture_default_str();
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error, std::cout, std::cerr) == 0 ? 0 : 2;
  }

  try {
    rsw::bench::Report report;
    print_machine();
    if (copy->parsed()) {
      copy_options.sizes = parse_sizes(copy_sizes);
      copy_options.algos = copy_algos;
      run_copy_bench(copy_options, report);
    }
    if (sort->parsed()) {
      sort_options.sizes = parse_sizes(sort_sizes);
      sort_options.algos = sort_algos;
      run_sort_bench(sort_options, report);
    }
    if (broadphase->parsed()) {
      broadphase_options.sizes = parse_sizes(broadphase_sizes);
      run_broadphase_bench(broadphase_options, report);
    }
#if RSW_BENCH_RENDER
    if (render->parsed()) {
      render_options.sizes = parse_sizes(render_sizes);
      run_render_bench(render_options, report);
    }
#endif
    report.print_table();
    if (!json_path.empty()) report.write_json(json_path);
    return 0;
  } catch (const rsw::Error& error) {
    std::cerr << "radixsweep-bench: " << error.what() << '\n';
    return error.kind() == rsw::ErrorKind::InvalidArgument ? 2 : 1;
  }
}
