// radixsweep-bench: one subcommand per benchmark; each prints a table and, with --json FILE,
// writes its rows together with the machine they were measured on.
//
//   radixsweep-bench copy --bytes 64M,1G --algo host,cuda --reps 20 --json copy.json
//   radixsweep-bench sort --n 16M --dist uniform,sorted --algo onesweep,cub --mode keys,pairs
//   radixsweep-bench broadphase --n 100K,1M --scene uniform --backend cpu,cuda
//   radixsweep-bench broadphase --boxes my_boxes.csv --pairs-out pairs.csv
//   radixsweep-bench worlds --worlds 8192,64 --boxes-per-world 16,4096
//   radixsweep-bench soak --n 1M --frames 10000 --cluster-every 100
//   radixsweep-bench render --n 1M --path upload,interop --draw meshes,detail
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_report.hpp"
#include "broadphase_bench.hpp"
#include "copy_bench.hpp"
#include "query_bench.hpp"
#include "rsw/cli/command_line.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/error.hpp"
#include "soak_bench.hpp"
#include "sort_bench.hpp"
#include "world_bench.hpp"
#include "worlds_bench.hpp"
#if RSW_BENCH_RENDER
#include "render_bench.hpp"
#endif

namespace {

// Limits of the count options: wide enough for any real run, narrow enough that a typo or a
// negative number (which CLI11 would wrap around) is refused.
constexpr std::size_t kMostRuns = 10'000'000;
constexpr std::size_t kMostBoxes = 0xFFFFFFFEu;            // the broad phase's 32-bit box indices
constexpr std::size_t kMostKeys = 0xFFFFFFFFu;             // 32-bit values index the keys
constexpr std::size_t kMostWorlds = std::size_t{1} << 24;  // ids up to kMaxWorld
constexpr std::size_t kMostCopyBytes = std::size_t{1} << 40;
#if RSW_BENCH_RENDER
constexpr std::size_t kMostInstances = std::size_t{1} << 28;
#endif

// The sizes of `flag` ("64K,1M"), each in [1, most]; `unit` names what is counted.
std::vector<std::size_t> parse_sizes(const std::vector<std::string>& texts, std::string_view flag,
                                     std::size_t most, std::string_view unit) {
  std::vector<std::size_t> sizes;
  for (const std::string& text : texts) {
    const std::size_t size = rsw::cli::parse_size(text);
    if (size == 0 || size > most) {
      throw rsw::Error(rsw::ErrorKind::InvalidArgument,
                       std::string(flag) + " " + text + ": " + std::to_string(size) + " " +
                           std::string(unit) + " is not in [1, " + std::to_string(most) + "]");
    }
    sizes.push_back(size);
  }
  return sizes;
}

CLI::Validator runs_range(std::size_t least) {
  return CLI::Range(least, kMostRuns);
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
      ->check(runs_range(1))
      ->capture_default_str();
  copy->add_option("--warmup", copy_options.warmup, "Untimed runs before them")
      ->check(runs_range(0))
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
      ->check(runs_range(1))
      ->capture_default_str();
  sort->add_option("--host-reps", sort_options.host_repetitions, "Timed repetitions of host sorts")
      ->check(runs_range(1))
      ->capture_default_str();
  sort->add_option("--warmup", sort_options.warmup, "Untimed runs before them")
      ->check(runs_range(0))
      ->capture_default_str();
  sort->add_flag("--cold-l2", sort_options.cold_l2,
                 "Evict the input from L2 before each timed GPU sort (default: the input is "
                 "in L2 as its copy into place left it)");
  sort->add_option("--cpu-threads", sort_options.cpu_threads,
                   "Threads of the cpu sort (0: all hardware threads)")
      ->check(CLI::Range(0, 1024))
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
  broadphase->add_option("--scene", broadphase_options.scenes, rsw::bench::scene_names())
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
      ->check(rsw::cli::finite_range(0.01, 1e6))
      ->capture_default_str();
  broadphase
      ->add_option("--motion", broadphase_options.motion,
                   "Jitter per frame in box sizes (0: still boxes)")
      ->check(rsw::cli::finite_range(0, 1e6))
      ->capture_default_str();
  broadphase->add_option("--frames", broadphase_options.frames, "Timed frames")
      ->check(runs_range(1))
      ->capture_default_str();
  broadphase->add_option("--warmup", broadphase_options.warmup, "Untimed frames before them")
      ->check(runs_range(0))
      ->capture_default_str();
  broadphase
      ->add_option("--check-sample", broadphase_options.check_sample,
                   "Check the last frame's pairs among this many boxes against the CPU backend "
                   "(0: none)")
      ->check(CLI::Range(std::size_t{0}, kMostBoxes));
  broadphase
      ->add_option("--stage-times", broadphase_options.stage_times,
                   "on, off (comma list): time each stage, or only the frame (a row '-untimed')")
      ->delimiter(',')
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();

  CLI::App* world = app.add_subcommand(
      "world", "World steps (move, step, events) beside BroadPhase frames of the same boxes");
  world->fallthrough();
  std::vector<std::string> world_sizes = {"100K"};
  rsw::bench::WorldBenchOptions world_options{.backends = {"cpu"}};
  if (has_device) world_options.backends = {"cuda"};
  world->add_option("--n", world_sizes, "Proxies (100K, 1M; comma list)")
      ->delimiter(',')
      ->capture_default_str();
  world
      ->add_option("--static", world_options.static_shares,
                   "Shares of the proxies that are static (0.9, 0; comma list)")
      ->delimiter(',')
      ->check(rsw::cli::finite_range(0, 1))
      ->capture_default_str();
  world->add_option("--backend", world_options.backends, "cpu, cuda (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  world->add_option("--pairs-per-box", world_options.pairs_per_box, "Density of the scene")
      ->check(rsw::cli::finite_range(0.01, 1e4))
      ->capture_default_str();
  world
      ->add_option("--motion", world_options.motion,
                   "Per-step jitter of the moving proxies, in box sizes")
      ->check(rsw::cli::finite_range(0, 100))
      ->capture_default_str();
  world->add_option("--frames", world_options.frames, "Timed steps")
      ->check(runs_range(1))
      ->capture_default_str();
  world->add_option("--warmup", world_options.warmup, "Untimed steps before them")
      ->check(runs_range(0))
      ->capture_default_str();
  std::string world_stage_times = "off";
  world->add_option("--stage-times", world_stage_times, "on, off: time each stage of a step")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();

  CLI::App* worlds = app.add_subcommand(
      "worlds",
      "Many independent worlds in one frame: BroadPhase with world ids beside the "
      "worlds apart in space and, on the GPU, an all-pairs kernel per world");
  worlds->fallthrough();
  std::vector<std::string> worlds_counts = {"1024"};
  std::vector<std::string> worlds_boxes = {"64"};
  rsw::bench::WorldsBenchOptions worlds_options{.backends = {"cpu"}};
  if (has_device) worlds_options.backends = {"cuda"};
  worlds->add_option("--worlds", worlds_counts, "Worlds (8192, 64; comma list)")
      ->delimiter(',')
      ->capture_default_str();
  worlds
      ->add_option("--boxes-per-world", worlds_boxes, "Boxes in each world (16, 4096; comma list)")
      ->delimiter(',')
      ->capture_default_str();
  worlds->add_option("--backend", worlds_options.backends, "cpu, cuda (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  worlds
      ->add_option("--pairs-per-box", worlds_options.pairs_per_box,
                   "Partners a box has in its world, about")
      ->check(rsw::cli::finite_range(0.01, 1e4))
      ->capture_default_str();
  worlds->add_option("--frames", worlds_options.frames, "Timed frames")
      ->check(runs_range(1))
      ->capture_default_str();
  worlds->add_option("--warmup", worlds_options.warmup, "Untimed frames before them")
      ->check(runs_range(0))
      ->capture_default_str();

  CLI::App* query = app.add_subcommand(
      "query",
      "World::query and World::raycast: batches of small regions and of rays against a world "
      "of proxies, beside a BroadPhase frame of its boxes");
  query->fallthrough();
  std::vector<std::string> query_sizes = {"100K"};
  std::vector<std::string> query_batches = {"100K"};
  std::vector<std::string> query_kinds = {"aabb"};
  rsw::bench::QueryBenchOptions query_options{.backends = {"cpu"}};
  if (has_device) query_options.backends = {"cuda"};
  query->add_option("--n", query_sizes, "Proxies (100K, 1M; comma list)")
      ->delimiter(',')
      ->capture_default_str();
  query->add_option("--queries", query_batches, "Regions or rays a batch (100K, 1M; comma list)")
      ->delimiter(',')
      ->capture_default_str();
  query
      ->add_option("--kind", query_kinds,
                   "aabb: region queries; ray: nearest hits; ray-all: every hit (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"aabb", "ray", "ray-all"}))
      ->capture_default_str();
  query->add_option("--backend", query_options.backends, "cpu, cuda (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  query->add_option("--pairs-per-box", query_options.pairs_per_box, "Density of the scene")
      ->check(rsw::cli::finite_range(0.01, 1e4))
      ->capture_default_str();
  query->add_option("--frames", query_options.frames, "Timed batches")
      ->check(runs_range(1))
      ->capture_default_str();
  query->add_option("--warmup", query_options.warmup, "Untimed batches before them")
      ->check(runs_range(0))
      ->capture_default_str();

  CLI::App* soak = app.add_subcommand(
      "soak", "Many broad-phase frames, some clustered: pairs checked, memory held flat");
  soak->fallthrough();
  std::string soak_size = "1M";
  rsw::bench::SoakBenchOptions soak_options;
  if (!has_device) soak_options.backend = "cpu";
  soak->add_option("--n", soak_size, "Boxes (1M)")->capture_default_str();
  soak->add_option("--backend", soak_options.backend,
                   "cuda (checked against the CPU backend) or cpu (checked against brute force)")
      ->check(CLI::IsMember({"cpu", "cuda", "gpu"}))
      ->capture_default_str();
  soak->add_option("--frames", soak_options.frames, "Frames to run")
      ->check(runs_range(1))
      ->capture_default_str();
  soak->add_option("--cluster-every", soak_options.cluster_every,
                   "Every Nth frame draws all boxes into a small region, and its pairs are "
                   "checked against the reference backend")
      ->check(runs_range(1))
      ->capture_default_str();
  soak->add_option("--cluster-pairs-per-box", soak_options.cluster_pairs_per_box,
                   "Density of the clustered frames")
      ->check(rsw::cli::finite_range(0.01, 1e4))
      ->capture_default_str();
  soak->add_option("--memory-from", soak_options.memory_from,
                   "The frame whose memory the last frame's is compared with")
      ->check(runs_range(1))
      ->capture_default_str();
  soak->add_option("--seed", soak_options.seed, "Seed of the boxes' start (0: a fresh one)")
      ->check(CLI::Range(0u, 0xFFFFFFFFu))
      ->capture_default_str();
  soak->add_option("--max-memory-growth", soak_options.max_memory_growth,
                   "Largest growth of host RSS or device memory allowed from --memory-from to "
                   "the last frame (0.01: 1%)")
      ->check(rsw::cli::finite_range(0, 1e6))
      ->capture_default_str();

#if RSW_BENCH_RENDER
  CLI::App* render = app.add_subcommand(
      "render",
      "Headless frames of instanced boxes: host upload vs CUDA-GL interop, meshes vs the level "
      "of detail");
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
  render
      ->add_option("--draw", render_options.draws,
                   "meshes (every box its 12 triangles), detail (meshes, impostors or splats by "
                   "the size on screen)")
      ->delimiter(',')
      ->check(CLI::IsMember({"meshes", "detail"}))
      ->capture_default_str();
  render
      ->add_option("--mesh-pixels", render_options.mesh_pixels,
                   "detail: the projected diameters from which boxes are meshes (comma list, "
                   "one row each)")
      ->delimiter(',')
      ->check(rsw::cli::finite_range(0, 16384))
      ->capture_default_str();
  render->add_option("--width", render_options.width, "Image width")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  render->add_option("--height", render_options.height, "Image height")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  render->add_option("--frames", render_options.frames, "Timed frames")
      ->check(runs_range(1))
      ->capture_default_str();
  render->add_option("--warmup", render_options.warmup, "Untimed frames before them")
      ->check(runs_range(0))
      ->capture_default_str();
#endif

  return rsw::cli::run_program(app, argc, argv, [&] {
    // Everything is checked before the first row runs: sizes, then the files to write.
    if (copy->parsed()) {
      copy_options.sizes = parse_sizes(copy_sizes, "--bytes", kMostCopyBytes, "bytes");
      copy_options.algos = copy_algos;
    }
    if (sort->parsed()) {
      sort_options.sizes = parse_sizes(sort_sizes, "--n", kMostKeys, "keys");
      sort_options.algos = sort_algos;
    }
    if (broadphase->parsed()) {
      broadphase_options.sizes = parse_sizes(broadphase_sizes, "--n", kMostBoxes, "boxes");
      if (!broadphase_options.pairs_file.empty())
        rsw::cli::check_writable(broadphase_options.pairs_file, "--pairs-out");
    }
    if (world->parsed()) {
      world_options.sizes = parse_sizes(world_sizes, "--n", kMostBoxes, "proxies");
      world_options.stage_times = world_stage_times == "on";
    }
    if (worlds->parsed()) {
      worlds_options.worlds = parse_sizes(worlds_counts, "--worlds", kMostWorlds, "worlds");
      worlds_options.boxes_per_world =
          parse_sizes(worlds_boxes, "--boxes-per-world", kMostBoxes, "boxes");
    }
    if (query->parsed()) {
      query_options.sizes = parse_sizes(query_sizes, "--n", kMostBoxes, "proxies");
      query_options.queries = parse_sizes(query_batches, "--queries", kMostBoxes, "queries");
      query_options.kinds = query_kinds;
    }
    if (soak->parsed()) {
      soak_options.boxes = parse_sizes({soak_size}, "--n", kMostBoxes, "boxes").front();
    }
#if RSW_BENCH_RENDER
    if (render->parsed())
      render_options.sizes = parse_sizes(render_sizes, "--n", kMostInstances, "instances");
#endif
    if (!json_path.empty()) rsw::cli::check_writable(json_path, "--json");

    rsw::bench::Report report;
    print_machine();
    if (copy->parsed()) run_copy_bench(copy_options, report);
    if (sort->parsed()) run_sort_bench(sort_options, report);
    if (broadphase->parsed()) run_broadphase_bench(broadphase_options, report);
    if (world->parsed()) run_world_bench(world_options, report);
    if (worlds->parsed()) run_worlds_bench(worlds_options, report);
    if (query->parsed()) run_query_bench(query_options, report);
    if (soak->parsed()) run_soak_bench(soak_options, report);
#if RSW_BENCH_RENDER
    if (render->parsed()) run_render_bench(render_options, report);
#endif
    report.print_table();
    if (!json_path.empty()) report.write_json(json_path);
    for (const std::string& failure : report.failures())
      std::fprintf(stderr, "radixsweep-bench: %s\n", failure.c_str());
    return report.failures().empty() ? 0 : rsw::cli::kFailure;
  });
}
