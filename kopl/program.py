"""A parsed program: the IR tree plus where each node and argument came from in the text.

Spans stay out of node identity: two parses of different text that mean the same program give
equal `program`s and different `source_map`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import TypeAdapter

from koplc.kopl.diagnostics import Diagnostic, Span
from koplc.kopl.ir import AnyNode, Node

Path = tuple[int, ...]

MAX_DEPTH = 256
"""Deepest program any parser accepts: far beyond real programs, well inside Python's stack."""

_NODE_ADAPTER: TypeAdapter[Node] = TypeAdapter(AnyNode)


@dataclass
class SourceMap:
    """Spans keyed by node path (child indexes from the root) and by (path, argument field)."""

    nodes: dict[Path, Span] = field(default_factory=dict)
    args: dict[tuple[Path, str], Span] = field(default_factory=dict)

    def node(self, path: Path) -> Span | None:
        return self.nodes.get(path)

    def arg(self, path: Path, name: str) -> Span | None:
        return self.args.get((path, name)) or self.nodes.get(path)


@dataclass
class Parsed:
    """What a parser returns: the program, its source map, the text and any warnings."""

    program: Node
    source_map: SourceMap
    source: str
    warnings: list[Diagnostic] = field(default_factory=list)


def program_to_json(program: Node, indent: int | None = None) -> str:
    """The interchange JSON of a program (pydantic's dump, `op` naming each node's class)."""
    return program.model_dump_json(indent=indent)


def program_from_json(text: str | bytes) -> Node:
    """Read a program back from its interchange JSON; raises pydantic's ValidationError."""
    return _NODE_ADAPTER.validate_json(text)


def program_from_data(data: object) -> Node:
    """Read a program from already-decoded JSON data."""
    return _NODE_ADAPTER.validate_python(data)
