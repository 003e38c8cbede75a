#!/usr/bin/env python3
"""Checks a radixsweep --stats file, for the CLI tests:

    check_stats.py FILE SCENE STAGE

Passes when FILE names SCENE and holds what a script reads a run by: the setup (scene,
backend, sort, draw, device, objects, worlds, seed), the stage STAGE among the stage times,
per-frame counts over the same window as the stage times, a pair found in that window (the
scene did its job), the last frame's drawing counts, and memory samples; for the worlds scene, a world count of 1 to the
objects. Prints what is wrong otherwise and exits 1.
"""
import json
import sys


def main():
    path, scene, stage = sys.argv[1:4]
    with open(path, encoding="utf-8") as file:
        stats = json.load(file)
    problems = []
    for key in ("scene", "backend", "sort", "draw", "device", "objects", "worlds", "seed", "frames",
                "history_frames", "stages", "counts", "drawn", "memory"):
        if key not in stats:
            problems.append(f"no '{key}'")
    if problems:
        sys.exit(f"{path}: " + "; ".join(problems))
    if stats["scene"] != scene:
        problems.append(f"scene is {stats['scene']!r}, not {scene!r}")
    if stats["objects"] <= 0:
        problems.append("no objects")
    if scene == "worlds" and not 0 < stats["worlds"] <= stats["objects"]:
        problems.append(f"{stats['worlds']} worlds for {stats['objects']} objects")
    stages = {entry["name"]: entry for entry in stats["stages"]}
    if stage not in stages:
        problems.append(f"no stage {stage!r} among {sorted(stages)}")
    window = min(stats["frames"], stats["history_frames"])
    counts = stats["counts"]
    for key in ("objects", "candidates", "pairs", "sort_passes_run", "sort_passes_skipped"):
        if len(counts.get(key, [])) != window:
            problems.append(f"counts.{key} has {len(counts.get(key, []))} frames, not {window}")
    if counts.get("objects") and counts["objects"][-1] != stats["objects"]:
        problems.append("the last frame's objects differ from the scene's")
    if not any(pairs > 0 for pairs in counts.get("pairs", [])):
        problems.append("no frame of the window found a pair")
    if not stats["memory"] or stats["memory"][-1]["frame"] != stats["frames"]:
        problems.append("no memory sample at the last frame")
    if problems:
        sys.exit(f"{path}: " + "; ".join(problems))
    print(f"{path}: {scene}, {stats['objects']} objects, {window} frames of counts, "
          f"up to {max(counts['pairs'])} pairs")


if __name__ == "__main__":
    main()
