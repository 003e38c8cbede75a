# Type stubs of radixsweep (the module _radixsweep, re-exported).
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

__version__: str

ALL_WORLDS: int
MAX_WORLD: int

proxy_id_dtype: np.dtype[np.void]
query_hit_dtype: np.dtype[np.void]
ray_hit_dtype: np.dtype[np.void]
box_query_hit_dtype: np.dtype[np.void]
box_ray_hit_dtype: np.dtype[np.void]

class DeviceArray:
    """A result in device memory (__cuda_array_interface__, __dlpack__)."""
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...
    def __dlpack__(self, *, stream: int | None = None) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    def __len__(self) -> int: ...

class Error(RuntimeError): ...
class InvalidArgumentError(Error, ValueError): ...
class OutOfMemoryError(Error, MemoryError): ...

Backend = Literal["auto", "cpu", "gpu", "cuda"]
Sort = Literal["auto", "cpu", "fourway", "onesweep"]
Axis = Literal["x", "y", "z", "largest_variance"]
InvalidBoxes = Literal["reject", "exclude"]
# Host arrays, or arrays in device memory (CuPy, PyTorch, ...: any object with
# __cuda_array_interface__ or __dlpack__).
Boxes = npt.NDArray[np.float32] | Any
Rays = npt.NDArray[np.float32] | Any
Ids = npt.NDArray[np.void] | npt.NDArray[np.uint64] | npt.NDArray[np.uint32] | DeviceArray | Any
UInt32s = npt.NDArray[np.uint32] | Any

def info() -> dict[str, Any]: ...

class BroadPhase:
    def __init__(
        self,
        *,
        backend: Backend = "auto",
        sort: Sort = "auto",
        mode: Literal["cells", "axis_sweep"] = "cells",
        axis: Axis = "x",
        invalid_boxes: InvalidBoxes = "reject",
        sorted_pairs: bool = False,
        group_by_world: bool = False,
        stage_times: bool = True,
        brute_force: bool = False,
        stream: int | None = None,
    ) -> None: ...
    def update(
        self,
        boxes: Boxes,
        categories: UInt32s | None = None,
        masks: UInt32s | None = None,
        worlds: UInt32s | None = None,
    ) -> None: ...
    def find_pairs(self, *, device: bool = False) -> UInt32s | DeviceArray: ...
    def world_pair_offsets(self, *, device: bool = False) -> UInt32s | DeviceArray: ...
    def query(
        self, regions: Boxes, *, mask: int = 0xFFFFFFFF, world: int | None = None
    ) -> npt.NDArray[np.void] | DeviceArray: ...
    def raycast(
        self,
        rays: Rays,
        *,
        all_hits: bool = False,
        mask: int = 0xFFFFFFFF,
        world: int | None = None,
    ) -> npt.NDArray[np.void] | DeviceArray: ...
    @property
    def stats(self) -> dict[str, Any]: ...
    @property
    def backend(self) -> Literal["cpu", "cuda"]: ...

class World:
    def __init__(
        self,
        *,
        backend: Backend = "auto",
        sort: Sort = "auto",
        axis: Axis = "x",
        invalid_boxes: InvalidBoxes = "reject",
        sorted_events: bool = False,
        stage_times: bool = True,
        brute_force: bool = False,
        stream: int | None = None,
    ) -> None: ...
    def create(
        self,
        boxes: Boxes,
        *,
        motion: Literal["moving", "static"] = "moving",
        category: int = 1,
        mask: int = 0xFFFFFFFF,
        world: int = 0,
        user: int = 0,
    ) -> Ids | DeviceArray: ...
    def move(self, ids: Ids, boxes: Boxes) -> None: ...
    def destroy(self, ids: Ids) -> None: ...
    def step(self) -> None: ...
    def events(self, *, device: bool = False) -> tuple[Ids, Ids]: ...
    def pairs(self, *, device: bool = False) -> Ids: ...
    def query(
        self, regions: Boxes, *, mask: int = 0xFFFFFFFF, world: int | None = None
    ) -> npt.NDArray[np.void] | DeviceArray: ...
    def raycast(
        self,
        rays: Rays,
        *,
        all_hits: bool = False,
        mask: int = 0xFFFFFFFF,
        world: int | None = None,
    ) -> npt.NDArray[np.void] | DeviceArray: ...
    def user(self, id: Ids | np.void) -> int: ...
    @property
    def stats(self) -> dict[str, Any]: ...
    @property
    def backend(self) -> Literal["cpu", "cuda"]: ...
