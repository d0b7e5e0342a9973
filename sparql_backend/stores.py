"""The embedded store: pyoxigraph, in memory or in a directory that is reopened without
reloading.

A store answers `select(query)` with rows (variable name → `Term`) and `ask(query)` with a
bool; the remote endpoint client (`endpoint`) offers the same two methods. `open_kb_store`
keeps a KB in a persistent store: the first call exports the KB and bulk-loads it; later calls
find the directory's record of what was loaded (the source's size and BLAKE2 hash, the
encoding) and open it as it is.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path

from koplc.kopl.atomic import write_atomically
from koplc.kopl.errors import BackendError
from koplc.sparql_backend.encodings import Encoding
from koplc.sparql_backend.terms import Term

RECORD_FILE = "koplc-store.json"
STORE_FORMAT = 1


class OxigraphStore:
    """A pyoxigraph store: `path` None keeps it in memory; `read_only` opens an existing one
    without locking out other readers."""

    def __init__(self, path: str | Path | None = None, read_only: bool = False):
        import pyoxigraph

        self.ox = pyoxigraph
        self.path = None if path is None else Path(path)
        self.name = f"pyoxigraph store {self.path}" if self.path else "in-memory pyoxigraph store"
        try:
            if self.path is None:
                self.store = pyoxigraph.Store()
            elif read_only:
                self.store = pyoxigraph.Store.read_only(str(self.path))
            else:
                self.store = pyoxigraph.Store(str(self.path))
        except OSError as err:
            raise BackendError(f"{self.name}: cannot open: {err}", code="store") from None

    def load_ntriples(self, source: str | Path | bytes) -> None:
        """Bulk-load N-Triples from a file path or bytes."""
        fmt = self.ox.RdfFormat.N_TRIPLES
        try:
            if isinstance(source, bytes):
                self.store.bulk_load(source, format=fmt)
            else:
                self.store.bulk_load(path=str(source), format=fmt)
            self.store.flush()
        except (OSError, SyntaxError, ValueError) as err:
            raise BackendError(f"{self.name}: cannot load {source if not isinstance(source, bytes) else 'the data'}: "
                               f"{err}", code="store") from None

    def select(self, query: str) -> list[dict[str, Term]]:
        """The solutions of a SELECT query; BackendError if the store refuses it."""
        result = self._query(query)
        names = [v.value for v in result.variables]
        rows = []
        for solution in result:
            row = {}
            for name, value in zip(names, solution, strict=True):
                if value is not None:
                    row[name] = _term(value, self.ox)
            rows.append(row)
        return rows

    def ask(self, query: str) -> bool:
        return bool(self._query(query))

    def _query(self, query: str):
        try:
            return self.store.query(query)
        except (SyntaxError, OSError, ValueError) as err:
            raise BackendError(f"{self.name}: the query failed: {err}", code="query") from None

    def __len__(self) -> int:
        return len(self.store)

    def kqapro_value(self, node):
        """The Value a KQA Pro-encoded value node stands for (a date, a quantity with its unit,
        a year, else a string; "" when the node has no value)."""
        from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR, Value
        from koplc.sparql_backend.encodings import KQAPRO
        from koplc.sparql_backend.value_patterns import read_date

        props = {q.predicate.value: q.object.value
                 for q in self.store.quads_for_pattern(node, None, None)}
        if KQAPRO.date in props:
            return Value(DATE, read_date(props[KQAPRO.date]))
        if KQAPRO.unit in props:
            return Value(QUANTITY, float(props[KQAPRO.value]), props[KQAPRO.unit])
        if KQAPRO.year in props:
            return Value(YEAR, int(props[KQAPRO.year]))
        return Value(STRING, props.get(KQAPRO.value, ""))


def _term(value, ox) -> Term:
    if isinstance(value, ox.NamedNode):
        return Term("iri", value.value)
    if isinstance(value, ox.Literal):
        return Term("literal", value.value, value.datatype.value, value.language)
    return Term("bnode", str(value.value))


def open_kb_store(kb_path: str | Path, encoding: Encoding, directory: str | Path,
                  load_kb=None) -> tuple[OxigraphStore, bool]:
    """A persistent store in `directory` holding the KB at `kb_path` in `encoding`, and
    whether it had to be (re)loaded. `load_kb(path)` reads the KB (default: the cached
    loader)."""
    from koplc.sparql_backend.export import write_ntriples

    directory, kb_path = Path(directory), Path(kb_path)
    wanted = source_record(kb_path, encoding)
    record_file = directory / RECORD_FILE
    if record_file.is_file():
        try:
            if json.loads(record_file.read_text(encoding="utf-8")) == wanted:
                return OxigraphStore(directory), False
        except ValueError:
            pass
    if load_kb is None:
        from koplc.kopl.kb.cache import load_kb
    kb = load_kb(kb_path)
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="koplc-export-") as tmp:
        nt = Path(tmp) / "kb.nt"
        write_ntriples(kb, encoding, nt)
        store = OxigraphStore(directory)
        store.load_ntriples(nt)
    write_atomically(record_file, json.dumps(wanted, indent=1))
    return store, True


def source_record(kb_path: Path, encoding: Encoding) -> dict:
    """What a store directory records about its contents."""
    digest = hashlib.blake2b(digest_size=16)
    with kb_path.open("rb") as data:
        for chunk in iter(lambda: data.read(1 << 20), b""):
            digest.update(chunk)
    return {"format": STORE_FORMAT, "source": str(kb_path.resolve()),
            "size": kb_path.stat().st_size, "blake2b": digest.hexdigest(),
            "encoding": encoding.name}
