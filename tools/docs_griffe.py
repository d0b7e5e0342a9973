"""A griffe extension for the API pages: docstrings' `>>>` examples become code blocks.

koplc's docstrings write doctest examples as bare `>>>` lines (tests/test_docs.py runs them);
Markdown would read them as a paragraph, `[...]` in an output line as a link. Each run of lines
from a `>>>` line to the next blank line is fenced as a `pycon` block instead.
"""

from __future__ import annotations

from typing import Any

from griffe import Extension, Object


def fence_examples(text: str) -> str:
    """`text` with each doctest example fenced.

    >>> print(fence_examples("Sum.\\n\\n>>> 1 + 1\\n2\\n\\nMore."))
    Sum.
    <BLANKLINE>
    ```pycon
    >>> 1 + 1
    2
    ```
    <BLANKLINE>
    More.
    """
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if not inside and line.lstrip().startswith(">>>"):
            out.append("```pycon")
            inside = True
        elif inside and not line.strip():
            out.append("```")
            inside = False
        out.append(line)
    if inside:
        out.append("```")
    return "\n".join(out)


class DoctestBlocks(Extension):
    """Fence the doctest examples of every docstring griffe reads."""

    def on_object(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_examples(obj.docstring.value)
