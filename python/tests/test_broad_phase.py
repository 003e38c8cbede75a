"""radixsweep.BroadPhase against NumPy brute force: random and touching boxes of awkward
counts, filter bits and worlds, invalid boxes, region and ray queries, and every error a bad
argument gets."""

import numpy as np
import pytest

import radixsweep
from conftest import (brute_pairs, overlap_matrix, random_boxes, slab_entry, sorted_rows,
                      touching_boxes)


@pytest.mark.parametrize("n", [0, 1, 2, 97, 1009])
def test_pairs_match_brute_force(backend, rng, n):
    bp = radixsweep.BroadPhase(backend=backend)
    for frame in range(3):
        boxes = random_boxes(rng, n)
        bp.update(boxes)
        pairs = bp.find_pairs()
        assert pairs.dtype == np.uint32 and pairs.shape[1:] == (2,)
        assert np.all(pairs[:, 0] < pairs[:, 1])
        np.testing.assert_array_equal(sorted_rows(pairs), brute_pairs(boxes), f"frame {frame}")
        assert bp.stats["pairs"] == len(pairs)
        assert bp.stats["boxes"] == n


def test_touching_boxes_overlap(backend, rng):
    boxes = touching_boxes(rng, 500)
    bp = radixsweep.BroadPhase(backend=backend, sorted_pairs=True)
    bp.update(boxes)
    np.testing.assert_array_equal(bp.find_pairs(), brute_pairs(boxes))


def test_the_readmes_two_boxes_in_either_shape(backend):
    boxes = np.array([[0, 0, 0, 1, 1, 1], [1, 0.5, 0.5, 2, 2, 2]], np.float32)
    bp = radixsweep.BroadPhase(backend=backend)
    bp.update(boxes)
    np.testing.assert_array_equal(bp.find_pairs(), [[0, 1]])
    bp.update(boxes.reshape(2, 2, 3))
    np.testing.assert_array_equal(bp.find_pairs(), [[0, 1]])
    bp.update(boxes[0])  # one box: no pairs
    assert bp.find_pairs().shape == (0, 2)


def test_filter_bits_and_worlds(backend, rng):
    n = 601
    boxes = random_boxes(rng, n, extent=6.0)
    categories = rng.integers(1, 8, n).astype(np.uint32)
    masks = rng.integers(0, 8, n).astype(np.uint32)
    worlds = rng.integers(0, 5, n).astype(np.uint32)
    worlds[rng.random(n) < 0.05] = radixsweep.ALL_WORLDS
    bp = radixsweep.BroadPhase(backend=backend, sorted_pairs=True)
    bp.update(boxes, categories=categories, masks=masks, worlds=worlds)
    np.testing.assert_array_equal(bp.find_pairs(), brute_pairs(boxes, categories, masks, worlds))


def test_pairs_grouped_by_world(backend, rng):
    n = 300
    boxes = random_boxes(rng, n, extent=4.0)
    worlds = np.sort(rng.integers(0, 7, n)).astype(np.uint32)
    bp = radixsweep.BroadPhase(backend=backend, group_by_world=True)
    bp.update(boxes, worlds=worlds)
    pairs = bp.find_pairs()
    offsets = bp.world_pair_offsets()
    assert offsets.dtype == np.uint32 and len(offsets) == worlds.max() + 2
    for w in range(worlds.max() + 1):
        mine = pairs[offsets[w]:offsets[w + 1]]
        assert np.all(worlds[mine] == w)
        in_world = np.nonzero(worlds == w)[0]
        expected = in_world[brute_pairs(boxes[in_world])] if len(in_world) else np.zeros((0, 2))
        np.testing.assert_array_equal(sorted_rows(mine), sorted_rows(expected))


def test_invalid_boxes_are_rejected_or_excluded(backend, rng):
    boxes = random_boxes(rng, 50, extent=3.0)
    boxes[17, 1] = np.nan
    boxes[23, 3] = boxes[23, 0] - 1  # min > max on x
    bp = radixsweep.BroadPhase(backend=backend)
    with pytest.raises(radixsweep.InvalidArgumentError, match="box 17"):
        bp.update(boxes)
    assert issubclass(radixsweep.InvalidArgumentError, ValueError)
    assert bp.find_pairs().shape == (0, 2), "a failed frame has no pairs"
    excluding = radixsweep.BroadPhase(backend=backend, invalid_boxes="exclude", sorted_pairs=True)
    excluding.update(boxes)
    valid = np.ones(50, bool)
    valid[[17, 23]] = False
    expected = np.nonzero(valid)[0][brute_pairs(boxes[valid])]
    np.testing.assert_array_equal(excluding.find_pairs(), sorted_rows(expected))
    assert excluding.stats["excluded_boxes"] == 2


@pytest.mark.parametrize("queries", [0, 1, 53])
def test_region_queries_match_brute_force(backend, rng, queries):
    boxes = random_boxes(rng, 400)
    categories = rng.integers(1, 4, 400).astype(np.uint32)
    bp = radixsweep.BroadPhase(backend=backend)
    bp.update(boxes, categories=categories)
    regions = random_boxes(rng, queries, size=(0.0, 4.0))
    hits = bp.query(regions, mask=0b10)
    assert hits.dtype == radixsweep.box_query_hit_dtype
    met = overlap_matrix(regions, boxes) & ((categories & 0b10) != 0)[None, :]
    q, b = np.nonzero(met)
    np.testing.assert_array_equal(hits["query"], q)
    np.testing.assert_array_equal(hits["box"], b)


def test_rays_match_the_slab_test_bit_for_bit(backend, rng):
    boxes = touching_boxes(rng, 150)  # faces shared exactly: ties and rays along faces
    bp = radixsweep.BroadPhase(backend=backend)
    bp.update(boxes)
    origins = rng.integers(-1, 7, (61, 3)).astype(np.float32)
    directions = rng.integers(-2, 3, (61, 3)).astype(np.float32)  # zero components too
    directions[0] = 0
    ends = rng.choice(np.array([0, 1.5, 4, np.inf], np.float32), 61)
    rays = np.concatenate([origins, directions, ends[:, None]], axis=1).astype(np.float32)
    nearest = bp.raycast(rays)
    every = bp.raycast(rays, all_hits=True)
    assert nearest.dtype == radixsweep.box_ray_hit_dtype
    expected_every = []
    expected_nearest = []
    for r, ray in enumerate(rays):
        entered = [(slab_entry(ray, box), b) for b, box in enumerate(boxes)]
        entered = sorted((t, b) for t, b in entered if t is not None)
        expected_every += [(r, b, t) for t, b in entered]
        if entered:
            expected_nearest.append((r, entered[0][1], entered[0][0]))
    for got, expected in ((nearest, expected_nearest), (every, expected_every)):
        assert len(got) == len(expected)
        for hit, (r, b, t) in zip(got, expected):
            assert (hit["ray"], hit["box"]) == (r, b)
            assert hit["t"].tobytes() == np.float32(t).tobytes(), f"ray {r} box {b}"


def test_rays_without_an_end(backend):
    bp = radixsweep.BroadPhase(backend=backend)
    bp.update(np.array([[5, -1, -1, 6, 1, 1]], np.float32))
    hits = bp.raycast(np.array([[0, 0, 0, 1, 0, 0]], np.float32))
    assert len(hits) == 1 and hits[0]["t"] == 5


def test_bad_arguments_say_what_was_expected(backend):
    bp = radixsweep.BroadPhase(backend=backend)
    good = np.zeros((3, 6), np.float32)
    with pytest.raises(TypeError, match="boxes: expected float32, got float64"):
        bp.update(np.zeros((3, 6)))
    with pytest.raises(TypeError, match=r"boxes: expected a NumPy array .* got builtins.list"):
        bp.update([[0, 0, 0, 1, 1, 1]])
    with pytest.raises(ValueError, match=r"boxes: expected shape \(n, 6\) or \(n, 2, 3\), got \(3, 5\)"):
        bp.update(np.zeros((3, 5), np.float32))
    with pytest.raises(ValueError, match="boxes: expected a C-contiguous array"):
        bp.update(np.zeros((6, 3), np.float32).T)
    with pytest.raises(ValueError, match=r"categories: expected shape \(3,\), one per box, got \(2,\)"):
        bp.update(good, categories=np.ones(2, np.uint32))
    with pytest.raises(TypeError, match="masks: expected uint32, got int64"):
        bp.update(good, masks=np.ones(3, np.int64))
    with pytest.raises(ValueError, match="boxes: a masked array cannot be read"):
        bp.update(np.ma.masked_array(good, mask=np.zeros_like(good, bool)))
    unaligned = np.frombuffer(bytes(3 * 24 + 1), np.uint8)[1:].view(np.float32).reshape(3, 6)
    with pytest.raises(ValueError, match="boxes: expected an aligned array"):
        bp.update(unaligned)
    with pytest.raises(ValueError, match=r"rays: expected shape \(n, 7\) or \(n, 6\)"):
        bp.raycast(np.zeros((2, 5), np.float32))
    with pytest.raises(radixsweep.InvalidArgumentError, match="vulkan"):
        radixsweep.BroadPhase(backend="vulkan")
    with pytest.raises(radixsweep.InvalidArgumentError, match="mode 'diagonal': one of cells, axis_sweep"):
        radixsweep.BroadPhase(mode="diagonal")
    with pytest.raises(TypeError):
        radixsweep.BroadPhase("cpu")  # options are keywords
    with pytest.raises(TypeError, match="stream: expected a CUDA stream as an int handle"):
        radixsweep.BroadPhase(backend=backend, stream="default")
    with pytest.raises(ValueError, match="stream: expected a CUDA stream as an int handle"):
        radixsweep.BroadPhase(backend=backend, stream=2**64)
    bp.update(good)
    for world in (-1, 2**32):
        with pytest.raises(ValueError, match=r"world: expected a world id \(0 .. MAX_WORLD\) or None"):
            bp.query(good, world=world)
    with pytest.raises(TypeError, match=r"world: expected a world id \(0 .. MAX_WORLD\) or None"):
        bp.query(good, world="first")
    assert len(bp.query(good, world=np.uint32(0))) == len(bp.query(good, world=0))  # NumPy ints


def test_a_region_that_is_not_a_box_is_an_error(backend):
    bp = radixsweep.BroadPhase(backend=backend)
    bp.update(np.zeros((2, 6), np.float32))
    with pytest.raises(radixsweep.InvalidArgumentError, match="regions: box 1"):
        bp.query(np.array([[0, 0, 0, 1, 1, 1], [0, 0, 0, -1, 1, 1]], np.float32))


def test_info_and_the_docs():
    info = radixsweep.info()
    assert info["version"] == radixsweep.__version__
    assert info["default_backend"] in ("cpu", "cuda")
    assert isinstance(info["devices"], list)
    assert "sweep-and-prune" in radixsweep.BroadPhase.__doc__
    assert "found" in radixsweep.World.events.__doc__


def test_an_object_takes_one_call_at_a_time(rng):
    """A second thread calling an object whose call is under way (the GIL released meanwhile)
    gets a RuntimeError rather than racing on it; objects of their own work side by side."""
    import threading
    boxes = random_boxes(rng, 20000, extent=60.0)
    shared = radixsweep.BroadPhase(backend="cpu")
    errors = []

    def work(bp):
        try:
            for _ in range(30):
                bp.update(boxes)
                bp.find_pairs()
        except RuntimeError as error:
            errors.append(str(error))

    threads = [threading.Thread(target=work, args=(shared,)) for _ in range(3)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert all("BroadPhase is in use by another thread" in e for e in errors)
    expected = brute_pairs(boxes[:2000])
    own = [radixsweep.BroadPhase(backend="cpu") for _ in range(3)]
    results = [None] * 3

    def alone(k):
        own[k].update(boxes[:2000])
        results[k] = sorted_rows(own[k].find_pairs())

    threads = [threading.Thread(target=alone, args=(k,)) for k in range(3)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    for result in results:
        np.testing.assert_array_equal(result, expected)

