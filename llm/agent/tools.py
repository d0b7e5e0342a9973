"""The agent's tools over koplc's own parts, on any KB and backend.

- `search_nodes(name)`: the entity and concept names nearest to `name` (grounding indexes; on
  a fragment of an endpoint's KB, the whole KB's: `koplc.kopl.grounding.index.whole`).
- `search_graph_patterns(entities, semantic)`: the one-hop patterns around an entity set given
  as a KoPL program or a `SELECT ?e WHERE …` query: relations both ways, attributes with a
  sample value, qualifiers; ranked by MiniLM similarity to `semantic`.
- `execute_kopl(program)` / `execute_sparql(query)`: answers as names, never IRIs (on a
  fragment of an endpoint's KB, ExecuteKoPL runs on the whole KB, as lowered SPARQL).

Every output is short and deterministic (sorted, cut at `limit` lines with a count of what was
left out), every call has a timeout, and a failing call is an Observation, never an exception.
"""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass, field

from koplc.kopl.answer import ENTITY_TYPES
from koplc.kopl.errors import KoplcError
from koplc.kopl.ir import Node
from koplc.kopl.kb.access import whole_of
from koplc.kopl.kb.model import QUALIFIERS, RELATION, VALUE
from koplc.kopl.types import ArgKind
from koplc.llm.agent.readonly import require_read_only

TOOLS = ("SearchNodes", "SearchGraphPatterns", "ExecuteKoPL", "ExecuteSPARQL")
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="koplc-tool")
MAX_CHARS = 2000  # an observation's text is cut here, whatever the limit in lines
MAX_NODES = 200  # SearchGraphPatterns reads the patterns of this many entities at most
# ExecuteKoPL on a fragment of an endpoint's KB answers from the whole KB up to this many items
# (a bound on one call's rows, not tuned on any data), from the fragment past it.
WHOLE_ITEMS = 10_000


@dataclass(frozen=True)
class Observation:
    """What a tool call gave: its text (what the agent reads), whether it worked, and data
    for the caller (answers as names, the entity set's size)."""

    text: str
    ok: bool = True
    answers: tuple[str, ...] = ()
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"text": self.text, "ok": self.ok, "answers": list(self.answers)}


def listing(lines: list[str], limit: int, sort: bool = True) -> str:
    """`lines` (sorted when `sort`), at most `limit` of them, then how many were left out.

    >>> print(listing(["b", "a", "c"], 2))
    a
    b
    ... 1 more
    """
    lines = sorted(dict.fromkeys(lines)) if sort else list(dict.fromkeys(lines))
    kept = lines[:limit]
    text = "\n".join(kept) if kept else "(nothing)"
    if len(lines) > limit:
        text += f"\n... {len(lines) - limit} more"
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + " ... (cut)"
    return text


class Tools:
    """The tools of one KB: its indexes for names, its executor or SPARQL store for queries.

    `backend`: "native" (the executor), "oxigraph" (an in-memory store of the KB, or `store`)
    or "endpoint" (`store` is an Endpoint); `timeout` seconds a call; `limit` lines of output.
    """

    def __init__(self, kb, indexes=None, *, backend: str = "native", store=None,
                 encoding: str = "kqapro", timeout: float = 10.0, limit: int = 10,
                 options=None):
        from koplc.kopl.execution.executor import DEFAULT
        from koplc.kopl.grounding.index.kb_indexes import Indexes
        from koplc.kopl.grounding.index.whole import whole_indexes

        if backend not in ("native", "oxigraph", "endpoint"):
            raise KoplcError(f"unknown backend {backend!r}; choose native, oxigraph or "
                             "endpoint", code="usage")
        self.kb, self.backend, self.encoding = kb, backend, encoding
        # A fragment of an endpoint's KB has no file: its indexes are kept in memory only.
        source = None if getattr(kb, "whole", None) is not None else kb.source
        self.indexes = indexes or Indexes.for_kb(kb, source or None)
        # SearchNodes lists what the whole KB holds, a fragment's KB's where it is one.
        self.searched = (whole_indexes(kb) if indexes is None else None) or self.indexes
        self.timeout, self.limit = timeout, limit
        self.options = options or DEFAULT  # how programs run (CONVERTING: across units)
        self._store, self._units = store, None

    # The calls, each behind the timeout and the error net.

    def call(self, tool: str, *args: str) -> Observation:
        """Run `tool` on `args`; any failure, timeout included, is an Observation."""
        method = {"SearchNodes": self.search_nodes,
                  "SearchGraphPatterns": self.search_graph_patterns,
                  "ExecuteKoPL": self.execute_kopl, "ExecuteSPARQL": self.execute_sparql}.get(tool)
        if method is None:
            return Observation(f"Error: no tool {tool!r}; the tools are {', '.join(TOOLS)}",
                               ok=False)
        future = _POOL.submit(method, *args)
        try:
            return future.result(timeout=self.timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            return Observation(f"Error: {tool} timed out after {self.timeout:g} s", ok=False)
        except TypeError as err:
            return Observation(f"Error: {tool} got the wrong arguments ({err})", ok=False)
        except KoplcError as err:
            return Observation(f"Error: {err.diagnostics[0].message if err.diagnostics else err}",
                               ok=False)
        except Exception as err:  # noqa: BLE001 - a bad call is something the agent reads
            return Observation(f"Error: {type(err).__name__}: {err}", ok=False)

    # SearchNodes.

    def search_nodes(self, name: str) -> Observation:
        """The entity and concept names nearest to `name`, each with its kind."""
        name = str(name).strip()
        if not name:
            return Observation("Error: SearchNodes needs a name", ok=False)
        scored: dict[tuple[str, str], float] = {}
        vector = None
        for kind, word in ((ArgKind.ENTITY, "entity"), (ArgKind.CONCEPT, "concept")):
            index = self.searched.get(kind)
            if not len(index):
                continue
            hits = [(label, 1.0) for label in (index.exact(name), *index.same_normal_form(name))
                    if label is not None]
            hits += [(label, 0.5 + s / 2) for label, s in index.fuzzy(name, self.limit)]
            if vector is None:
                vector = self.searched.embedder.encode_queries([name])[0]
            hits += index.search(vector, self.limit)
            for label, score in hits:
                key = (index.names[label], word)
                scored[key] = max(scored.get(key, -1.0), score)
        ranked = sorted(scored.items(), key=lambda item: (-round(item[1], 4), item[0]))
        lines = [f"{n} ({kind})" for (n, kind), _ in ranked]
        return Observation(listing(lines, self.limit, sort=False),
                           answers=tuple(n for (n, _), _ in ranked[:self.limit]))

    # SearchGraphPatterns.

    def search_graph_patterns(self, entities: str | Node, semantic: str = "") -> Observation:
        """The one-hop patterns around the entity set that `entities` (a KoPL program, IR or
        a SPARQL SELECT binding one variable) gives, the `limit` nearest to `semantic`."""
        nodes = self.entity_nodes(entities)
        if not nodes:
            return Observation("Error: the entity set is empty", ok=False)
        # the first by name: the same entities whatever order the KB stores them in
        patterns = self.patterns(sorted(nodes, key=self.kb.names.__getitem__)[:MAX_NODES])
        if not patterns:
            return Observation("(no patterns)", data={"entities": len(nodes)})
        labels = sorted(patterns)
        if semantic.strip():
            embedder = self.indexes.embedder
            vectors = embedder.encode_queries([_spoken(label) for label in labels])
            query = embedder.encode_queries([semantic])[0]
            sims = vectors @ query
            order = sorted(range(len(labels)), key=lambda i: (-round(float(sims[i]), 5), labels[i]))
        else:
            order = range(len(labels))
        lines = [f"{labels[i]} -> {patterns[labels[i]]}" for i in order]
        return Observation(listing(lines, self.limit, sort=False),
                           answers=tuple(labels[i] for i in list(order)[:self.limit]),
                           data={"entities": len(nodes)})

    def patterns(self, nodes: list[int]) -> dict[str, str]:
        """Pattern label -> a sample value (the least, as text: the same whatever order the
        KB stores its facts in, in memory or on a fragment of an endpoint's KB), over the
        nodes' stored facts."""
        kb, found = self.kb, {}

        def see(label: str, value) -> None:
            value = str(value)
            if label not in found or value < found[label]:
                found[label] = value

        for n in nodes:
            for fact in kb.relations[n]:
                other = fact[3] if fact[0] == n else fact[0]
                see(f"relation {fact[RELATION]} {fact[2]}", kb.names[other])
                for key, values in fact[QUALIFIERS].items():
                    see(f"qualifier {key} of {fact[RELATION]}", values[0])
            for fact in kb.attributes[n]:
                see(f"attribute {fact[0]}", fact[VALUE])
                for key, values in fact[QUALIFIERS].items():
                    see(f"qualifier {key} of {fact[0]}", values[0])
        return found

    def entity_nodes(self, entities: str | Node) -> list[int]:
        """The KB nodes of an entity set given as IR, KoPL text or a SPARQL SELECT."""
        if isinstance(entities, str) and _is_sparql(entities):
            rows = self._run_select(entities)
            iris = sorted({t.value for row in rows for t in row.values() if t.kind == "iri"})
            return sorted({n for i in iris for n in self._nodes_of_iri(i)})
        program = entities if isinstance(entities, Node) else _parse(entities)
        if program.output not in ENTITY_TYPES:
            raise KoplcError(f"the program gives {program.output}, not entities",
                             code="not-entities")
        answer = self._execute(program)
        return sorted({self.kb.id_to_node[i] for i in answer.entity_ids})

    # ExecuteKoPL and ExecuteSPARQL.

    def execute_kopl(self, program: str | Node) -> Observation:
        """Run a KoPL program (any syntax, or IR) on the backend; answers as names."""
        node = program if isinstance(program, Node) else _parse(program)
        answer = self._whole_answer(node)
        if answer is None:
            answer = self._execute(node)
        if answer.is_entities:
            items = sorted(dict.fromkeys(self._entity_names(answer.entity_ids)))
            text = f"{len(items)} entities:\n" + listing(items, self.limit)
        else:
            # a set of names or values, sorted as the observation lists it (not in the order
            # the KB happens to store their entities in)
            items = sorted(dict.fromkeys(str(v) for v in answer.items()))
            text = listing(items, self.limit) if len(items) != 1 else items[0]
        return Observation(text, answers=tuple(items), data={"type": str(answer.type)})

    def execute_sparql(self, query: str) -> Observation:
        """Run a read-only SPARQL query on the backend's store; IRIs come back as names."""
        require_read_only(query)
        rows = self._run_select(query)
        names = {}
        lines = []
        for row in rows:
            cells = []
            for var in sorted(row):
                term = row[var]
                if term.kind == "iri":
                    if term.value not in names:
                        names[term.value] = self._name_of_iri(term.value)
                    cells.append(names[term.value])
                else:
                    cells.append(term.value)
            lines.append(" | ".join(cells))
        answers = tuple(sorted(dict.fromkeys(lines)))
        return Observation(f"{len(answers)} rows:\n" + listing(lines, self.limit),
                           answers=answers)

    # Backends.

    @property
    def store(self):
        """The SPARQL store (built from the KB on first use for "oxigraph")."""
        if self._store is None:
            from koplc.sparql_backend.encodings import encoding_named
            from koplc.sparql_backend.export import ntriples
            from koplc.sparql_backend.stores import OxigraphStore

            store = OxigraphStore()
            store.load_ntriples("".join(ntriples(self.kb, encoding_named(self.encoding)))
                                .encode("utf-8"))
            self._store = store
        return self._store

    def _execute(self, program: Node):
        if self.backend == "native":
            from koplc.kopl.execution.executor import execute

            return execute(program, self.kb, self.options)
        from koplc.sparql_backend.encodings import encoding_named
        from koplc.sparql_backend.lower import lower
        from koplc.sparql_backend.results import run_lowered, units_in

        if self.options.unit_conversion and self._units is None:  # once: a query each
            self._units = units_in(self.store, encoding_named(self.encoding))
        return run_lowered(lower(program, self.encoding, self.options, self._units),
                           self.store)

    def _whole_answer(self, program: Node):
        """On a fragment of an endpoint's KB, the program's Answer on the whole KB (what it
        gives in memory); None elsewhere, or for an answer of over WHOLE_ITEMS items (the
        fragment's answer is shown then)."""
        whole = whole_of(self.kb)
        if whole is None or self.backend != "native":
            return None
        return whole.bounded_answer(program, self.options, WHOLE_ITEMS)

    def _entity_names(self, ids: list[str]) -> list[str]:
        """The names of the entities `ids`: the KB's own, and on a fragment of an endpoint's
        KB the endpoint's for those the fragment lacks."""
        ids = list(dict.fromkeys(ids))
        named = {i: self.kb.names[self.kb.id_to_node[i]] for i in ids if i in self.kb.id_to_node}
        missing = [i for i in ids if i not in named]
        whole = whole_of(self.kb) if missing else None
        if whole is not None:
            named.update(whole.names_of(missing))
        return [named[i] for i in ids if i in named]

    def _run_select(self, query: str) -> list[dict]:
        require_read_only(query)
        if not query.lstrip().upper().startswith(("SELECT", "PREFIX", "BASE")):
            raise KoplcError("only SELECT queries give rows", code="not-select")
        return self.store.select(query)

    def _nodes_of_iri(self, iri: str) -> list[int]:
        from koplc.sparql_backend.encodings import encoding_named
        from koplc.sparql_backend.export import node_iris

        table = getattr(self, "_iri_table", None)
        if table is None:
            table = self._iri_table = {i: n for n, i in
                                       enumerate(node_iris(self.kb, encoding_named(self.encoding)))}
        return [table[iri]] if iri in table else []

    def _name_of_iri(self, iri: str) -> str:
        nodes = self._nodes_of_iri(iri)
        if nodes:
            return self.kb.names[nodes[0]]
        return iri.rsplit("/", 1)[-1].rsplit("#", 1)[-1]


def _is_sparql(text: str) -> bool:
    head = text.lstrip().upper()
    return head.startswith(("SELECT", "PREFIX", "BASE", "ASK", "CONSTRUCT", "DESCRIBE"))


def _parse(text: str) -> Node:
    from koplc.kopl.answering.stages import checked
    from koplc.kopl.syntax import ir_json
    from koplc.kopl.syntax import nested as nested_syntax
    from koplc.kopl.syntax import steps as steps_syntax
    from koplc.llm.symkgqa.demos import steps_of

    text = str(text).strip()
    if ir_json.looks_like(text):
        node = ir_json.parse(text).program
    elif steps_syntax.looks_like(text) or "\n" in text:
        node = steps_syntax.parse(steps_of(text)).program
    else:
        node = nested_syntax.parse(text).program
    return checked(node)


def _spoken(label: str) -> str:
    return label.replace("_", " ")

