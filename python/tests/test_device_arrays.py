"""Arrays in device memory: inputs by __cuda_array_interface__ and __dlpack__ used in place,
results as DeviceArray read through both protocols without a copy (pointers checked), valid
until the call that replaces them. The GPU tests need CuPy (and PyTorch for DLPack) and a
device with the GPU backend; elsewhere they skip saying so. The checks a device array's
description gets run everywhere: they fail before any device memory is read."""

import numpy as np
import pytest

import radixsweep
from conftest import brute_pairs, overlap_matrix, random_boxes, sorted_rows


class FakeDeviceArray:
    """Describes device memory it does not have (at an address no allocation has): what the
    argument checks see first."""

    def __init__(self, shape, typestr="<f4", strides=None, mask=None, data=256):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (data, True), "strides": strides,
            "version": 3, "mask": mask, "stream": None,
        }


class Described:
    """An object whose __cuda_array_interface__ is whatever it is given."""

    def __init__(self, interface):
        self.interface = interface

    @property
    def __cuda_array_interface__(self):
        if isinstance(self.interface, BaseException):
            raise self.interface
        return self.interface


class OnDevice:
    """NumPy's DLPack capsule of `array`, presented as CUDA memory: rejected before it is read."""

    def __init__(self, array, device=(2, 0)):
        self.array = array
        self.device = device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()


def test_device_array_descriptions_are_checked_first():
    world = radixsweep.World(backend="cpu")
    with pytest.raises(TypeError, match="boxes: expected float32, got float64"):
        world.create(FakeDeviceArray((3, 6), "<f8"))
    with pytest.raises(ValueError, match=r"boxes: expected shape \(n, 6\) or \(n, 2, 3\), got \(3, 5\)"):
        world.create(FakeDeviceArray((3, 5)))
    with pytest.raises(ValueError, match="boxes: expected a C-contiguous array in device memory"):
        world.create(FakeDeviceArray((3, 6), strides=(4, 12)))
    with pytest.raises(ValueError, match="boxes: a masked array cannot be read"):
        world.create(FakeDeviceArray((3, 6), mask=object()))
    on_stream_zero = FakeDeviceArray((3, 6))
    on_stream_zero.__cuda_array_interface__["stream"] = 0
    with pytest.raises(ValueError, match="boxes: __cuda_array_interface__ names stream 0"):
        world.create(on_stream_zero)
    with pytest.raises(TypeError, match="ids: expected ids in device memory as uint64"):
        world.destroy(FakeDeviceArray((3,), "<u4"))
    with pytest.raises(TypeError, match="move: ids and boxes both in host memory or both on the device"):
        world.move(np.zeros(1, np.uint64), FakeDeviceArray((1, 6)))
    with pytest.raises(ValueError, match=r"rays: expected shape \(n, 7\)"):
        world.raycast(FakeDeviceArray((2, 6)))
    bp = radixsweep.BroadPhase(backend="cpu")
    with pytest.raises(TypeError, match="categories: expected an array in device memory, as the boxes are"):
        bp.update(FakeDeviceArray((2, 6)), categories=np.ones(2, np.uint32))


def test_malformed_descriptions_are_errors_naming_the_argument():
    world = radixsweep.World(backend="cpu")
    bp = radixsweep.BroadPhase(backend="cpu")
    good = FakeDeviceArray((3, 6)).__cuda_array_interface__
    for broken in ({k: v for k, v in good.items() if k != "shape"}, dict(good, data=None),
                   dict(good, stream="1"), ["not", "a", "dict"]):
        with pytest.raises(ValueError, match="boxes: (a malformed __cuda_array_interface__|"
                                             "__cuda_array_interface__ is not a dict)"):
            bp.update(Described(broken))
    for typestr in ("<f4junk", "|f4", "<fxx", "<f-4", "<f9999999999", ">f4"):
        with pytest.raises(TypeError, match="boxes: expected a little-endian number type"):
            bp.update(Described(dict(good, typestr=typestr)))
    with pytest.raises(ValueError, match="boxes: __cuda_array_interface__ has 1 strides for 2 axes"):
        bp.update(Described(dict(good, strides=(24,))))
    with pytest.raises(ValueError, match=r"ids: a negative extent in shape \(-2,\)"):
        world.destroy(FakeDeviceArray((-2,), "<u8"))
    with pytest.raises(ValueError, match="boxes: a null data pointer for 3 rows"):
        bp.update(FakeDeviceArray((3, 6), data=0))
    with pytest.raises(RuntimeError, match="the producer's own error"):
        bp.update(Described(RuntimeError("the producer's own error")))
    with pytest.raises(TypeError, match=r"boxes: __dlpack_device__\(\) returned 'cuda'"):
        bp.update(OnDevice(np.ones((3, 6), np.float32), device="cuda"))


def test_a_rejected_dlpack_tensor_is_given_back():
    """The producer's deleter runs when the array is rejected, as when it is used."""
    import sys
    array = np.ones((100, 100), np.float32)[:, :6]  # not C-contiguous
    before = sys.getrefcount(array)
    bp = radixsweep.BroadPhase(backend="cpu")
    for _ in range(3):
        with pytest.raises(ValueError, match="boxes: expected a C-contiguous array"):
            bp.update(OnDevice(array))
    assert sys.getrefcount(array) == before


def test_ids_in_plain_integers(backend):
    world = radixsweep.World(backend=backend)
    ids = world.create(np.zeros((3, 6), np.float32), user=5)
    as_uint64 = ids.view(np.uint64)
    as_pairs = ids.view(np.uint32).reshape(3, 2)
    assert world.user(as_uint64[1:2]) == 5
    assert world.user(as_uint64[1]) == 5  # a NumPy uint64 scalar: one id
    world.move(as_pairs, np.ones((3, 6), np.float32))
    world.destroy(as_uint64)
    world.step()
    assert world.stats["proxies"] == 0


def gpu_modules():
    """CuPy, and PyTorch when it is there, on a machine whose GPU backend runs."""
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    if not radixsweep.info()["devices"]:
        pytest.skip("no CUDA device: " + radixsweep.info()["no_device_reason"])
    try:
        import torch
        torch = torch if torch.cuda.is_available() else None
    except ImportError:
        torch = None
    return cupy, torch


def pointer(array):
    return array.__cuda_array_interface__["data"][0]


def test_broad_phase_on_device_arrays(rng):
    cupy, torch = gpu_modules()
    boxes = random_boxes(rng, 2003)
    worlds = rng.integers(0, 3, 2003).astype(np.uint32)
    bp = radixsweep.BroadPhase(backend="gpu")
    device_boxes = cupy.asarray(boxes)
    bp.update(device_boxes, worlds=cupy.asarray(worlds))
    pairs = bp.find_pairs(device=True)
    assert isinstance(pairs, radixsweep.DeviceArray) and pairs.dtype == np.uint32
    as_cupy = cupy.asarray(pairs)
    assert as_cupy.data.ptr == pointer(pairs), "read in place"
    np.testing.assert_array_equal(sorted_rows(cupy.asnumpy(as_cupy)),
                                  brute_pairs(boxes, worlds=worlds))
    if torch is not None:
        as_torch = torch.utils.dlpack.from_dlpack(pairs)
        assert as_torch.data_ptr() == pointer(pairs)
        tensor_boxes = torch.from_numpy(boxes).cuda()
        bp.update(tensor_boxes)  # by DLPack
        np.testing.assert_array_equal(sorted_rows(bp.find_pairs()), brute_pairs(boxes))
    regions = random_boxes(rng, 31, size=(0.0, 3.0))
    hits = cupy.asnumpy(cupy.asarray(bp.query(cupy.asarray(regions))))
    q, b = np.nonzero(overlap_matrix(regions, boxes))
    np.testing.assert_array_equal(hits, np.stack([q, b], axis=1))
    bp.update(device_boxes)
    with pytest.raises(radixsweep.InvalidArgumentError, match="valid until the BroadPhase's next update"):
        cupy.asarray(pairs)


def test_world_on_device_arrays(rng):
    cupy, torch = gpu_modules()
    world = radixsweep.World(backend="gpu", sorted_events=True)
    boxes = random_boxes(rng, 1009, extent=8.0)
    ids = world.create(cupy.asarray(boxes))
    assert isinstance(ids, radixsweep.DeviceArray) and ids.dtype == np.uint64 and ids.shape == (1009,)
    world.step()
    host_ids = cupy.asnumpy(cupy.asarray(ids)).view(radixsweep.proxy_id_dtype)
    pairs = world.pairs(device=True)
    found, lost = world.events(device=True)
    as_cupy = cupy.asarray(pairs)
    assert as_cupy.data.ptr == pointer(pairs)
    expected = brute_pairs(boxes)
    got = cupy.asnumpy(as_cupy)
    by_id = {int(i): k for k, i in enumerate(host_ids.view(np.uint64))}
    np.testing.assert_array_equal(sorted_rows([[by_id[int(a)], by_id[int(b)]] for a, b in got]),
                                  expected)
    assert len(found) == len(expected) and len(lost) == 0
    moved = boxes + np.float32(0.3)
    world.move(ids, cupy.asarray(moved))  # device ids straight from create
    world.step()
    with pytest.raises(radixsweep.InvalidArgumentError, match="valid until the World's next step"):
        cupy.asarray(pairs)
    if torch is not None:
        rays = np.concatenate([rng.uniform(0, 8, (50, 3)), rng.normal(size=(50, 3)),
                               np.full((50, 1), np.inf)], axis=1).astype(np.float32)
        device_hits = torch.utils.dlpack.from_dlpack(world.raycast(torch.from_numpy(rays).cuda()))
        host_hits = world.raycast(rays)
        words = device_hits.cpu().numpy()
        np.testing.assert_array_equal(words[:, 0], host_hits["ray"])
        np.testing.assert_array_equal(words[:, 3].view(np.float32), host_hits["t"])
    world.destroy(ids)
    world.step()
    assert world.stats["proxies"] == 0 and world.stats["lost"] > 0


SPIN_THEN_COPY = r"""
extern "C" __global__ void spin_then_copy(const float* source, float* target, int count,
                                          unsigned long long nanoseconds) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < nanoseconds);
    for (int i = 0; i < count; ++i) target[i] = source[i];
}
"""


def test_inputs_ready_on_another_stream(rng):
    """An interface naming a stream of the producer's own, whose boxes are written there only
    after 50 ms of spinning: the frame is ordered after that stream on the device (on the
    library's stream and on the caller's), so it reads the boxes, not the zeros before them."""
    cupy, _ = gpu_modules()
    boxes = random_boxes(rng, 2003)
    expected = brute_pairs(boxes)
    spin_then_copy = cupy.RawKernel(SPIN_THEN_COPY, "spin_then_copy")
    producers = [cupy.cuda.Stream(non_blocking=True)]
    if hasattr(cupy.cuda.Stream, "ptds"):  # the per-thread default stream (2)
        producers.append(cupy.cuda.Stream.ptds)
    consumer = cupy.cuda.Stream(non_blocking=True)
    source = cupy.asarray(boxes)
    for producer in producers:
        for bp in (radixsweep.BroadPhase(backend="gpu"),
                   radixsweep.BroadPhase(backend="gpu", stream=consumer.ptr)):
            with producer:
                device_boxes = cupy.zeros_like(source)
                spin_then_copy((1,), (1,), (source, device_boxes, np.int32(source.size),
                                            np.uint64(50_000_000)))
                assert device_boxes.__cuda_array_interface__["stream"] == (
                    2 if producer is not producers[0] else producer.ptr)
                bp.update(device_boxes)
            np.testing.assert_array_equal(sorted_rows(bp.find_pairs()), expected)
