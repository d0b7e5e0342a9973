"""Building many small objects at once (a KB from its file or its cache, a fragment from an
endpoint's rows): with Python's cyclic garbage collector paused, whose passes over them only
slow the building down (each full pass walks every object the process holds)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block; it runs again after unless it was
    paused already (an outer block's pause holds)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
