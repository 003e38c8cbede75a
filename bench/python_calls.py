"""What a Python call costs over the C++ call it makes: BroadPhase.update(boxes, worlds=...)
followed by find_pairs(device=True), on CuPy arrays, timed on the host clock frame by frame
exactly as `radixsweep-bench worlds` times the same calls from C++ (its cuda-worlds-records
row: the boxes as one device array of records, the form the module passes; stage times off on
both sides). C++ and Python runs alternate, rounds of each on the same GPU, on scenes of the
same kind (unit cubes, each meeting about four others of its world); the medians of the
rounds' medians are compared.

    PYTHONPATH=build/release/python python3 bench/python_calls.py \\
        --bench build/release/bin/radixsweep-bench --scenes 4096x64,1x1M --json calls.json

Needs CuPy and a CUDA device. Prints one row per scene and the overhead in microseconds.
"""

import argparse
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import radixsweep


def count(text):
    """1M, 64K, 4096 -> an int."""
    scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


def make_scene(worlds, per_world, pairs_per_box, rng):
    """The worlds benchmark's scene: per world, unit cubes with corners on a 2^-10 grid in a
    cube region sized so that a box meets about pairs_per_box others of its world; every
    world in the same region. Boxes (n, 6) float32 and world ids (n,) uint32."""
    side = 2.0 * math.cbrt(max(1.0, (per_world - 1) / pairs_per_box))
    n = worlds * per_world
    low = rng.uniform(0.0, side - 1.0, (n, 3)).astype(np.float32)
    low = np.floor(low * np.float32(1024)) / np.float32(1024)
    boxes = np.concatenate([low, low + np.float32(1)], axis=1).astype(np.float32)
    ids = np.repeat(np.arange(worlds, dtype=np.uint32), per_world)
    return boxes, ids


def time_python(cupy, boxes, worlds, frames, warmup):
    """Milliseconds of each frame: update + find_pairs(device=True), which waits for the
    count; and the pairs of the last frame. The untimed frames last at least a quarter of a
    second, as the C++ run's are preceded by its other rows: the GPU's clocks have risen."""
    broad_phase = radixsweep.BroadPhase(backend="gpu", stage_times=False)  # as the C++ run
    device_boxes = cupy.asarray(boxes)
    device_worlds = cupy.asarray(worlds)
    cupy.cuda.runtime.deviceSynchronize()

    def frame():
        broad_phase.update(device_boxes, worlds=device_worlds)
        return len(broad_phase.find_pairs(device=True))

    warm_until = time.perf_counter() + 0.25
    for done in itertools.count():
        frame()
        if done + 1 >= warmup and time.perf_counter() >= warm_until:
            break
    times = []
    pairs = 0
    for _ in range(frames):
        start = time.perf_counter_ns()
        pairs = frame()
        times.append((time.perf_counter_ns() - start) / 1e6)
    return times, pairs


def time_cxx(bench, worlds, per_world, frames, warmup):
    """The C++ rows of `radixsweep-bench worlds` for the same configuration."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "worlds.json")
        subprocess.run([bench, "worlds", "--worlds", str(worlds), "--boxes-per-world",
                        str(per_world), "--backend", "cuda", "--frames", str(frames),
                        "--warmup", str(warmup), "--json", path],
                       check=True, stdout=subprocess.DEVNULL)
        with open(path) as file:
            rows = json.load(file)["rows"]
    return {row["algo"]: row for row in rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", required=True, help="the radixsweep-bench program")
    parser.add_argument("--scenes", default="4096x64,1x1M",
                        help="WORLDSxBOXES_PER_WORLD, comma list (default 4096x64,1x1M)")
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5,
                        help="C++ and Python runs alternated; the medians of their medians")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    try:
        import cupy
    except ImportError:
        print("python_calls: CuPy is not installed", file=sys.stderr)
        return 2
    if not radixsweep.info()["devices"]:
        print("python_calls: no CUDA device: " + radixsweep.info()["no_device_reason"],
              file=sys.stderr)
        return 2
    rng = np.random.default_rng()
    rows = []
    print(f"{'scene':>14} {'pairs':>10} {'C++ pairs':>10} {'C++ ms':>9} {'Python ms':>10}"
          f" {'overhead us':>12}")
    for scene in args.scenes.split(","):
        worlds_text, per_world_text = scene.split("x")
        worlds, per_world = count(worlds_text), count(per_world_text)
        boxes, ids = make_scene(worlds, per_world, 4.0, rng)
        cxx_runs, python_runs = [], []
        for _ in range(args.rounds):  # alternated, so that neither side gets a warmer GPU
            cxx_runs.append(time_cxx(args.bench, worlds, per_world, args.frames,
                                     args.warmup)["cuda-worlds-records"])
            times, pairs = time_python(cupy, boxes, ids, args.frames, args.warmup)
            python_runs.append(statistics.median(times))
        cxx = statistics.median(run["ms_median"] for run in cxx_runs)
        python = statistics.median(python_runs)
        row = {"bench": "python-calls", "algo": "python", "n": worlds * per_world,
               "dist": f"{per_world}/world", "mode": f"{worlds} worlds",
               "ms_median": python, "ms_min": min(python_runs), "ms_max": max(python_runs),
               "repetitions": args.rounds * args.frames, "pairs": pairs,
               "cxx_ms_median": cxx, "cxx_pairs": cxx_runs[0]["pairs"],
               "overhead_us": (python - cxx) * 1000.0}
        rows.append(row)
        print(f"{scene:>14} {pairs:>10} {cxx_runs[0]['pairs']:>10} {cxx:>9.4f} {python:>10.4f}"
              f" {row['overhead_us']:>12.1f}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"machine": radixsweep.info(), "rows": rows}, file, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
