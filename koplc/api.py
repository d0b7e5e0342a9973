"""koplc's public API: parse, check, transpile and format programs in any supported syntax.

Every CLI subcommand is a function here; tests call these directly.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from koplc.kopl.atomic import write_atomically
from koplc.kopl.check import check_parsed
from koplc.kopl.diagnostics import Diagnostic
from koplc.kopl.errors import KoplcError, ParseError
from koplc.kopl.program import Parsed
from koplc.kopl.syntax import kqapro_json
from koplc.syntaxes import (  # noqa: F401 - SYNTAXES and syntax_module are public API too
    SYNTAXES,
    detect_syntax,
    parse,
    print_program,
    syntax_module,
)

if TYPE_CHECKING:
    from koplc.kopl.kb.triple_schema import TripleSchema

    # What `schema=` takes: a dataset's name ("metaqa"), a JSON schema file, a TripleSchema,
    # or None (a pipe file's neutral schema).
    Schema = str | Path | TripleSchema | None


@dataclass
class CheckReport:
    """The outcome of checking one program: the parse (if it parsed) and every finding."""

    parsed: Parsed | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    source: str = ""

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


def check(text: str, syntax: str = "auto", kb=None) -> CheckReport:
    """Parse and type-check; problems come back as diagnostics, not exceptions.

    With a KB, names the KB lacks are reported too (as warnings, with the closest name).
    """
    try:
        parsed = parse(text, syntax)
    except ParseError as err:
        return CheckReport(None, err.diagnostics, text)
    diagnostics = check_parsed(parsed)
    if kb is not None:
        from koplc.kopl.kb.check import check_against_kb

        diagnostics += check_against_kb(parsed.program, kb, parsed.source_map)
    return CheckReport(parsed, diagnostics, text)


def transpile(text: str, source: str = "auto", target: str = "ir-json") -> str:
    """Parse in one syntax and print in another, through the IR."""
    return print_program(parse(text, source).program, target)


def format_program(text: str, syntax: str = "auto") -> str:
    """The canonical text of a program in its own syntax."""
    name = detect_syntax(text) if syntax == "auto" else syntax
    return print_program(parse(text, name).program, name)


def read_text(path: str | Path) -> str:
    """The text of the file at `path`, or of standard input for "-"; KoplcError when it cannot
    be read or is not UTF-8."""
    if str(path) == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise KoplcError(f"{path}: not a UTF-8 text file", code="unreadable") from err
    except OSError as err:
        raise KoplcError(f"{path}: cannot read the file: {err.strerror or err}",
                         code="unreadable") from err


def batch(lines: Iterable[str], job: Callable[[str], dict]) -> Iterator[dict]:
    """Run `job` on each JSONL record's program; one result record per non-blank line.

    A record is a JSON string (the program text) or an object whose "program" field holds the
    text (or, for IR JSON, the object itself); its other fields, such as "id", are copied over.
    """
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        extra: dict = {}
        try:
            record = json.loads(line)
            if isinstance(record, dict):
                extra = {k: v for k, v in record.items() if k != "program"}
                record = record.get("program")
            if isinstance(record, dict):
                record = json.dumps(record)
            if not isinstance(record, str):
                raise KoplcError(f"line {number}: expected a JSON string or an object with a "
                                 "\"program\" field", code="bad-record")
            yield {**extra, **job(record)}
        except json.JSONDecodeError as err:
            yield {**extra, "ok": False, "diagnostics": [Diagnostic(
                "bad-record", f"line {number}: not JSON: {err.msg}").to_json()]}
        except KoplcError as err:
            yield {**extra, "ok": False, "diagnostics": [d.to_json() for d in err.diagnostics]}


# Knowledge bases and execution. Imported where used: the KB and executor modules (and sympy,
# pyoxigraph behind them) load only for the commands that need them.


def load_kb(path: str | Path | None = None, *, cache: bool = True, fmt: str | None = None,
            schema: Schema = None, encoding: str | None = None):
    """Load a KB file (.json KoPL KB JSON, .txt subject|relation|object triples, .nt, .ttl)
    through its cache; no `path`: the MetaQA KB shipped with koplc. An http(s) URL opens the
    SPARQL endpoint there, holding the KB in RDF `encoding` (default wikidata), as an
    EndpointKB (koplc.sparql_backend.endpoint_kb) that front ends answer on.

    `schema` shapes pipe triples: a dataset's name ("metaqa"), a JSON TripleSchema file, or a
    TripleSchema. Without one a pipe file gets the neutral schema read from its own triples,
    and the shipped KB MetaQA's. KBError for a schema that is neither a name nor a good file.
    """
    from koplc.endpoint_mode import is_endpoint
    from koplc.kopl.kb.cache import load_kb as load
    from koplc.kopl.kb.triple_schema import named_schema

    if is_endpoint(path):
        from koplc.sparql_backend.endpoint_kb import EndpointKB

        return EndpointKB(str(path), encoding or "wikidata", cache=cache)
    triple_schema = named_schema(schema)  # first: a bad schema fails before a big KB loads
    if path is None:
        from koplc.llm.lm.defaults import default_kb_path, default_kb_schema

        path, triple_schema = default_kb_path(), triple_schema or default_kb_schema()
    return load(path, cache=cache, fmt=fmt, schema=triple_schema)


def run(text: str, kb, syntax: str = "auto", options=None, *, backend: str = "native",
        store=None, endpoint: str | None = None, encoding: str = "kqapro"):
    """Parse a program in any syntax and execute it on `kb`; returns an Answer.

    KQA Pro JSON lists take the fast builder (the full parser still reports malformed ones).
    `backend` "oxigraph" or "endpoint" runs it as SPARQL instead (see `run_sparql`).
    """
    from koplc.kopl.execution.executor import DEFAULT, execute
    from koplc.kopl.syntax.kqapro_json import program_from_kqapro

    name = detect_syntax(text) if syntax == "auto" else syntax
    program = program_from_kqapro(text) if name == kqapro_json.NAME else parse(text, name).program
    if backend != "native":
        return run_sparql(program, backend, kb=kb, store=store, endpoint=endpoint,
                          encoding=encoding, options=options)
    return execute(program, kb, options or DEFAULT)


def kb_stats(kb) -> dict[str, int]:
    """Counts of the KB's concepts, entities, facts, keys and relations."""
    return kb.stats()


def kb_convert(kb, to: str = "kopl-json", out: str | Path | None = None) -> str:
    """The KB written in format `to` (only kopl-json); written atomically to `out` if given."""
    from koplc.kopl.kb.kopl_json import kb_to_json

    if to != "kopl-json":
        raise KoplcError(f"cannot convert a KB to {to!r}; the only target is kopl-json",
                         code="kb-format")
    text = kb_to_json(kb) + "\n"
    if out is not None:
        write_atomically(Path(out), text)
    return text


def check_names(text: str, kb, syntax: str = "auto") -> list[Diagnostic]:
    """Warnings for the program's names that `kb` lacks (entity, concept, relation, keys)."""
    from koplc.kopl.kb.check import check_against_kb

    parsed = parse(text, syntax)
    return check_against_kb(parsed.program, kb, parsed.source_map)


# Grounding: the name indexes and the grounding passes (koplc.kopl.grounding). Imported where
# used: the embedding model and hnswlib load only for the commands that need them.


def build_index(kb_path: str | Path, *, folder: str | Path | None = None, force: bool = False,
                progress: bool = False, schema: Schema = None):
    """Build the grounding indexes of the KB at `kb_path` (or load them when current); saved
    beside the KB, or in `folder`, or under $KOPLC_CACHE_DIR. Returns a BuildReport."""
    from koplc.kopl.grounding.index.kb_indexes import Indexes

    kb = load_kb(kb_path, schema=schema)
    return Indexes.for_kb(kb, kb_path, folder).build_all(progress=progress, force=force)


def index_endpoint(url: str, encoding: str | None = None, *, page: int = 5000,
                   timeout: float = 300.0, progress: bool = False) -> dict:
    """Stream the entity names of the KB a SPARQL endpoint serves (in RDF `encoding`, `page`
    names a query, each query given `timeout` seconds) into its on-disk name table, which
    endpoint mode links questions with; a dict of the names, the table's path and the seconds
    taken."""
    from koplc.endpoint_mode import name_table

    clock = time.perf_counter()
    kb = load_kb(url, encoding=encoding)
    kb.page, kb.endpoint.timeout = page, timeout
    table = name_table(kb, progress)
    names = table.db.execute("SELECT COUNT(DISTINCT id) FROM names").fetchone()[0]
    return {"names": names, "table": str(table.path),
            "seconds": round(time.perf_counter() - clock, 2)}


def explore_endpoint(url: str, encoding: str | None = None, *, programs: int | None = None,
                     progress: bool = False) -> Path:
    """The explored pool of the KB a SPARQL endpoint serves (explored on a fragment around
    sampled entities, kept in the endpoint's cache folder), exploring it first if needed."""
    from koplc.endpoint_mode import POOL_PROGRAMS, explored_pool_file

    return explored_pool_file(load_kb(url, encoding=encoding),
                              programs=programs or POOL_PROGRAMS, progress=progress)


def grounding_indexes(kb, kb_path: str | Path | None = None, *,
                      folder: str | Path | None = None, progress: bool = False):
    """The name indexes of `kb`, loaded from disk or built now (with a progress bar when
    `progress`) and saved beside `kb_path`, in `folder`, or under $KOPLC_CACHE_DIR."""
    from koplc.kopl.grounding.index.kb_indexes import Indexes

    indexes = Indexes.for_kb(kb, kb_path, folder)
    indexes.build_all(progress=progress)
    return indexes


def ground(text: str, kb, question: str | None = None, syntax: str = "auto", *,
           kb_path: str | Path | None = None, index_folder: str | Path | None = None,
           indexes=None, options=None, chooser=None):
    """Parse a program in any syntax and ground it against `kb` with the question as context;
    returns a Grounded (program, changes, remaining checker errors)."""
    from koplc.kopl.grounding.choosers import SimilarityChooser
    from koplc.kopl.grounding.context import GroundingContext, GroundingOptions
    from koplc.kopl.grounding.driver import ground as ground_program
    from koplc.kopl.grounding.index.kb_indexes import Indexes

    program = parse(text, syntax).program
    if indexes is None:
        indexes = Indexes.for_kb(kb, kb_path, index_folder)
    context = GroundingContext(kb, indexes, question, chooser or SimilarityChooser(),
                               options or GroundingOptions())
    return ground_program(program, context)


def explain_grounding(grounded) -> str:
    """The changes of a Grounded as a readable table."""
    from koplc.kopl.grounding.driver import explain

    return explain(grounded.changes)


# The GNN front end (koplc.gnn): imported where used, so torch loads only for these commands.


def gnn_train(kb_path: str | Path, train_files: list, out: str | Path, *, schema: Schema = None,
              **options) -> dict:
    """Train the KBIGER GNN on MetaQA files (minus `exclude`) into folder `out`; resumable.
    `schema` as for `load_kb`."""
    from koplc.gnn.frontend import train_model

    return train_model(load_kb(kb_path, schema=schema), list(train_files), Path(out), **options)


def gnn_train_pool(kb_path: str | Path, out: str | Path | None = None, *,
                   schema: Schema = None, **options) -> dict:
    """Train the KBIGER GNN from the KB's explored pool (no labelled question) into `out`,
    default the KB's model folder in the user cache; resumable. Returns the training record
    (`folder` says where the model is)."""
    from koplc.gnn.pool_training import model_folder, train_from_pool

    folder = Path(out) if out else model_folder(kb_path)
    record = train_from_pool(load_kb(kb_path, schema=schema), kb_path, folder, **options)
    return {**record, "folder": str(folder)}


def gnn_eval(kb_path: str | Path, model: str | Path, data_files: list, *,
             schema: Schema = None) -> dict:
    """Hits@1, F1 per hop and faithfulness of the GNN model in folder `model`."""
    from koplc.gnn.frontend import eval_model

    return eval_model(load_kb(kb_path, schema=schema), model, list(data_files))


# The LLM front end (koplc.llm): few-shot KoPL generation, grounding with the LM, execution.
# Imported where used: llama.cpp, torch and the embedding model load only for these commands.


def default_kb_path() -> Path:
    """The MetaQA movie KB shipped with the package, unpacked into the cache on first use."""
    from koplc.llm.lm.defaults import default_kb_path as path

    return path()


def open_lm(spec: str = "embedded", response_cache: str | Path | None = None, *,
            speculative: bool = True):
    """An LM client: "embedded" (llama.cpp + Gemma 3 270M), an OpenAI-compatible server URL,
    a .gguf file, or a local Hugging Face model folder; `response_cache` is a sqlite file of
    cached responses or "off" (default: $KOPLC_RESPONSE_CACHE, else koplc's cache folder);
    `speculative=False` makes a llama.cpp model decode one token per forward pass."""
    from koplc.llm.lm.defaults import open_lm as open_spec

    return open_spec(spec, response_cache, speculative=speculative)


def compiler(kb_path: str | Path | None = None, lm="embedded", options=None, pool=None, *,
             schema: Schema = None):
    """A Compiler for the KB at `kb_path` (default: the shipped MetaQA KB; `schema` as for
    `load_kb`) and an LM (a client or a spec for `open_lm`); it keeps the prompt prefix,
    demonstration pool and indexes."""
    from koplc.llm.lm.defaults import default_pool
    from koplc.llm.symkgqa.pipeline import Compiler

    client = open_lm(lm) if isinstance(lm, str) else lm  # first: a bad model fails fast
    kb = load_kb(kb_path, schema=schema)
    path = Path(kb_path) if kb_path else default_kb_path()
    return Compiler(kb, client, kb_path=path, pool=pool or default_pool(), options=options)


# Front ends (koplc.frontends): every question goes through one, opened by its --frontend
# name. A question's own failure (nothing links, the program finds nothing) is its Compiled's
# `failure` and a run goes on; KoplcError means the front end cannot work, and stops it.


def open_frontend(name: str = "llm", **settings):
    """The front end called `name` ("llm", "gnn"), opened with Settings fields (lm,
    response_cache, model, reuse, leave_template_out, options); its results carry SPARQL."""
    from koplc.frontends import open_frontend as open_named
    from koplc.kopl.frontend import Settings

    return open_named(name, Settings(**settings))


def compile_questions(questions: Iterable[str], frontend="llm", kb=None, *,
                      kb_path: str | Path | None = None, schema: Schema = None,
                      encoding: str | None = None, **settings) -> Iterator:
    """Compile each question with one front end (a name, opened with `settings`, or a
    FrontEnd) on one KB (`kb`, else the file `kb_path` under `schema` as for `load_kb`,
    default: the shipped MetaQA KB; or the SPARQL endpoint at the URL `kb_path` in RDF
    `encoding`); yields a Compiled per question."""
    from koplc.kopl.kb.triple_schema import named_schema

    schema = named_schema(schema)  # a bad schema file fails before a model loads
    frontend, kb = _frontend_and_kb(frontend, kb, kb_path, schema, encoding, settings)
    for question in questions:
        yield frontend.compile(question, kb)


def _frontend_and_kb(frontend, kb, kb_path, schema, encoding, settings: dict):
    """The front end (opened by name with `settings` first, so a bad model fails before a big
    KB file loads; after an endpoint opens, which it needs) and the KB (`kb`, else `kb_path`
    as for `load_kb`), the front end able to answer on that KB."""
    from koplc.endpoint_mode import is_endpoint

    if kb is None and is_endpoint(kb_path):
        kb = load_kb(kb_path, encoding=encoding)
    if isinstance(frontend, str):
        frontend = _opened(frontend, kb, settings)
    if kb is None:
        kb = load_kb(kb_path, schema=schema)
    return _for_kb(frontend, kb), kb


def _opened(name: str, kb, settings: dict):
    """The front end `name` opened with `settings`, for `kb` when it is an endpoint."""
    from koplc.sparql_backend.endpoint_kb import EndpointKB

    if isinstance(kb, EndpointKB):
        from koplc.endpoint_mode import open_on_endpoint
        from koplc.frontends import open_frontend as open_named
        from koplc.kopl.frontend import Settings

        return open_on_endpoint(name, Settings(**settings), kb, open_named, progress=True)
    return open_frontend(name, **settings)


def _for_kb(frontend, kb):
    """`frontend`, able to answer on `kb` (a front end meets an endpoint through fragments)."""
    from koplc.endpoint_mode import OnEndpoint
    from koplc.sparql_backend.endpoint_kb import EndpointKB

    if isinstance(kb, EndpointKB) and not isinstance(frontend, OnEndpoint):
        return OnEndpoint(frontend)
    return frontend


def compile(question: str, kb=None, frontend="llm", *, kb_path: str | Path | None = None,
            schema: Schema = None, **settings):
    """Compile one natural-language question into an IR program and answer it; returns a
    Compiled (program, grounded program, SPARQL or why not, answers, timings, provenance)."""
    return next(compile_questions([question], frontend, kb, kb_path=kb_path, schema=schema,
                                  **settings))


def compiled_record(compiled, emit: str = "all") -> dict:
    """A Compiled as a JSON record: the question, whether it was answered, and what `emit`
    asks for ("kopl", "ir-json", "sparql", "answer" or "all"); failures say where and why."""
    record: dict = {"question": compiled.question, "ok": compiled.ok}
    final = compiled.final
    if emit in ("kopl", "all") and (final is not None or compiled.raw):
        record["kopl"] = print_program(final, compiled.syntax) if final else compiled.raw
    if emit in ("ir-json", "all") and final is not None:
        record["ir"] = final.model_dump(mode="json")
    if emit in ("sparql", "all") and final is not None:
        record["sparql"] = compiled.sparql or f"# no SPARQL: {compiled.no_sparql}"
    if emit in ("answer", "all"):
        record["answer"] = list(compiled.answers)
    if compiled.failure:
        record["failure"] = compiled.failure
        record["error"] = compiled.error or "the program found nothing"
    return record


def read_questions(path: str | Path) -> list[str]:
    """The questions of a file (or "-"), one per non-blank line; KoplcError when there are
    none."""
    questions = [line.strip() for line in read_text(path).splitlines() if line.strip()]
    if not questions:
        raise KoplcError(f"{path}: the question file is empty; write one question per line",
                         code="empty-input")
    return questions


# Evaluation: a front end on question files with gold answers (MetaQA TSV or JSONL): run by
# koplc.evaluation.evaluate, scored by koplc.evaluation.scoring, written out by koplc.evaluation.report.


def default_metaqa_folder() -> Path:
    """Where `koplc eval` reads the MetaQA dev files when it is given no question file: the
    verified dev questions shipped with koplc, unpacked into the cache on first use."""
    from koplc.llm.lm.defaults import default_dev_folder

    return default_dev_folder()


def metaqa_dev_files(hops: Iterable[int] = (1, 2, 3),
                     folder: str | Path | None = None) -> list[Path]:
    """The verified MetaQA dev question files of `hops`, in `folder` or the default one."""
    folder = Path(folder) if folder else default_metaqa_folder()
    return [folder / f"qa_{hop}hop_dev.tsv" for hop in hops]


def evaluate(files: list, frontend="llm", *, out: str | Path, kb_path: str | Path | None = None,
             schema: Schema = None, kind: str | None = None, limit: int | None = None,
             progress: bool = False, encoding: str | None = None,
             **settings) -> tuple[dict, dict[str, Path]]:
    """Evaluate a front end (a name, opened with `settings`, or a FrontEnd) on question files
    (MetaQA TSV or JSONL; at most `limit` questions of each kind, spread evenly) over the KB
    at `kb_path` (`schema` as for `load_kb`; default: the shipped MetaQA KB); writes
    report.json, report.md, report.png and predictions.jsonl into folder `out`. Returns the
    report and the paths written."""
    from koplc.evaluation.evaluate import evaluate_questions, read_gold_questions, report_of
    from koplc.evaluation.report import write_report
    from koplc.kopl.kb.triple_schema import named_schema

    questions = read_gold_questions(files, kind, limit)  # a bad file fails before a model loads
    schema = named_schema(schema)  # and a bad schema file
    frontend, kb = _frontend_and_kb(frontend, None, kb_path, schema, encoding, settings)
    records = list(evaluate_questions(questions, frontend, kb, progress=progress))
    report = report_of(frontend, records, files)
    return report, write_report(out, report, records)


# SPARQL: RDF export of a KB, lowering to SPARQL 1.1, and running on pyoxigraph or a remote
# endpoint (koplc.sparql_backend). Imported where used: pyoxigraph loads only when needed.

BACKENDS = ("native", "oxigraph", "endpoint")


def lower(text: str, encoding: str = "kqapro", syntax: str = "auto", options=None) -> str:
    """The SPARQL 1.1 query of a program in any syntax, for a KB exported in `encoding`
    (kqapro, plain, freebase, wikidata); checks to run first, where the engine may raise,
    follow as comment lines.

    >>> print(lower('Count(Find("Akron"))').splitlines()[1])
    SELECT (COUNT(*) AS ?count) WHERE {
    """
    from koplc.kopl.execution.executor import DEFAULT
    from koplc.sparql_backend.lower import lower as lower_program

    return lower_program(parse(text, syntax).program, encoding, options or DEFAULT).text()


def kb_export(kb, encoding: str = "kqapro", out: str | Path | None = None) -> str | int:
    """The KB as N-Triples in `encoding`: written atomically to `out` (returns the number of
    lines), else returned as text. KBError if the encoding cannot represent the KB."""
    from koplc.sparql_backend.encodings import encoding_named
    from koplc.sparql_backend.export import ntriples, write_ntriples

    if out is not None:
        return write_ntriples(kb, encoding_named(encoding), Path(out))
    return "".join(ntriples(kb, encoding_named(encoding)))


def sparql_store(kb=None, encoding: str = "kqapro", *, kb_path: str | Path | None = None,
                 store_dir: str | Path | None = None, schema: Schema = None):
    """A pyoxigraph store holding a KB: persistent in `store_dir` for the KB file at
    `kb_path` (loaded the first time, under `schema` as for `load_kb`, unless `kb` is that
    KB; reopened after), else in memory from `kb`."""
    from koplc.sparql_backend.encodings import encoding_named
    from koplc.sparql_backend.stores import OxigraphStore, open_kb_store

    if store_dir is not None:
        if kb_path is None:
            raise KoplcError("a persistent store needs the KB file it holds", code="usage")
        return open_kb_store(kb_path, encoding_named(encoding), store_dir,
                             load_kb=lambda path: kb if kb is not None else load_kb(
                                 path, schema=schema))[0]
    store = OxigraphStore()
    store.load_ntriples(kb_export(kb, encoding).encode("utf-8"))
    return store


def sparql_target(backend: str = "oxigraph", *, kb=None, kb_path: str | Path | None = None,
                  encoding: str = "kqapro", store_dir: str | Path | None = None,
                  endpoint: str | None = None, timeout: float = 30.0, schema: Schema = None):
    """What a SPARQL backend runs on: for "endpoint", the SPARQL endpoint at `endpoint`
    (`timeout` seconds a request); for "oxigraph", a pyoxigraph store holding the KB (see
    `sparql_store`, which `schema` is for)."""
    if backend == "endpoint":
        from koplc.sparql_backend.endpoint import Endpoint

        if not endpoint:
            raise KoplcError("the endpoint backend needs --endpoint URL", code="usage")
        return Endpoint(endpoint, timeout=timeout)
    if backend != "oxigraph":
        raise KoplcError(f"unknown SPARQL backend {backend!r}; choose oxigraph or endpoint",
                         code="usage")
    return sparql_store(kb, encoding, kb_path=kb_path, store_dir=store_dir, schema=schema)


def run_sparql(program, backend: str = "oxigraph", *, kb=None, store=None,
               endpoint: str | None = None, encoding: str = "kqapro", options=None,
               timeout: float = 30.0):
    """Run an IR program as SPARQL on `store`, else on the target `sparql_target` opens for
    `backend` ("oxigraph": an in-memory store built from `kb`; "endpoint": the endpoint at
    `endpoint`); returns the Answer the native executor gives. BackendError names the store or
    endpoint on failure."""
    from koplc.kopl.execution.executor import DEFAULT
    from koplc.sparql_backend.encodings import encoding_named
    from koplc.sparql_backend.lower import lower as lower_program
    from koplc.sparql_backend.results import run_lowered, units_in

    if store is None:
        store = sparql_target(backend, kb=kb, encoding=encoding, endpoint=endpoint,
                              timeout=timeout)
    options = options or DEFAULT
    units = units_in(store, encoding_named(encoding)) if options.unit_conversion else None
    return run_lowered(lower_program(program, encoding, options, units), store)
