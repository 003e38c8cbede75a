// radixsweep: the demo executable. It runs a scene in a window with the overlay (timings,
// counts, controls), or headless where there is no display (or with --headless), saving a
// screenshot and the profiler's history at the end; --info reports the build and the device.
#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rsw/cli/command_line.hpp"
#include "rsw/engine/backend.hpp"
#include "rsw/engine/build_info.hpp"
#include "rsw/engine/error.hpp"
#include "rsw/engine/memory.hpp"
#include "rsw/engine/profiler.hpp"
#include "rsw/sort/sorter.hpp"
#if RSW_DEMO_SCENES
#include "rsw/render/headless_context.hpp"
#include "rsw/render/overlay.hpp"
#include "rsw/render/renderer.hpp"
#include "rsw/render/window.hpp"
#include "rsw/scenes/scene.hpp"
#endif

namespace {

struct Options {
  std::string scene = "chairs";
  std::size_t count = 0;  // 0: the scene's default count for the backend
  std::uint32_t seed = 1;
  std::string backend = "auto";
  std::string sort = "auto";
  int device = 0;
  bool headless = false;
  std::size_t frames = 0;  // 0 (not given): until the window closes (headless: kHeadlessFrames)
  std::string screenshot;
  std::string stats;
  int width = 1280;
  int height = 720;
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

#if RSW_DEMO_SCENES
using rsw::render::Key;

constexpr std::size_t kHeadlessFrames = 120;
// Frames the overlay's plots and the stats file keep: 4 s at 60 FPS.
constexpr std::size_t kHistoryFrames = 240;
constexpr const char* kHeadlessScreenshot = "radixsweep.png";
constexpr const char* kHeadlessStats = "radixsweep-stats.json";

// The overlay's stage list: the frame's data path in order.
const std::vector<std::string> kStages = {"integrate", "aabb",  "keys",    "sort",
                                          "list",      "sweep", "gravity", "narrow phase",
                                          "contacts",  "render"};
// The sort choices of the UI, and the algorithms they stand for.
const std::vector<std::pair<std::string, rsw::sort::Algorithm>> kSorts = {
    {"CPU radix", rsw::sort::Algorithm::Cpu},
    {"four-way", rsw::sort::Algorithm::FourWay},
    {"Onesweep", rsw::sort::Algorithm::Onesweep}};

// Where the frames go: a window, or a headless context.
struct Display {
  std::optional<rsw::render::Window> window;
  std::optional<rsw::render::HeadlessContext> context;
  std::string description;
};

// Fills `display` (not movable: the window's callbacks point at it) with a window, or failing
// that a headless context.
void open_display(const Options& options, Display& display) {
  if (!options.headless && rsw::render::Window::display_named()) {
    try {
      display.window.emplace(rsw::render::WindowOptions{
          .width = options.width, .height = options.height, .title = "RadixSweep"});
      display.description = "window: " + display.window->description();
      return;
    } catch (const rsw::Error& error) {
      std::fprintf(stderr, "radixsweep: %s; running headless\n", error.what());
    }
  }
  display.context.emplace(rsw::render::HeadlessContextOptions{.cuda_device = options.device});
  display.description = "headless: " + display.context->description();
}

// The demo's frame loop: the scene steps (unless paused), draws, and the overlay goes on top.
class Demo {
 public:
  Demo(const Options& options, Display& display)
      : options_(options),
        display_(display),
        renderer_({.width = options.width, .height = options.height}),
        overlay_(display.window ? rsw::render::Overlay(*display.window) : rsw::render::Overlay()),
        profiler_({.history_frames = kHistoryFrames}) {
    const rsw::Backend backend = rsw::resolve_backend(rsw::parse_backend(options.backend));
    if (backend == rsw::Backend::Cuda) rsw::use_cuda_device(options.device);
    controls_.scenes = rsw::scenes::scene_names();
    controls_.scene = index_of(controls_.scenes, options.scene);
    controls_.count = static_cast<int>(options.count);  // 0: the scene's default
    controls_.seed = static_cast<int>(options.seed);
    controls_.count_max = 1 << 24;
    controls_.backends = {"CPU"};
    if (rsw::cuda_runtime_info().available()) controls_.backends.push_back("GPU");
    controls_.backend = backend == rsw::Backend::Cuda ? 1 : 0;
    for (const auto& [name, algorithm] : kSorts)
      controls_.sorts.push_back(name);
    controls_.sort = sort_index(rsw::sort::parse_algorithm(options.sort), backend);
    controls_.shortcuts = {{"Esc", "quit"},
                           {"Space", "pause / resume"},
                           {"N", "one step while paused"},
                           {"R", "reset the scene"},
                           {"G", "switch CPU / GPU"},
                           {"1 2 3", "sort: CPU radix, four-way, Onesweep"},
                           {"F12", "screenshot"},
                           {"H, F1", "this help"},
                           {"left drag, arrows, WASD", "orbit"},
                           {"right drag", "pan"},
                           {"wheel, Page Up/Down, Q/E", "zoom"}};
    start_scene();
  }

  // Runs until the window closes or the frame count is reached; returns frames run.
  std::size_t run() {
    const std::size_t frames =
        options_.frames > 0 ? options_.frames : (display_.window ? 0 : kHeadlessFrames);
    std::size_t frame = 0;
    while (frames == 0 || frame < frames) {
      if (display_.window) {
        rsw::render::Window& window = *display_.window;
        window.poll_events();
        if (window.should_close()) break;
        handle_keys(window);
        window.drive_camera(camera_);
        const auto [width, height] = window.framebuffer_size();
        if (width > 0 && height > 0) renderer_.resize(width, height);
      }
      apply_controls();
      if (!controls_.paused || std::exchange(controls_.step, false)) scene_->step(profiler_);
      renderer_.begin_frame(camera_);
      scene_->draw(renderer_, profiler_);
      const rsw::scenes::SceneStats counts = scene_->stats();
      overlay_.draw({.profiler = &profiler_,
                     .stages = kStages,
                     .device = device_name(),
                     .objects = counts.objects,
                     .worlds = counts.worlds,
                     .candidates = counts.candidates,
                     .pairs = counts.pairs,
                     .sort_passes_run = counts.sort_passes_run,
                     .sort_passes_total = counts.sort_passes_total,
                     .events = counts.events,
                     .found = counts.found,
                     .lost = counts.lost},
                    controls_, renderer_);
      if (std::exchange(controls_.screenshot, false)) save_screenshot(frame);
      if (display_.window) {
        display_.window->present(renderer_);
      } else {
        display_.context->end_frame();  // a swap's pacing: never more than two frames queued
      }
      profiler_.end_frame();
      ++frame;
      record_frame(counts, frame);
    }
    profiler_.flush();
    return frame;
  }

  void finish(std::size_t frames) {
    if (!options_.screenshot.empty()) {
      renderer_.save_image(options_.screenshot);
      std::printf("screenshot: %s\n", options_.screenshot.c_str());
    }
    if (!options_.stats.empty()) {
      if (memory_.empty() || memory_.back().frame != frames) sample_memory(frames);
      write_stats(options_.stats);
      std::printf("stats:      %s\n", options_.stats.c_str());
    }
    const rsw::scenes::SceneStats counts = scene_->stats();
    std::printf("scene:      %s, %zu objects, %s, %zu frames\n", scene_->name().data(),
                counts.objects, std::string(rsw::to_string(scene_->backend())).c_str(), frames);
    std::printf("last frame: %zu candidates, %zu pairs\n", counts.candidates, counts.pairs);
    for (const rsw::StageStats& stage : profiler_.stats()) {
      std::printf("  %-13s median %8.3f ms   min %8.3f   max %8.3f\n", stage.name.c_str(),
                  stage.median_ms, stage.min_ms, stage.max_ms);
    }
  }

 private:
  // What the process holds at a frame, for soak runs: host RSS and device memory in use.
  struct MemorySample {
    std::size_t frame = 0;
    rsw::MemoryUsage usage;
  };

  // The counts of the frame just drawn, kept for the stats file over the profiler's window;
  // memory at frames 1, 10, 100, ...
  void record_frame(const rsw::scenes::SceneStats& counts, std::size_t frame) {
    counts_.push_back(counts);
    if (counts_.size() > kHistoryFrames) counts_.pop_front();
    std::size_t power = 1;
    while (power < frame)
      power *= 10;
    if (power == frame) sample_memory(frame);
  }

  void sample_memory(std::size_t frame) { memory_.push_back({frame, rsw::memory_usage()}); }

  // F12 in the window: a failure to write is reported, and the demo goes on.
  void save_screenshot(std::size_t frame) const {
    const std::string path = "radixsweep-" + std::to_string(frame) + ".png";
    try {
      renderer_.save_png(path);
      std::printf("screenshot: %s\n", path.c_str());
    } catch (const rsw::Error& error) {
      std::fprintf(stderr, "radixsweep: %s\n", error.what());
    }
  }

  // The stats file: the profiler's stage times, and what a script needs to read the run
  // without the overlay: the scene and its setup, and per frame of the same window its counts.
  void write_stats(const std::string& path) const {
    using Json = nlohmann::ordered_json;
    Json stats = {{"scene", scene_->name()},
                  {"backend", rsw::to_string(scene_->backend())},
                  {"sort", rsw::sort::to_string(chosen_sort())},
                  {"device", device_name()},
                  {"objects", scene_->stats().objects},
                  {"worlds", scene_->stats().worlds},
                  {"seed", controls_.seed}};
    const Json profile = Json::parse(profiler_.to_json());
    stats.update(profile);
    Json objects = Json::array(), candidates = Json::array(), pairs = Json::array();
    Json passes_run = Json::array(), passes_skipped = Json::array();
    Json found = Json::array(), lost = Json::array();
    for (const rsw::scenes::SceneStats& frame : counts_) {
      objects.push_back(frame.objects);
      candidates.push_back(frame.candidates);
      pairs.push_back(frame.pairs);
      passes_run.push_back(frame.sort_passes_run);
      passes_skipped.push_back(frame.sort_passes_total - frame.sort_passes_run);
      found.push_back(frame.found);
      lost.push_back(frame.lost);
    }
    stats["counts"] = {{"objects", objects},
                       {"candidates", candidates},
                       {"pairs", pairs},
                       {"sort_passes_run", passes_run},
                       {"sort_passes_skipped", passes_skipped},
                       {"found", found},
                       {"lost", lost}};
    Json memory = Json::array();
    for (const MemorySample& sample : memory_) {
      memory.push_back({{"frame", sample.frame},
                        {"host_resident_bytes", sample.usage.host_resident_bytes},
                        {"device_used_bytes", sample.usage.device_used_bytes}});
    }
    stats["memory"] = memory;
    std::ofstream file(path);
    file << stats.dump(2) << '\n';
    file.close();
    if (!file) throw rsw::Error(rsw::ErrorKind::Io, "writing the stats to '" + path + "' failed");
  }

  static int index_of(const std::vector<std::string>& names, const std::string& name) {
    for (std::size_t index = 0; index < names.size(); ++index) {
      if (names[index] == name) return static_cast<int>(index);
    }
    return 0;
  }

  // The UI's sort for an algorithm (Auto: Onesweep on the GPU, the CPU radix sort on the CPU).
  static int sort_index(rsw::sort::Algorithm algorithm, rsw::Backend backend) {
    if (algorithm == rsw::sort::Algorithm::Auto) {
      algorithm = backend == rsw::Backend::Cuda ? rsw::sort::Algorithm::Onesweep
                                                : rsw::sort::Algorithm::Cpu;
    }
    for (std::size_t index = 0; index < kSorts.size(); ++index) {
      if (kSorts[index].second == algorithm) return static_cast<int>(index);
    }
    return 0;
  }

  rsw::Backend chosen_backend() const {
    return controls_.backend == 1 ? rsw::Backend::Cuda : rsw::Backend::Cpu;
  }
  rsw::sort::Algorithm chosen_sort() const {
    return kSorts[static_cast<std::size_t>(controls_.sort)].second;
  }

  void start_scene() {
    scene_ = rsw::scenes::make_scene(controls_.scenes[static_cast<std::size_t>(controls_.scene)]);
    if (controls_.count == 0)
      controls_.count = static_cast<int>(scene_->default_count(chosen_backend()));
    scene_->reset({.count = static_cast<std::size_t>(controls_.count),
                   .seed = static_cast<std::uint32_t>(controls_.seed),
                   .backend = chosen_backend(),
                   .sort = chosen_sort()});
    camera_ = scene_->camera();
    running_ = {controls_.scene, controls_.backend, controls_.sort};
    profiler_.reset();
    counts_.clear();
  }

  // What the overlay or the keys changed since the last frame.
  void apply_controls() {
    if (controls_.scene != running_[0]) controls_.count = 0;  // a new scene: its own count
    if (controls_.scene != running_[0] || std::exchange(controls_.reset, false)) {
      start_scene();
      return;
    }
    if (controls_.backend != running_[1]) {
      scene_->set_backend(chosen_backend());  // the scene keeps its state
      running_[1] = controls_.backend;
    }
    if (controls_.sort != running_[2]) {
      scene_->set_sort(chosen_sort());
      running_[2] = controls_.sort;
    }
  }

  void handle_keys(rsw::render::Window& window) {
    for (const Key key : window.key_presses()) {
      switch (key) {
        case Key::Escape: window.request_close(); break;
        case Key::Space: controls_.paused = !controls_.paused; break;
        case Key::N: controls_.step = true; break;
        case Key::R: controls_.reset = true; break;
        case Key::G:
          controls_.backend = (controls_.backend + 1) % static_cast<int>(controls_.backends.size());
          break;
        case Key::Digit1: controls_.sort = 0; break;
        case Key::Digit2: controls_.sort = 1; break;
        case Key::Digit3: controls_.sort = 2; break;
        case Key::F12: controls_.screenshot = true; break;
        case Key::H:
        case Key::F1: controls_.show_help = !controls_.show_help; break;
        default: break;
      }
    }
  }

  std::string device_name() const {
    if (scene_->backend() != rsw::Backend::Cuda) return "CPU";
    for (const rsw::DeviceInfo& device : rsw::cuda_runtime_info().devices) {
      if (device.ordinal == options_.device) return device.name;
    }
    return "GPU";
  }

  Options options_;
  Display& display_;
  rsw::render::Renderer renderer_;
  rsw::render::Overlay overlay_;
  rsw::render::OverlayControls controls_;
  rsw::StageProfiler profiler_;
  std::unique_ptr<rsw::scenes::Scene> scene_;
  rsw::render::OrbitCamera camera_;
  std::array<int, 3> running_{};                // scene, backend and sort the scene runs with
  std::deque<rsw::scenes::SceneStats> counts_;  // the last kHistoryFrames frames
  std::vector<MemorySample> memory_;
};

int run_demo(Options options) {
  Display display;
  open_display(options, display);
  std::printf("%s\n", display.description.c_str());
  if (!display.window) {
    if (options.screenshot.empty()) options.screenshot = kHeadlessScreenshot;
    if (options.stats.empty()) options.stats = kHeadlessStats;
  }
  // The outputs are checked now, not when the last frame has run.
  if (!options.screenshot.empty()) rsw::cli::check_writable(options.screenshot, "--screenshot");
  if (!options.stats.empty()) rsw::cli::check_writable(options.stats, "--stats");
  Demo demo(options, display);
  demo.finish(demo.run());
  return 0;
}

std::vector<std::string> scene_names() {
  return rsw::scenes::scene_names();
}

// For --screenshot: why `path` names no image format the renderer writes; empty if it does.
std::string why_not_an_image_name(std::string& path) {
  try {
    rsw::render::image_format_of(path);
  } catch (const rsw::Error& error) {
    return error.what();
  }
  return {};
}
#else
int run_demo(const Options&) {
  throw rsw::Error(rsw::ErrorKind::DeviceUnavailable,
                   "this build has no renderer (RSW_BUILD_RENDER=OFF): only --info runs");
}

std::vector<std::string> scene_names() {
  return {"boxes"};
}

std::string why_not_an_image_name(std::string&) {
  return {};  // nothing is drawn without the renderer
}
#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("RadixSweep: GPU broad-phase collision detection (radix sort + sweep-and-prune)",
               "radixsweep");
  Options options;
  bool info = false;
  app.add_flag("--info", info, "Print version, build options and the CUDA device, then exit");
  app.add_option("--scene", options.scene, "Scene to run")
      ->check(CLI::IsMember(scene_names()))
      ->capture_default_str();
  app.add_option("--count", options.count,
                 "Objects in the scene (default: the scene's own for the backend: chairs 16384 on "
                 "the GPU, 1000 on the CPU)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  app.add_option("--seed", options.seed, "Seed of the scene's random start (also in the UI)")
      ->check(CLI::Range(0u, 2147483647u))
      ->capture_default_str();
  app.add_option("--backend", options.backend, "Where to run: auto, cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu", "cuda"}, CLI::ignore_case))
      ->capture_default_str();
  app.add_option("--sort", options.sort, "The broad phase's sort: auto, cpu, fourway, onesweep")
      ->check(CLI::IsMember({"auto", "cpu", "fourway", "onesweep"}, CLI::ignore_case))
      ->capture_default_str();
  app.add_option("--device", options.device, "CUDA device ordinal for the gpu backend")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--headless", options.headless,
               "Draw offscreen (EGL) even with a display; chosen anyway without one");
  app.add_option("--frames", options.frames,
                 "Frames to run, then exit (default: until the window closes; headless 120)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000'000}));
  app.add_option("--screenshot", options.screenshot,
                 "Save the last frame as .png, .jpg, .bmp or .tga, by the name's extension "
                 "(headless default: radixsweep.png)")
      ->check(CLI::Validator(why_not_an_image_name, "FILE"));
  app.add_option("--stats", options.stats,
                 "Write the run's stage times, counts per frame and setup as JSON (headless "
                 "default: radixsweep-stats.json)");
  app.add_option("--width", options.width, "Image width in pixels")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  app.add_option("--height", options.height, "Image height in pixels")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str();
  app.set_version_flag("--version", "RadixSweep " + std::string(rsw::build_info::kVersion));

  return rsw::cli::run_program(app, argc, argv, [&] {
    if (!info) return run_demo(options);
    print_info(options);
    return 0;
  });
}
