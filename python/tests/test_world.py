"""radixsweep.World over random scripts of creates, moves and destroys (static and moving,
touching faces, the world emptied and refilled): each step's pairs, found and lost equal to a
brute-force diff of consecutive pair sets; stale ids, statics, user values, queries, errors."""

import numpy as np
import pytest

import radixsweep
from conftest import overlap_matrix, random_boxes, slab_entry


def id_key(ids):
    """Proxy ids as Python tuples (index, generation)."""
    return [(int(i["index"]), int(i["generation"])) for i in np.atleast_1d(ids)]


def pair_set(pairs):
    return {tuple(map(tuple, id_key(p))) for p in pairs}


class Oracle:
    """The proxies a script made, and their pairs by brute force."""

    def __init__(self):
        self.boxes = {}  # id -> box
        self.motion = {}

    def pairs(self):
        ids = sorted(self.boxes)
        if not ids:
            return set()
        boxes = np.array([self.boxes[i] for i in ids], np.float32)
        statics = np.array([self.motion[i] == "static" for i in ids])
        ok = overlap_matrix(boxes, boxes) & ~(statics[:, None] & statics[None, :])
        i, j = np.nonzero(np.triu(ok, k=1))
        return {(ids[a], ids[b]) for a, b in zip(i, j)}


def test_random_scripts_match_a_brute_force_diff(backend, rng):
    world = radixsweep.World(backend=backend, sorted_events=True)
    oracle = Oracle()
    before = set()
    for step in range(60):
        action = rng.random()
        live = list(oracle.boxes)
        if action < 0.3 or not live:
            n = int(rng.integers(0, 40))
            motion = "static" if rng.random() < 0.4 else "moving"
            boxes = random_boxes(rng, n, extent=8.0)
            if rng.random() < 0.3:  # on a grid: touching faces
                boxes = np.floor(boxes)
                boxes[:, 3:] = boxes[:, :3] + 1
            ids = world.create(boxes, motion=motion)
            assert ids.dtype == radixsweep.proxy_id_dtype and ids.shape == (n,)
            for key, box in zip(id_key(ids), boxes):
                oracle.boxes[key] = box
                oracle.motion[key] = motion
        elif action < 0.75:
            chosen = [live[k] for k in rng.choice(len(live), min(len(live), 30), replace=False)]
            boxes = random_boxes(rng, len(chosen), extent=8.0)
            ids = np.array(chosen, radixsweep.proxy_id_dtype)
            world.move(ids, boxes)
            for key, box in zip(chosen, boxes):
                oracle.boxes[key] = box
        elif action < 0.95:
            count = len(live) if rng.random() < 0.1 else min(len(live), 10)  # sometimes all
            chosen = [live[k] for k in rng.choice(len(live), count, replace=False)]
            world.destroy(np.array(chosen, radixsweep.proxy_id_dtype))
            for key in chosen:
                del oracle.boxes[key]
        # else: a step with no changes
        world.step()
        now = oracle.pairs()
        found, lost = world.events()
        assert pair_set(world.pairs()) == now, f"step {step}"
        assert pair_set(found) == now - before, f"step {step}"
        assert pair_set(lost) == before - now, f"step {step}"
        for events in (found, lost):  # sorted by (a, b), a < b
            keys = [tuple(map(tuple, id_key(p))) for p in events]
            assert keys == sorted(keys) and all(a < b for a, b in keys)
        stats = world.stats
        assert (stats["pairs"], stats["found"], stats["lost"]) == (len(now), len(found), len(lost))
        before = now


def test_stale_ids_are_errors_never_another_proxy(backend):
    world = radixsweep.World(backend=backend)
    box = np.array([0, 0, 0, 1, 1, 1], np.float32)
    first = world.create(box, user=7)
    assert world.user(first[0]) == 7
    world.destroy(first)
    world.step()
    world.step()
    second = world.create(box, user=8)  # may take the first's slot, with a new generation
    with pytest.raises(radixsweep.InvalidArgumentError):
        world.move(first, box[None, :])
    with pytest.raises(radixsweep.InvalidArgumentError):
        world.user(first)
    with pytest.raises(radixsweep.InvalidArgumentError):
        world.destroy(np.concatenate([second, second]))  # a repeat is stale
    assert world.user(second) == 8


def test_statics_pair_only_with_moving_proxies(backend):
    world = radixsweep.World(backend=backend)
    ground = world.create(np.array([[-5, -1, -5, 5, 0, 5], [0, -0.5, 0, 1, 0, 1]], np.float32),
                          motion="static")
    crate = world.create(np.array([0, 0, 0, 1, 1, 1], np.float32))
    world.step()
    assert pair_set(world.pairs()) == {(id_key(g)[0], id_key(crate)[0]) for g in ground}
    world.move(crate, np.array([[0, 5, 0, 1, 6, 1]], np.float32))
    world.step()
    found, lost = world.events()
    assert len(found) == 0 and len(lost) == 2 and len(world.pairs()) == 0


def test_queries_name_proxies(backend, rng):
    world = radixsweep.World(backend=backend)
    boxes = random_boxes(rng, 300)
    ids = world.create(boxes, category=2)
    world.step()
    regions = random_boxes(rng, 31, size=(0.0, 3.0))
    hits = world.query(regions)
    assert hits.dtype == radixsweep.query_hit_dtype
    q, b = np.nonzero(overlap_matrix(regions, boxes))
    expected = sorted(zip(q.tolist(), id_key(ids[b])))
    assert list(zip(hits["query"].tolist(), id_key(hits["proxy"]))) == expected
    assert len(world.query(regions, mask=1)) == 0
    rays = np.concatenate([rng.uniform(0, 10, (17, 3)), rng.normal(size=(17, 3)),
                           np.full((17, 1), np.inf)], axis=1).astype(np.float32)
    nearest = world.raycast(rays)
    assert nearest.dtype == radixsweep.ray_hit_dtype
    by_slot = {key: box for key, box in zip(id_key(ids), boxes)}
    for hit in nearest:
        ray = rays[hit["ray"]]
        t = slab_entry(ray, by_slot[id_key(hit["proxy"])[0]])
        assert t is not None and np.float32(t) == hit["t"]
        others = [slab_entry(ray, box) for box in boxes]
        assert hit["t"] == min(x for x in others if x is not None)


def test_bad_arguments_say_what_was_expected(backend):
    world = radixsweep.World(backend=backend)
    ids = world.create(np.zeros((3, 6), np.float32))
    with pytest.raises(TypeError, match=r"ids: expected radixsweep.proxy_id_dtype \(or uint64 \(n,\), uint32 \(n, 2\)\), got uint32"):
        world.move(np.zeros(3, np.uint32), np.zeros((3, 6), np.float32))
    with pytest.raises(ValueError, match="move: 3 ids and 2 boxes"):
        world.move(ids, np.zeros((2, 6), np.float32))
    with pytest.raises(radixsweep.InvalidArgumentError, match="motion 'flying': one of moving, static"):
        world.create(np.zeros(6, np.float32), motion="flying")
    bad = np.zeros((1, 6), np.float32)
    bad[0, 4] = np.nan
    with pytest.raises(radixsweep.InvalidArgumentError):
        world.create(bad)
