"""Whether an answer says something about the question: the one rule that every front end,
the BYOKG search and the explorer apply to a program's answer.

An answer says nothing when it is empty, when the program asks how an entity relates to its own
neighbours (its answer is fixed by the program's relations, whatever was asked), or when it
names only the entities the question itself named (picking one of two named entities is
SelectBetween's point, so that op is exempt).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence

from koplc.kopl.ir import Find, Node

SELF_RELATED = "the program asks how an entity relates to its own neighbours"
ONLY_OWN = "the program answers only the question's own entities"


def find_names(node: Node) -> tuple[str, ...]:
    """The names a program's Find steps start from, each once, in the program's order.

    >>> from koplc.kopl.ir import Find, Relate, QueryName
    >>> find_names(QueryName(input=Relate(input=Find(name="Ada"), relation="knows",
    ...                                   direction="forward")))
    ('Ada',)
    """
    return tuple(dict.fromkeys(n.name for _, n in node.walk() if isinstance(n, Find)))


def self_related(node: Node) -> bool:
    """Whether a QueryRelation's two inputs both start from one and the same Find."""
    for _, step in node.walk():
        if step.op == "QueryRelation":
            names = {n.name for _, n in step.walk() if isinstance(n, Find)}
            if len(names) == 1:
                return True
    return False


def only_own(root: Node, answered: Collection[Hashable], own: Collection[Hashable]) -> bool:
    """Whether `answered` (names or node ids) is no more than the question's own entities
    `own` (in the same terms); never for a program that picks one of the entities it names
    (SelectBetween; SelectAmong, or the names of an ArgMax or ArgMin, over two or more found
    by name): "which was built more recently, A or B" is answered by one of its own.

    >>> from koplc.kopl.ir import ArgMax, Find, Or, QueryName
    >>> a, b = Find(name="A"), Find(name="B")
    >>> newer = QueryName(input=ArgMax(input=Or(left=a, right=b), key="built", path=()))
    >>> only_own(newer, ["A"], ["A", "B"]), only_own(QueryName(input=ArgMax(
    ...     input=a, key="built", path=())), ["A"], ["A", "B"])
    (False, True)
    """
    if root.op == "SelectBetween" or (_picks(root) and len(set(find_names(root))) > 1):
        return False
    return set(answered) <= set(own)


_PICKS = frozenset({"SelectBetween", "SelectAmong", "ArgMax", "ArgMin"})


def _picks(root: Node) -> bool:
    picked = getattr(root, "input", None) if root.op == "QueryName" else root
    return picked is not None and picked.op in _PICKS


def says_nothing(node: Node, answers: Sequence[str]) -> str | None:
    """Why a non-empty answer of `node` says nothing about the question, or None."""
    if self_related(node):
        return SELF_RELATED
    if only_own(node, answers, find_names(node)):
        return ONLY_OWN
    return None
