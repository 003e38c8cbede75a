// Overlay: ImGui's GLFW backend for input (with a Window) and its OpenGL 3 backend for
// drawing, both from Debian's libimgui.a. The panels are drawn into the Renderer's framebuffer
// object, so a screenshot or a headless frame shows what the window shows. ImGui keeps no
// settings file (io.IniFilename = nullptr): the demo writes nothing it was not asked to.
#include "rsw/render/overlay.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rsw/engine/error.hpp"
#include "rsw/render/renderer.hpp"
#include "rsw/render/window.hpp"

namespace rsw::render {
namespace {

// Partners the stats panel names before "and N more".
constexpr std::size_t kListed = 8;

constexpr float kPanelMargin = 10.0f;
constexpr float kPlotWidth = 140.0f;
constexpr float kPlotHeight = 18.0f;

bool overlay_exists = false;  // ImGui's context is global: one overlay at a time

// For ImGui::Combo over a vector of names.
bool name_at(void* names, int index, const char** text) {
  const auto& list = *static_cast<const std::vector<std::string>*>(names);
  if (index < 0 || index >= static_cast<int>(list.size())) return false;
  *text = list[static_cast<std::size_t>(index)].c_str();
  return true;
}

void combo(const char* label, int& choice, const std::vector<std::string>& names) {
  if (names.empty()) return;
  choice = std::clamp(choice, 0, static_cast<int>(names.size()) - 1);
  auto* list = const_cast<std::vector<std::string>*>(&names);  // read only, as ImGui's void*
  ImGui::Combo(label, &choice, name_at, list, static_cast<int>(names.size()));
}

std::string with_thousands(std::size_t value) {
  const std::string digits = std::to_string(value);
  std::string grouped;
  for (std::size_t index = 0; index < digits.size(); ++index) {
    if (index > 0 && (digits.size() - index) % 3 == 0) grouped += ',';
    grouped += digits[index];
  }
  return grouped;
}

void stats_panel(const OverlayStats& stats) {
  ImGui::SetNextWindowPos(ImVec2(kPanelMargin, kPanelMargin), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.85f);
  ImGui::Begin("RadixSweep", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  std::optional<StageStats> frame;
  if (stats.profiler != nullptr) frame = stats.profiler->stats(StageProfiler::kFrameStage);
  if (frame && frame->median_ms > 0) {
    ImGui::Text("%.1f FPS  (%.2f ms a frame, median)", 1000.0 / frame->median_ms, frame->median_ms);
  } else {
    ImGui::TextUnformatted("FPS: measuring");
  }
  if (!stats.device.empty()) ImGui::Text("on %s", stats.device.c_str());
  ImGui::Separator();
  if (stats.profiler != nullptr &&
      ImGui::BeginTable("stages", 4, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("stage");
    ImGui::TableSetupColumn("ms");
    ImGui::TableSetupColumn("median");
    ImGui::TableSetupColumn("history");
    ImGui::TableHeadersRow();
    for (const std::string& name : stats.stages) {
      const std::optional<StageStats> stage = stats.profiler->stats(name);
      if (!stage) continue;
      const std::vector<double> history = stats.profiler->history(name);
      std::vector<float> plot(history.begin(), history.end());
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%8.3f", stage->last_ms);
      ImGui::TableNextColumn();
      ImGui::Text("%8.3f", stage->median_ms);
      ImGui::TableNextColumn();
      ImGui::PushID(name.c_str());
      ImGui::PlotLines("", plot.data(), static_cast<int>(plot.size()), 0, nullptr, 0.0f,
                       static_cast<float>(stage->max_ms), ImVec2(kPlotWidth, kPlotHeight));
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  ImGui::Separator();
  ImGui::Text("objects     %s", with_thousands(stats.objects).c_str());
  if (stats.worlds > 0) ImGui::Text("worlds      %s", with_thousands(stats.worlds).c_str());
  ImGui::Text("candidates  %s", with_thousands(stats.candidates).c_str());
  ImGui::Text("pairs       %s", with_thousands(stats.pairs).c_str());
  ImGui::Text("sort passes %d run, %d skipped", stats.sort_passes_run,
              stats.sort_passes_total - stats.sort_passes_run);
  if (stats.events) {
    ImGui::Text("contacts    %s began, %s ended", with_thousands(stats.found).c_str(),
                with_thousands(stats.lost).c_str());
  }
  const DrawCounts& drawn = stats.drawn;
  if (drawn.meshes + drawn.impostors + drawn.splats + drawn.culled > 0) {
    ImGui::Text("drawn       %s meshes, %s impostors, %s splats",
                with_thousands(drawn.meshes).c_str(), with_thousands(drawn.impostors).c_str(),
                with_thousands(drawn.splats).c_str());
    ImGui::Text("culled      %s", with_thousands(drawn.culled).c_str());
  }
  if (!stats.picked.empty()) {
    ImGui::Separator();
    ImGui::Text("picked      %s", stats.picked.c_str());
    ImGui::Text("partners    %s", with_thousands(stats.partners.size()).c_str());
    for (std::size_t k = 0; k < std::min(stats.partners.size(), kListed); ++k)
      ImGui::Text("  %s", stats.partners[k].c_str());
    if (stats.partners.size() > kListed)
      ImGui::Text("  and %s more", with_thousands(stats.partners.size() - kListed).c_str());
  }
  if (!stats.region.empty()) {
    if (stats.picked.empty()) ImGui::Separator();
    ImGui::Text("region      %s", stats.region.c_str());
  }
  ImGui::End();
}

void controls_panel(OverlayControls& controls) {
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(viewport->Size.x - kPanelMargin, kPanelMargin),
                          ImGuiCond_FirstUseEver, ImVec2(1.0f, 0.0f));
  ImGui::SetNextWindowBgAlpha(0.85f);
  ImGui::Begin("Controls", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  combo("scene", controls.scene, controls.scenes);
  ImGui::SliderInt("objects", &controls.count, controls.count_min, controls.count_max, "%d",
                   ImGuiSliderFlags_Logarithmic);
  if (ImGui::InputInt("seed", &controls.seed)) controls.seed = std::max(controls.seed, 0);
  combo("backend", controls.backend, controls.backends);
  combo("sort", controls.sort, controls.sorts);
  combo("drawing", controls.draw, controls.draws);
  ImGui::Checkbox("pause", &controls.paused);
  ImGui::SameLine();
  ImGui::BeginDisabled(!controls.paused);
  if (ImGui::Button("step")) controls.step = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("reset")) controls.reset = true;
  ImGui::SameLine();
  if (ImGui::Button("screenshot")) controls.screenshot = true;
  ImGui::Checkbox("help", &controls.show_help);
  ImGui::End();
}

void help_panel(OverlayControls& controls) {
  if (!controls.show_help) return;
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(viewport->Size.x - kPanelMargin, viewport->Size.y - kPanelMargin),
                          ImGuiCond_FirstUseEver, ImVec2(1.0f, 1.0f));
  ImGui::SetNextWindowBgAlpha(0.85f);
  ImGui::Begin("Help", &controls.show_help, ImGuiWindowFlags_AlwaysAutoResize);
  if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_SizingFixedFit)) {
    for (const auto& [key, action] : controls.shortcuts) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(key.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(action.c_str());
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace

namespace {

// The rows the stats panel's picking section takes: what changes its height between frames.
std::size_t picking_rows_of(const OverlayStats& stats) {
  std::size_t rows = stats.region.empty() ? 0 : 1;
  if (!stats.picked.empty())
    rows += 2 + std::min(stats.partners.size(), kListed) + (stats.partners.size() > kListed);
  return rows;
}

}  // namespace

struct Overlay::Impl {
  using Clock = std::chrono::steady_clock;

  Window* window = nullptr;
  Clock::time_point last_draw = Clock::now();
  bool glfw_backend = false;
  bool opengl_backend = false;
  std::size_t picking_rows = 0;  // the last frame's

  void start(Window* input) {
    if (overlay_exists) throw Error(ErrorKind::InvalidArgument, "an Overlay already exists");
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    overlay_exists = true;
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.LogFilename = nullptr;
    ImGui::StyleColorsDark();
    window = input;
    if (window != nullptr) {
      // Chains to the window's own callbacks, installed before.
      glfw_backend =
          ImGui_ImplGlfw_InitForOpenGL(static_cast<GLFWwindow*>(window->native_handle()), true);
      window->set_input_claims([] { return ImGui::GetIO().WantCaptureMouse; },
                               [] { return ImGui::GetIO().WantCaptureKeyboard; });
    }
    opengl_backend = ImGui_ImplOpenGL3_Init("#version 450 core");
    if (!opengl_backend) {
      stop();
      throw Error(ErrorKind::DeviceUnavailable,
                  "the overlay's OpenGL backend could not load OpenGL (ImGui's loader opens "
                  "libGL.so.1)");
    }
  }

  void stop() {
    if (window != nullptr) window->set_input_claims({}, {});
    if (opengl_backend) ImGui_ImplOpenGL3_Shutdown();
    if (glfw_backend) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    overlay_exists = false;
  }
};

Overlay::Overlay(Window& window) : impl_(std::make_unique<Impl>()) {
  impl_->start(&window);
}

Overlay::Overlay() : impl_(std::make_unique<Impl>()) {
  impl_->start(nullptr);
}

Overlay::~Overlay() {
  impl_->stop();
}

void Overlay::draw(const OverlayStats& stats, OverlayControls& controls, Renderer& renderer) {
  Impl& state = *impl_;
  const Impl::Clock::time_point now = Impl::Clock::now();
  const float seconds = std::chrono::duration<float>(now - state.last_draw).count();
  state.last_draw = now;

  ImGui_ImplOpenGL3_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 image(static_cast<float>(renderer.options().width),
                     static_cast<float>(renderer.options().height));
  if (state.glfw_backend) {
    ImGui_ImplGlfw_NewFrame();  // sizes in window coordinates, the pointer in the same
  } else {
    io.DeltaTime = seconds > 0 ? seconds : 1.0f / 60.0f;
    io.DisplaySize = image;
  }
  // The panels are drawn on the renderer's image, which may not be the window's pixel size.
  if (io.DisplaySize.x > 0 && io.DisplaySize.y > 0) {
    io.DisplayFramebufferScale = ImVec2(image.x / io.DisplaySize.x, image.y / io.DisplaySize.y);
  }
  const std::size_t rows = picking_rows_of(stats);
  if (!state.glfw_backend && rows != std::exchange(state.picking_rows, rows)) {
    // Headless, a frame whose panel grew or shrank is laid out twice: a panel that sizes
    // itself to its contents takes the size of the frame before, and a screenshot shows only
    // that one frame.
    OverlayControls unchanged = controls;
    ImGui::NewFrame();
    stats_panel(stats);
    controls_panel(unchanged);
    help_panel(unchanged);
    ImGui::EndFrame();
  }
  ImGui::NewFrame();
  stats_panel(stats);
  controls_panel(controls);
  help_panel(controls);
  ImGui::Render();
  renderer.draw_over([] { ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData()); });
}

bool Overlay::wants_mouse() const noexcept {
  return ImGui::GetIO().WantCaptureMouse;
}

bool Overlay::wants_keyboard() const noexcept {
  return ImGui::GetIO().WantCaptureKeyboard;
}

}  // namespace rsw::render
