// radixsweep: the demo executable. It runs a scene in a window with the overlay (timings,
// counts, controls), or headless where there is no display (or with --headless), saving a
// screenshot and the profiler's history at the end; --info reports the build and the device.
#include <CLI/CLI.hpp>
#include <array>
#include <cmath>
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
  std::string draw = "auto";
  int device = 0;
  bool headless = false;
  std::size_t frames = 0;  // 0 (not given): until the window closes (headless: kHeadlessFrames)
  std::string screenshot;
  std::string stats;
  int width = 1280;
  int height = 720;
  std::vector<float> pick;    // x, y: a pixel whose ray picks an object
  std::vector<float> region;  // x0, y0, x1, y1: a rectangle of pixels spanning a region
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
// The drawing choices of the UI (--draw detail, meshes), and the paths they stand for.
const std::vector<std::pair<std::string, rsw::render::DrawPath>> kDrawPaths = {
    {"level of detail", rsw::render::DrawPath::LevelOfDetail},
    {"meshes", rsw::render::DrawPath::Meshes}};

rsw::render::DrawPath draw_path(const std::string& name) {
  if (name == "meshes") return rsw::render::DrawPath::Meshes;
  return name == "detail" ? rsw::render::DrawPath::LevelOfDetail : rsw::render::DrawPath::Auto;
}

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
        renderer_({.width = options.width,
                   .height = options.height,
                   .draw_path = draw_path(options.draw)}),
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
    for (const auto& [name, path] : kDrawPaths)
      controls_.draws.push_back(name);
    controls_.draw = drawing();
    controls_.shortcuts = {{"Esc", "quit"},
                           {"Space", "pause / resume"},
                           {"N", "one step while paused"},
                           {"R", "reset the scene"},
                           {"G", "switch CPU / GPU"},
                           {"1 2 3", "sort: CPU radix, four-way, Onesweep"},
                           {"L", "drawing: level of detail / meshes"},
                           {"F12", "screenshot"},
                           {"H, F1", "this help"},
                           {"click", "pick an object (nothing: unpick)"},
                           {"right drag", "a region (right click: none)"},
                           {"left drag, arrows, WASD", "orbit"},
                           {"middle drag, Shift + left drag", "pan"},
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
      // --pick and --region ask at the frame the screenshot shows (a window's first).
      if (frame + 1 == frames || (frames == 0 && frame == 0)) apply_pixel_options();
      if (display_.window) handle_mouse(*display_.window);
      highlight();
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
                     .lost = counts.lost,
                     .picked = picked_ ? scene_->object_name(*picked_) : std::string(),
                     .partners = names(partners_),
                     .region = region_ ? with_count(in_region_.size(), "object") : std::string(),
                     .drawn = renderer_.previous_frame_counts()},
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
    if (!options_.pick.empty()) print_pick();
    if (!options_.region.empty()) print_region();
    for (const rsw::StageStats& stage : profiler_.stats()) {
      std::printf("  %-13s median %8.3f ms   min %8.3f   max %8.3f\n", stage.name.c_str(),
                  stage.median_ms, stage.min_ms, stage.max_ms);
    }
  }

 private:
  // Objects the printed lists name before "and N more".
  static constexpr std::size_t kNamed = 8;

  // "pick 640,360: chair 12 at t = 14.25, 3 partners: chair 5, chair 77, ground"
  void print_pick() const {
    std::printf("pick %g,%g: ", options_.pick[0], options_.pick[1]);
    if (!picked_) {
      std::printf("nothing\n");
      return;
    }
    std::printf("%s at t = %.3f, %s%s\n", scene_->object_name(*picked_).c_str(), picked_t_,
                with_count(partners_.size(), "partner").c_str(), listed(partners_).c_str());
  }

  // "region 100,100,300,200: 42 objects: box 7, box 19, ..."
  void print_region() const {
    std::printf("region %g,%g,%g,%g: ", options_.region[0], options_.region[1], options_.region[2],
                options_.region[3]);
    if (!region_) {
      std::printf("nothing under the rectangle to measure it by\n");
      return;
    }
    std::printf("%s%s\n", with_count(in_region_.size(), "object").c_str(),
                listed(in_region_).c_str());
  }

  // ": a, b, c and 5 more", or nothing for no objects.
  std::string listed(const std::vector<std::uint32_t>& objects) const {
    std::string text;
    for (std::size_t k = 0; k < std::min(objects.size(), kNamed); ++k)
      text += (k == 0 ? ": " : ", ") + scene_->object_name(objects[k]);
    if (objects.size() > kNamed)
      text += " and " + std::to_string(objects.size() - kNamed) + " more";
    return text;
  }

  static std::string with_count(std::size_t count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
  }

  std::vector<std::string> names(const std::vector<std::uint32_t>& objects) const {
    std::vector<std::string> named;
    named.reserve(objects.size());
    for (const std::uint32_t object : objects)
      named.push_back(scene_->object_name(object));
    return named;
  }

  // The ray from the camera through pixel (x, y) of the image.
  rsw::render::CameraRay ray_through(float x, float y) const {
    const rsw::render::RendererOptions& image = renderer_.options();
    return camera_.ray_through(x, y, image.width, image.height);
  }

  // Picks what the ray through (x, y) meets first, or nothing.
  void pick_at(float x, float y) {
    picked_.reset();
    if (const std::optional<rsw::scenes::ScenePick> hit = scene_->pick(ray_through(x, y))) {
      picked_ = hit->object;
      picked_t_ = hit->t;
    }
  }

  // The region a rectangle of pixels spans: at the depth of what its first corner's ray
  // picks (or of the camera's target), the box around the rectangle's corners there,
  // reaching as far in depth as the rectangle is wide or high.
  std::optional<rsw::physics::Aabb> region_under(rsw::render::Pixel from, rsw::render::Pixel to) {
    const rsw::render::CameraRay start = ray_through(from[0], from[1]);
    const rsw::render::CameraRay middle =
        ray_through(0.5f * static_cast<float>(renderer_.options().width),
                    0.5f * static_cast<float>(renderer_.options().height));
    const auto dot = [](const std::array<float, 3>& a, const std::array<float, 3>& b) {
      return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    };
    const std::array<float, 3>& forward = middle.direction;
    float depth = camera_.distance;  // along the view axis
    if (const std::optional<rsw::scenes::ScenePick> hit = scene_->pick(start))
      depth = hit->t * dot(start.direction, forward);
    if (!(depth > 0)) return std::nullopt;
    std::array<std::array<float, 3>, 4> corners;
    const rsw::render::Pixel pixels[4] = {from, {to[0], from[1]}, to, {from[0], to[1]}};
    for (std::size_t c = 0; c < 4; ++c) {
      const rsw::render::CameraRay ray = ray_through(pixels[c][0], pixels[c][1]);
      const float t = depth / dot(ray.direction, forward);
      for (std::size_t axis = 0; axis < 3; ++axis)
        corners[c][axis] = ray.origin[axis] + t * ray.direction[axis];
    }
    const auto distance = [](const std::array<float, 3>& a, const std::array<float, 3>& b) {
      return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    };
    const float reach =
        0.5f * std::max(distance(corners[0], corners[1]), distance(corners[1], corners[2]));
    rsw::physics::Aabb region{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (const std::array<float, 3>& corner : corners) {
      for (const float side : {-reach, reach}) {
        const float point[3] = {corner[0] + side * forward[0], corner[1] + side * forward[1],
                                corner[2] + side * forward[2]};
        region.min = {std::min(region.min.x, point[0]), std::min(region.min.y, point[1]),
                      std::min(region.min.z, point[2])};
        region.max = {std::max(region.max.x, point[0]), std::max(region.max.y, point[1]),
                      std::max(region.max.z, point[2])};
      }
    }
    return region;
  }

  void apply_pixel_options() {
    if (!options_.pick.empty()) pick_at(options_.pick[0], options_.pick[1]);
    if (!options_.region.empty()) {
      region_ = region_under({options_.region[0], options_.region[1]},
                             {options_.region[2], options_.region[3]});
    }
  }

  // A click picks (or unpicks); a right drag spans a region, a right click clears it.
  void handle_mouse(const rsw::render::Window& window) {
    for (const rsw::render::Pixel& click : window.clicks())
      pick_at(click[0], click[1]);
    if (const std::optional<rsw::render::MouseDrag> drag = window.right_drag()) {
      const bool moved =
          std::abs(drag->to[0] - drag->from[0]) > 2 || std::abs(drag->to[1] - drag->from[1]) > 2;
      region_ = moved ? region_under(drag->from, drag->to) : std::nullopt;
    }
  }

  // The picked object's partners and the region's objects of this step, highlighted.
  void highlight() {
    partners_.clear();
    in_region_.clear();
    if (picked_) partners_ = scene_->partners(*picked_);
    if (region_) in_region_ = scene_->objects_in(*region_);
    scene_->set_highlight({.picked = picked_, .partners = partners_, .in_region = in_region_});
  }

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
  // without the overlay: the scene and its setup, per frame of the same window its counts, and
  // how the last frame's instances were drawn.
  void write_stats(const std::string& path) const {
    using Json = nlohmann::ordered_json;
    Json stats = {{"scene", scene_->name()},
                  {"backend", rsw::to_string(scene_->backend())},
                  {"sort", rsw::sort::to_string(chosen_sort())},
                  {"draw", drawing() == 0 ? "detail" : "meshes"},
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
    const rsw::render::DrawCounts drawn = renderer_.frame_counts();
    stats["drawn"] = {{"meshes", drawn.meshes},
                      {"impostors", drawn.impostors},
                      {"splats", drawn.splats},
                      {"culled", drawn.culled}};
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
    picked_.reset();
    region_.reset();
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
    if (controls_.draw != drawing()) {
      try {
        renderer_.set_draw_path(kDrawPaths[static_cast<std::size_t>(controls_.draw)].second);
      } catch (const rsw::Error& error) {  // a GL without the level of detail's passes
        std::fprintf(stderr, "radixsweep: %s\n", error.what());
        controls_.draw = drawing();
      }
    }
  }

  // The UI's drawing (index into kDrawPaths) of the path the renderer draws by.
  int drawing() const {
    return renderer_.options().draw_path == rsw::render::DrawPath::Meshes ? 1 : 0;
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
        case Key::L: controls_.draw = 1 - controls_.draw; break;
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
  // What the user picked and the region drawn, and what they hold at this step.
  std::optional<std::uint32_t> picked_;
  float picked_t_ = 0;
  std::optional<rsw::physics::Aabb> region_;
  std::vector<std::uint32_t> partners_;
  std::vector<std::uint32_t> in_region_;
};

// --pick and --region name pixels of the image: each x below its width, each y its height.
void check_pixels(const Options& options) {
  const auto check = [&](const std::vector<float>& values, const char* flag) {
    for (std::size_t k = 0; k + 1 < values.size(); k += 2) {
      if (values[k] < static_cast<float>(options.width) &&
          values[k + 1] < static_cast<float>(options.height)) {
        continue;
      }
      std::string given;
      for (const float value : values)
        given += (given.empty() ? "" : ",") + CLI::detail::to_string(value);
      throw rsw::Error(
          rsw::ErrorKind::InvalidArgument,
          std::string(flag) + " " + given + ": pixel " + CLI::detail::to_string(values[k]) + "," +
              CLI::detail::to_string(values[k + 1]) + " lies outside the " +
              std::to_string(options.width) + "x" + std::to_string(options.height) + " image");
    }
  };
  check(options.pick, "--pick");
  check(options.region, "--region");
}

int run_demo(Options options) {
  check_pixels(options);
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
  app.add_option("--draw", options.draw,
                 "How instances are drawn: detail (meshes, impostors or splats by their size on "
                 "screen), meshes (every instance its triangles), auto (detail on a GPU, meshes "
                 "on a software rasteriser)")
      ->check(CLI::IsMember({"auto", "detail", "meshes"}, CLI::ignore_case))
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
  app.add_option("--pick", options.pick,
                 "Pick what the ray through pixel X,Y (from the top left) meets at the last "
                 "frame, highlight it and its partners, and print them")
      ->delimiter(',')
      ->expected(2)
      ->check(rsw::cli::finite_range(0, 16384));
  app.add_option("--region", options.region,
                 "Highlight the objects in the region the pixel rectangle X0,Y0,X1,Y1 spans at "
                 "the last frame, and print them")
      ->delimiter(',')
      ->expected(4)
      ->check(rsw::cli::finite_range(0, 16384));
  app.set_version_flag("--version", "RadixSweep " + std::string(rsw::build_info::kVersion));

  return rsw::cli::run_program(app, argc, argv, [&] {
    if (!info) return run_demo(options);
    print_info(options);
    return 0;
  });
}
