"""Thousands of small worlds stepped in one broad-phase frame: each world's boxes carry its id
(worlds never pair with each other), the pairs come grouped by world, and each world reads its
own through the offsets. The boxes drift a little each frame, as an RL environment's bodies
would.

    python3 examples/python/worlds_loop.py [--worlds 4096] [--boxes-per-world 16]
"""

import argparse
import time

import numpy as np

import radixsweep


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=4096)
    parser.add_argument("--boxes-per-world", type=int, default=16)
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()

    rng = np.random.default_rng(1)
    n = args.worlds * args.boxes_per_world
    # Every world's boxes in the same 3 x 3 x 3 room, world w's at [w * k, (w + 1) * k).
    low = rng.uniform(0, 3, (n, 3)).astype(np.float32)
    boxes = np.concatenate([low, low + 0.6], axis=1).astype(np.float32)
    worlds = np.repeat(np.arange(args.worlds, dtype=np.uint32), args.boxes_per_world)

    bp = radixsweep.BroadPhase(backend=args.backend, group_by_world=True, stage_times=False)
    start = time.perf_counter()
    for _ in range(args.frames):
        boxes += rng.uniform(-0.01, 0.01, (n, 1)).astype(np.float32)  # each box drifts
        bp.update(boxes, worlds=worlds)
        pairs = bp.find_pairs()
        offsets = bp.world_pair_offsets()
    seconds = (time.perf_counter() - start) / args.frames

    per_world = np.diff(offsets[: args.worlds + 1])
    busiest = int(np.argmax(per_world))
    first = pairs[offsets[busiest]:offsets[busiest + 1]][:3]
    print(f"{args.worlds} worlds x {args.boxes_per_world} boxes on {bp.backend}: "
          f"{len(pairs)} pairs, {per_world.mean():.1f} a world, {seconds * 1e3:.3f} ms a frame")
    print(f"world {busiest} has the most, {per_world[busiest]}: "
          + ", ".join(f"({a}, {b})" for a, b in first) + (" ..." if per_world[busiest] > 3 else ""))


if __name__ == "__main__":
    main()
