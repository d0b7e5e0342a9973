"""What is worked out from a KB is cached with that KB: it goes when the KB goes."""

from __future__ import annotations

import gc
import pickle
import weakref

from koplc.kopl.grounding.schema import profile_of
from koplc.kopl.kb.memo import per_kb
from koplc.kopl.kb.model import KBBuilder


def small_kb(name: str):
    builder = KBBuilder("memo test")
    builder.add_concept("thing", "thing", [])
    builder.add_entity(name, name, ["thing"])
    return builder.build()


def test_results_are_kept_per_kb_and_least_recently_used_go_first():
    calls = []

    @per_kb(maxsize=2)
    def square(kb, n):
        calls.append((kb.names[-1], n))
        return n * n

    a, b = small_kb("a"), small_kb("b")
    assert [square(a, 2), square(a, 2), square(b, 2)] == [4, 4, 4]
    assert calls == [("a", 2), ("b", 2)]  # b's result is its own, not a's
    square(a, 3)
    square(a, 2)  # now the most recent: 3 is the one left to drop
    square(a, 4)
    square(a, 2)
    assert calls == [("a", 2), ("b", 2), ("a", 3), ("a", 4)]
    square(a, 3)
    assert calls[-1] == ("a", 3)


def test_a_cached_result_that_refers_to_its_kb_does_not_keep_it_alive():
    kb = small_kb("alone")
    profile = profile_of(kb)
    assert profile_of(kb) is profile and profile.kb is kb
    gone = weakref.ref(kb)
    del kb, profile
    gc.collect()
    assert gone() is None


def test_a_pickled_kb_leaves_its_cached_results_behind():
    kb = small_kb("pickled")
    profile_of(kb)
    assert "_per_kb" in vars(kb)
    again = pickle.loads(pickle.dumps(kb))
    assert "_per_kb" not in vars(again) and again.names == kb.names
