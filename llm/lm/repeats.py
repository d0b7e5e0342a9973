"""Where a completion has started repeating itself: a line written for the `times`-th time.

A greedy decode that writes the same line again and again has fallen into a loop it rarely
leaves; a client told `repeats=n` ends the completion before such a line (the embedded client as
soon as it is written, the others on the whole text), so a looping program costs a few lines,
not the whole token budget.
"""

from __future__ import annotations


def before_repeat(text: str, times: int) -> str:
    """`text` up to the first complete line said for the `times`-th time; all of it when no
    complete line is (or `times` is 0).

    >>> before_repeat("Find(a)\\nFind(a)\\nFind(a)\\nFind(", 3)
    'Find(a)\\nFind(a)\\n'
    >>> before_repeat("Find(a)\\nRelate(r)\\nFind(a)\\nRelate(r)\\nAnd()", 3)
    'Find(a)\\nRelate(r)\\nFind(a)\\nRelate(r)\\nAnd()'
    """
    if times <= 0:
        return text
    seen: dict[str, int] = {}
    start = 0
    for line in text.splitlines(keepends=True):
        if not line.endswith("\n"):
            break
        key = line.strip()
        seen[key] = seen.get(key, 0) + 1
        if key and seen[key] >= times:
            return text[:start]
        start += len(line)
    return text
