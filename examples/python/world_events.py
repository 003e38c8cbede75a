"""A World with events: crates fall onto a static floor a step at a time; each step prints the
contacts that began and ended (World.events()), and a region query at the end asks what lies
near the floor's centre.

    python3 examples/python/world_events.py [--backend cpu]
"""

import argparse

import numpy as np

import radixsweep


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args()

    world = radixsweep.World(backend=args.backend, sorted_events=True)
    floor = world.create(np.array([-4, -1, -4, 4, 0, 4], np.float32), motion="static", user=100)
    # Three crates in a column, 1.5 apart, and one off to the side.
    low = np.array([[0, 1, 0], [0.2, 2.5, 0.1], [-0.1, 4, 0.2], [3, 2, 3]], np.float32)
    crates = world.create(np.concatenate([low, low + 1], axis=1))
    names = {(int(floor[0]["index"]), int(floor[0]["generation"])): "floor"}
    for k, crate in enumerate(crates):
        names[(int(crate["index"]), int(crate["generation"]))] = f"crate {k}"

    def name(proxy):
        return names[(int(proxy["index"]), int(proxy["generation"]))]

    for step in range(args.steps):
        world.step()
        found, lost = world.events()
        for a, b in found:
            print(f"step {step}: {name(a)} begins touching {name(b)}")
        for a, b in lost:
            print(f"step {step}: {name(a)} stops touching {name(b)}")
        low[:, 1] = np.maximum(low[:, 1] - 0.5, [0, 1, 2, 0])  # fall, and come to rest in a stack
        world.move(crates, np.concatenate([low, low + 1], axis=1))

    near = world.query(np.array([-1, -1, -1, 1, 1, 1], np.float32))
    print("near the centre:", ", ".join(name(hit["proxy"]) for hit in near))
    print(f"{world.stats['pairs']} contacts now, on {world.backend}")


if __name__ == "__main__":
    main()
