"""RadixSweep: exact broad-phase collision detection on the GPU or the CPU.

    import numpy as np
    import radixsweep

    bp = radixsweep.BroadPhase(backend="auto")
    bp.update(np.array([[0, 0, 0, 1, 1, 1], [1, 0.5, 0.5, 2, 2, 2]], np.float32))
    print(bp.find_pairs())          # [[0 1]]: boxes that touch overlap

    world = radixsweep.World()
    ids = world.create(boxes)       # (n,) proxy_id_dtype
    world.step()
    found, lost = world.events()

Boxes are float32 arrays of shape (n, 6) or (n, 2, 3): min x, y, z, max x, y, z. Results are
new NumPy arrays. Arrays in device memory (CuPy, PyTorch: __cuda_array_interface__ or
__dlpack__) are used where they lie and give DeviceArray results. radixsweep.info() names the
build and the device.
"""

from ._radixsweep import (
    ALL_WORLDS,
    MAX_WORLD,
    BroadPhase,
    DeviceArray,
    Error,
    InvalidArgumentError,
    OutOfMemoryError,
    World,
    box_query_hit_dtype,
    box_ray_hit_dtype,
    info,
    proxy_id_dtype,
    query_hit_dtype,
    ray_hit_dtype,
)

__all__ = [
    "ALL_WORLDS",
    "MAX_WORLD",
    "BroadPhase",
    "DeviceArray",
    "Error",
    "InvalidArgumentError",
    "OutOfMemoryError",
    "World",
    "box_query_hit_dtype",
    "box_ray_hit_dtype",
    "info",
    "proxy_id_dtype",
    "query_hit_dtype",
    "ray_hit_dtype",
]
__version__ = info()["version"]

for _class in (BroadPhase, DeviceArray, World):
    _class.__module__ = __name__  # help() and reprs say radixsweep.World
del _class
