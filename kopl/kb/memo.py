"""Caches of what is worked out from a KB, kept with that KB and dropped with it.

`functools.lru_cache` on a function of a KB keeps the KB alive as long as its entry stays: an
endpoint's questions each get a KB of their own (a fragment of some megabytes), and the caches
of a few dozen such functions kept dozens of them alive at once.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def per_kb(maxsize: int = 128) -> Callable[[F], F]:
    """Like `functools.lru_cache(maxsize)` for a function whose first argument is a KB (the
    others hashable, given by position): each KB's results are kept on the KB (an attribute
    of its own: a result that refers back to its KB, as a profile does, would keep it alive
    from any table outside it), at most `maxsize` of them a function, and go when it does."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def cached(kb, *args):
            memo = vars(kb).setdefault("_per_kb", {}).setdefault(cached, OrderedDict())
            try:
                memo.move_to_end(args)
                return memo[args]
            except KeyError:
                pass
            value = memo[args] = function(kb, *args)
            if len(memo) > maxsize:
                memo.popitem(last=False)
            return value

        return cached  # type: ignore[return-value]

    return decorate
