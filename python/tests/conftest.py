"""Fixtures of the radixsweep tests: the backend under test (RSW_TEST_BACKEND: cpu by default,
gpu on the GPU machine), fresh random generators whose seeds a failure reports, and NumPy
brute force."""

import os

import numpy as np
import pytest

import radixsweep


@pytest.fixture
def backend():
    name = os.environ.get("RSW_TEST_BACKEND", "cpu")
    if name == "gpu" and not radixsweep.info()["devices"]:
        pytest.skip("no CUDA device: " + radixsweep.info()["no_device_reason"])
    return name


@pytest.fixture
def rng(request):
    seed = int.from_bytes(os.urandom(4), "little")
    request.node.user_properties.append(("seed", seed))
    print(f"seed {seed}")
    return np.random.default_rng(seed)


def random_boxes(rng, n, extent=10.0, size=(0.2, 2.0)):
    """n boxes in a cube of side `extent`, edges in `size`: float32 (n, 6)."""
    low = rng.uniform(0, extent, (n, 3)).astype(np.float32)
    edge = rng.uniform(size[0], size[1], (n, 3)).astype(np.float32)
    return np.concatenate([low, low + edge], axis=1).astype(np.float32)


def touching_boxes(rng, n):
    """Unit boxes on an integer grid: many share faces, edges or corners exactly."""
    low = rng.integers(0, 6, (n, 3)).astype(np.float32)
    return np.concatenate([low, low + 1], axis=1).astype(np.float32)


def overlap_matrix(a, b):
    """[i, j]: closed boxes a[i] and b[j] overlap on every axis."""
    return np.all(
        (a[:, None, :3] <= b[None, :, 3:]) & (b[None, :, :3] <= a[:, None, 3:]), axis=2
    )


def brute_pairs(boxes, categories=None, masks=None, worlds=None):
    """The pairs (i, j), i < j, of overlapping boxes that the filter bits and worlds admit,
    sorted: (m, 2) uint32."""
    n = len(boxes)
    if n == 0:
        return np.zeros((0, 2), np.uint32)
    ok = overlap_matrix(boxes, boxes)
    if categories is not None or masks is not None:
        c = categories if categories is not None else np.ones(n, np.uint32)
        m = masks if masks is not None else np.full(n, 0xFFFFFFFF, np.uint32)
        ok &= ((c[:, None] & m[None, :]) != 0) & ((c[None, :] & m[:, None]) != 0)
    if worlds is not None:
        w = worlds
        every = radixsweep.ALL_WORLDS
        ok &= (w[:, None] == w[None, :]) | (w[:, None] == every) | (w[None, :] == every)
    i, j = np.nonzero(np.triu(ok, k=1))
    return np.stack([i, j], axis=1).astype(np.uint32)


def sorted_rows(pairs):
    """Rows of an (m, 2) array in lexicographic order."""
    pairs = np.asarray(pairs)
    if len(pairs) == 0:
        return pairs.reshape(0, 2)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def slab_entry(ray, box):
    """Where a ray (7 float32) enters a box (6 float32) by the documented float32 slab test,
    or None."""
    f = np.float32
    enter = f(0)
    leave = f(ray[6])
    for axis in range(3):
        o, d = f(ray[axis]), f(ray[3 + axis])
        low, high = f(box[axis]), f(box[3 + axis])
        if d == 0:
            if not (low <= o <= high):
                return None
            continue
        t1 = f(f(low - o) / d)
        t2 = f(f(high - o) / d)
        enter = max(enter, min(t1, t2))
        leave = min(leave, max(t1, t2))
    if not enter <= leave:
        return None
    return f(enter) + f(0)  # never -0
