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

class Error(RuntimeError): ...
class InvalidArgumentError(Error, ValueError): ...
class OutOfMemoryError(Error, MemoryError): ...

Backend = Literal["auto", "cpu", "gpu", "cuda"]
Sort = Literal["auto", "cpu", "fourway", "onesweep"]
Axis = Literal["x", "y", "z", "largest_variance"]
InvalidBoxes = Literal["reject", "exclude"]
Boxes = npt.NDArray[np.float32]
Rays = npt.NDArray[np.float32]
Ids = npt.NDArray[np.void]
UInt32s = npt.NDArray[np.uint32]

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
    ) -> None: ...
    def update(
        self,
        boxes: Boxes,
        categories: UInt32s | None = None,
        masks: UInt32s | None = None,
        worlds: UInt32s | None = None,
    ) -> None: ...
    def find_pairs(self) -> UInt32s: ...
    def world_pair_offsets(self) -> UInt32s: ...
    def query(
        self, regions: Boxes, *, mask: int = 0xFFFFFFFF, world: int | None = None
    ) -> npt.NDArray[np.void]: ...
    def raycast(
        self,
        rays: Rays,
        *,
        all_hits: bool = False,
        mask: int = 0xFFFFFFFF,
        world: int | None = None,
    ) -> npt.NDArray[np.void]: ...
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
    ) -> Ids: ...
    def move(self, ids: Ids, boxes: Boxes) -> None: ...
    def destroy(self, ids: Ids) -> None: ...
    def step(self) -> None: ...
    def events(self) -> tuple[Ids, Ids]: ...
    def pairs(self) -> Ids: ...
    def query(
        self, regions: Boxes, *, mask: int = 0xFFFFFFFF, world: int | None = None
    ) -> npt.NDArray[np.void]: ...
    def raycast(
        self,
        rays: Rays,
        *,
        all_hits: bool = False,
        mask: int = 0xFFFFFFFF,
        world: int | None = None,
    ) -> npt.NDArray[np.void]: ...
    def user(self, id: Ids | np.void) -> int: ...
    @property
    def stats(self) -> dict[str, Any]: ...
    @property
    def backend(self) -> Literal["cpu", "cuda"]: ...
