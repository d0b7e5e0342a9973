"""The thin command line over koplc.api: parse, check, fmt, run, lower, kb stats, kb convert,
kb export."""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import date
from pathlib import Path

from koplc import __version__, api
from koplc.kopl.diagnostics import render_all
from koplc.kopl.errors import KoplcError

EXIT_USER_ERROR = 1
EXIT_INTERNAL = 70


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (1 user error, 2 usage error)."""
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except KoplcError as err:
        print(err.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    except OSError as err:
        print(f"koplc: {err.filename or ''}: {err.strerror or err}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # noqa: BLE001 - the last line of defence against tracebacks
        print(f"koplc: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return EXIT_INTERNAL


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="koplc", description=__doc__)
    parser.add_argument("--version", action="version", version=f"koplc {__version__}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    syntaxes = [*api.SYNTAXES]

    def command(name: str, run, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("file", metavar="FILE", help="program file, or - for standard input")
        sub.add_argument("--from", dest="source", default="auto", choices=["auto", *syntaxes],
                         help="syntax of the input (default: detect)")
        sub.add_argument("--jsonl", action="store_true",
                         help="FILE holds one program per line (JSON string or {\"program\": ...})")
        sub.set_defaults(run=run)
        return sub

    parse_cmd = command("parse", _parse, "parse a program and print it in another syntax")
    parse_cmd.add_argument("--to", dest="target", default="ir-json", choices=syntaxes)
    check_cmd = command("check", _check, "parse and type-check a program; report every problem")
    check_cmd.add_argument("--kb", help="also warn about names this KB lacks")
    fmt = command("fmt", _fmt, "print a program canonically in its own syntax")
    fmt.add_argument("--in-place", action="store_true", help="rewrite FILE (atomically)")
    run_cmd = command("run", _run, "execute a program (or a JSONL batch) on a KB")
    _add_run(run_cmd)
    _add_backend(run_cmd)
    _add_lower(command("lower", _lower, "lower a program to SPARQL 1.1"))
    _add_kb(commands)
    _add_compile(commands)
    _add_gnn(commands)
    _add_grounding(commands, syntaxes)
    return parser


def _add_run(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--kb", required=True, help="KB file: .json, .txt (MetaQA triples), .nt, .ttl")
    sub.add_argument("--unit-conversion", action="store_true",
                     help="compare quantities across convertible units (sympy)")
    sub.add_argument("--no-findall-concepts", action="store_true",
                     help="FindAll returns entities only (the engine includes concepts)")
    sub.add_argument("--inclusive-comparators", action="store_true", help="allow <= and >=")
    sub.add_argument("--today", type=date.fromisoformat, help="the date NOW means (yyyy-mm-dd)")


def _add_kb(commands) -> None:
    kb = commands.add_parser("kb", help="inspect or convert a KB", description="KB commands")
    kb_commands = kb.add_subparsers(required=True, metavar="KB_COMMAND")
    stats = kb_commands.add_parser("stats", help="count concepts, entities, facts, keys")
    stats.add_argument("kb", metavar="KB")
    stats.set_defaults(run=_kb_stats)
    convert = kb_commands.add_parser("convert", help="write the KB as KoPL KB JSON")
    convert.add_argument("kb", metavar="KB")
    convert.add_argument("--to", default="kopl-json", choices=["kopl-json"])
    convert.add_argument("--out", help="output file, written atomically (default: stdout)")
    convert.set_defaults(run=_kb_convert)
    _add_kb_export(kb_commands)


def _run(args) -> int:
    if args.backend != "native":
        return _run_sparql(args)
    from koplc.kopl.execute import ExecOptions

    kb = api.load_kb(args.kb)
    options = ExecOptions(unit_conversion=args.unit_conversion,
                          findall_concepts=not args.no_findall_concepts,
                          inclusive_comparators=args.inclusive_comparators, today=args.today)
    if args.jsonl:
        return _emit_batch(args, lambda text: {
            "ok": True, **api.run(text, kb, args.source, options).to_json()})
    print(json.dumps(api.run(_read(args.file), kb, args.source, options).to_json(),
                     ensure_ascii=False))
    return 0


def _kb_stats(args) -> int:
    for name, count in api.kb_stats(api.load_kb(args.kb)).items():
        print(f"{name}: {count}")
    return 0


def _kb_convert(args) -> int:
    text = api.kb_convert(api.load_kb(args.kb), args.to, args.out)
    if args.out is None:
        sys.stdout.write(text)
    return 0


def _read(path: str) -> str:
    return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")


def _emit_batch(args, job) -> int:
    failed = False
    for record in api.batch(_read(args.file).splitlines(), job):
        failed |= not record.get("ok", False)
        print(json.dumps(record, ensure_ascii=False))
    return EXIT_USER_ERROR if failed else 0


def _parse(args) -> int:
    if args.jsonl:
        return _emit_batch(args, lambda text: {
            "ok": True, "program": api.transpile(text, args.source, args.target)})
    print(api.transpile(_read(args.file), args.source, args.target))
    return 0


def _check(args) -> int:
    kb = api.load_kb(args.kb) if args.kb else None
    if args.jsonl:
        def job(text: str) -> dict:
            report = api.check(text, args.source, kb)
            return {"ok": report.ok, "diagnostics": [d.to_json() for d in report.diagnostics]}
        return _emit_batch(args, job)
    text = _read(args.file)
    report = api.check(text, args.source, kb)
    if report.diagnostics:
        print(render_all(report.diagnostics, text), file=sys.stderr)
    if report.ok:
        print("ok")
    return 0 if report.ok else EXIT_USER_ERROR


def _fmt(args) -> int:
    if args.jsonl:
        if args.in_place:
            raise KoplcError("--in-place cannot be combined with --jsonl", code="usage")
        return _emit_batch(args, lambda text: {
            "ok": True, "program": api.format_program(text, args.source)})
    text = _read(args.file)
    formatted = api.format_program(text, args.source) + "\n"
    if args.in_place:
        if args.file == "-":
            raise KoplcError("--in-place needs a file, not standard input", code="usage")
        if formatted != text:
            api.write_atomically(Path(args.file), formatted)
        return 0
    sys.stdout.write(formatted)
    return 0


def _add_grounding(commands, syntaxes: list[str]) -> None:
    index = commands.add_parser("index", help="build the grounding indexes of a KB",
                                description="embed the KB's names and save the indexes")
    index.add_argument("kb", metavar="KB")
    index.add_argument("--folder", help="where to keep the indexes (default: beside the KB, "
                       "else $KOPLC_CACHE_DIR)")
    index.add_argument("--force", action="store_true", help="rebuild even when current")
    index.set_defaults(run=_index)
    ground = commands.add_parser("ground", help="ground a program's names against a KB",
                                 description="ground a program against a KB")
    ground.add_argument("file", metavar="FILE", help="program file, or - for standard input")
    ground.add_argument("--kb", required=True, help="KB file: .json, .txt, .nt, .ttl")
    ground.add_argument("--question", help="the question the program answers (context)")
    ground.add_argument("--from", dest="source", default="auto", choices=["auto", *syntaxes])
    ground.add_argument("--to", dest="target", default="ir-json", choices=syntaxes)
    ground.add_argument("--explain", action="store_true",
                        help="also print every change as a table (on standard error)")
    ground.add_argument("--no-execution-guidance", action="store_true",
                        help="rank candidates by names and schema only (no partial runs)")
    ground.add_argument("--index-folder", help="where the indexes are kept")
    ground.set_defaults(run=_ground)


def _index(args) -> int:
    report = api.build_index(args.kb, folder=args.folder, force=args.force, progress=True)
    for kind, count in report.counts.items():
        state = "built" if kind in report.rebuilt else "current"
        print(f"{kind}: {count} names ({state})")
    print(f"folder: {report.folder or '(not saved: no writable folder)'}")
    print(f"size: {report.bytes / 1e6:.1f} MB; time: {report.seconds:.1f} s")
    return 0


def _ground(args) -> int:
    from koplc.kopl.grounding.context import GroundingOptions

    options = GroundingOptions(execution_guidance=not args.no_execution_guidance)
    text, kb = _read(args.file), api.load_kb(args.kb)
    indexes = api.grounding_indexes(kb, args.kb, folder=args.index_folder, progress=True)
    grounded = api.ground(text, kb, args.question, args.source, indexes=indexes,
                          options=options)
    print(api.print_program(grounded.program, args.target))
    if args.explain:
        print(api.explain_grounding(grounded), file=sys.stderr)
    if grounded.remaining:
        print(render_all(grounded.remaining), file=sys.stderr)
        return EXIT_USER_ERROR
    return 0


def _add_gnn(commands) -> None:
    gnn = commands.add_parser("gnn", help="train or evaluate the KBIGER GNN front end",
                              description="GNN front-end commands")
    gnn_commands = gnn.add_subparsers(required=True, metavar="GNN_COMMAND")
    train = gnn_commands.add_parser("train", help="train on MetaQA tsv files (resumable)")
    train.add_argument("--kb", required=True, help="KB file (.txt MetaQA triples or .json)")
    train.add_argument("--train", nargs="+", required=True, metavar="FILE")
    train.add_argument("--exclude", nargs="*", default=[], metavar="FILE",
                       help="drop training questions that appear in these files")
    train.add_argument("--out", required=True, help="model folder (checkpoint, plot)")
    train.add_argument("--epochs", type=int, default=5)
    train.add_argument("--batch-size", type=int, default=32)
    train.add_argument("--limit", type=int, help="train on this many questions only")
    train.add_argument("--dim", type=int, default=64)
    train.add_argument("--steps", type=int, default=3)
    train.add_argument("--size", type=int, default=2000, help="subgraph size cap (PPR)")
    train.add_argument("--lam", type=float, default=0.05, help="teacher KL weight")
    train.add_argument("--lr", type=float, default=3e-3, help="Adam learning rate")
    train.add_argument("--seed", type=int, default=0, help="shuffling and initialisation seed")
    train.add_argument("--no-feedback", action="store_true", help="ablation: no graph feedback")
    train.add_argument("--no-teacher", action="store_true", help="ablation: no teacher")
    train.add_argument("--no-name-prior", action="store_true",
                       help="match instructions to edge types by learnt vectors only (default: "
                       "plus the word similarity of the attended words and the relation name)")
    train.add_argument("--no-type-filter", action="store_true",
                       help="keep questions whose MetaQA type's relation chain reaches none of "
                       "their answers in the KB (default: drop them as mislabelled)")
    train.add_argument("--scratch", action="store_true",
                       help="train word embeddings from scratch (default: MiniLM's, frozen)")
    train.set_defaults(run=_gnn_train)
    evaluate = gnn_commands.add_parser("eval", help="Hits@1, F1 per hop, faithfulness")
    evaluate.add_argument("--kb", required=True)
    evaluate.add_argument("--model", required=True, help="model folder")
    evaluate.add_argument("--data", nargs="+", required=True, metavar="FILE")
    evaluate.set_defaults(run=_gnn_eval)


def _gnn_train(args) -> int:
    result = api.gnn_train(
        args.kb, args.train, args.out, exclude=args.exclude, epochs=args.epochs,
        batch_size=args.batch_size, limit=args.limit, dim=args.dim, steps=args.steps,
        size=args.size, lam=args.lam, lr=args.lr, seed=args.seed,
        feedback=not args.no_feedback,
        teacher=not args.no_teacher, pretrained=not args.scratch,
        name_prior=not args.no_name_prior, type_filter=not args.no_type_filter,
        log=lambda row: print(json.dumps(row), flush=True))
    print(f"trained on {result['examples']} of {result['questions']} questions "
          "(the rest have no answer in their subgraph or no KB topic)")
    return 0


def _gnn_eval(args) -> int:
    for split, metrics in api.gnn_eval(args.kb, args.model, args.data).items():
        print(split, json.dumps(metrics))
    return 0


def _gnn_compile(args) -> int:
    if getattr(args, "frontend", None) not in (None, "gnn"):
        raise KoplcError(f"the {args.frontend} front end is not available in compile here",
                         code="usage")
    if not args.model:
        raise KoplcError("--frontend gnn needs --model DIR (a trained GNN)", code="usage")
    result = api.gnn_compile(_read(args.file), args.kb, args.model)
    print(f"program: {result['program']}")
    print(f"SPARQL:\n{result['sparql']}")
    print(f"answer: {json.dumps(result['answers'], ensure_ascii=False)}")
    print(f"faithful: {result['faithful']} (GNN: {len(result['gnn_answers'])} answers, "
          f"program: {len(result['program_answers'])})")
    return 0


EMITS = ("kopl", "ir-json", "sparql", "answer", "all")


RESPONSE_CACHE_HELP = ("sqlite file of cached LM responses, or 'off' (default: "
                       "$KOPLC_RESPONSE_CACHE, else responses.sqlite in koplc's cache folder)")


NO_REUSE_HELP = ("always generate: do not reuse the program of a pool question phrased exactly "
                 "like this one")


def _add_compile(commands) -> None:
    compile_cmd = commands.add_parser(
        "compile", help="compile questions into grounded KoPL, SPARQL and answers",
        description="compile natural-language questions (one per line) with the LLM front end")
    compile_cmd.add_argument("file", metavar="FILE", help="question file, or - for standard input")
    compile_cmd.add_argument("--kb", help="KB file (default: the MetaQA movie KB shipped with koplc)")
    compile_cmd.add_argument("--lm", default="embedded",
                             help="embedded (default), an OpenAI-compatible server URL, a .gguf "
                             "file or a Hugging Face model folder")
    compile_cmd.add_argument("--emit", default="all", choices=EMITS)
    compile_cmd.add_argument("--response-cache", help=RESPONSE_CACHE_HELP)
    compile_cmd.add_argument("--explain", action="store_true",
                             help="also print every stage's output (on standard error)")
    compile_cmd.add_argument("--no-reuse", action="store_true", help=NO_REUSE_HELP)
    compile_cmd.add_argument("--frontend", choices=["llm", "gnn"], default="llm")
    compile_cmd.add_argument("--model", help="GNN model folder (--frontend gnn)")
    compile_cmd.set_defaults(run=_compile)
    evaluate = commands.add_parser("eval", help="evaluate the LLM front end on a dataset",
                                   description="Hits@1, F1 and a failure breakdown")
    evaluate.add_argument("--dataset", default="metaqa", choices=["metaqa"])
    evaluate.add_argument("--split", default="dev", choices=["dev"])
    evaluate.add_argument("--data", default="../shared/data/metaqa",
                          help="folder holding qa_{1,2,3}hop_dev.tsv")
    evaluate.add_argument("--hops", default="1,2,3")
    evaluate.add_argument("--limit", type=int, help="questions per hop")
    evaluate.add_argument("--kb", help="KB file (default: the shipped MetaQA KB)")
    evaluate.add_argument("--lm", default="embedded")
    evaluate.add_argument("--response-cache", help=RESPONSE_CACHE_HELP)
    evaluate.add_argument("--leave-template-out", action="store_true")
    evaluate.add_argument("--no-reuse", action="store_true", help=NO_REUSE_HELP)
    evaluate.add_argument("--out", default="predictions.jsonl")
    evaluate.set_defaults(run=_eval)


def _compile(args) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # koplc never downloads a model at run time
    if args.frontend == "gnn":
        if not args.kb or not args.model:
            raise KoplcError("--frontend gnn needs --kb and --model", code="usage")
        return _gnn_compile(args)
    from koplc.llm.pipeline import CompileOptions

    questions = api.read_questions_file(args.file)
    compiler = api.compiler(args.kb, api.open_lm(args.lm, args.response_cache),
                            options=CompileOptions(reuse=not args.no_reuse))
    failed = False
    for question in questions:
        try:
            result = compiler.compile(question)
        except KoplcError as err:
            if len(questions) == 1:
                raise
            print(json.dumps({"question": question, "ok": False, "error": err.render()}))
            failed = True
            continue
        failed |= not result.answer
        record = _compiled_record(result, args.emit)
        if len(questions) > 1:
            print(json.dumps(record, ensure_ascii=False))
        else:
            _print_compiled(record, args.emit)
        if args.explain:
            print(json.dumps(result.to_json(), indent=1, ensure_ascii=False), file=sys.stderr)
    if failed and len(questions) == 1:
        best = result.best or result.attempts[-1]
        print(f"koplc: no answer: {best.failed}: {best.error or 'the program found nothing'}",
              file=sys.stderr)
    return EXIT_USER_ERROR if failed else 0


def _compiled_record(result, emit: str) -> dict:
    best = result.best or result.attempts[-1]
    node = best.node
    record = {"question": result.question, "ok": bool(result.answer)}
    if emit in ("kopl", "all"):
        record["kopl"] = best.grounded or best.program or best.raw
    if emit in ("ir-json", "all") and node is not None:
        record["ir"] = node.model_dump(mode="json")
    if emit in ("sparql", "all") and node is not None:
        record["sparql"] = api.lower_sparql(node)
    if emit in ("answer", "all"):
        record["answer"] = result.answer
    return record


def _print_compiled(record: dict, emit: str) -> None:
    if emit == "answer":
        print("\n".join(record["answer"]))
        return
    if emit == "ir-json":
        print(json.dumps(record.get("ir"), indent=2, ensure_ascii=False))
        return
    for key, title in (("kopl", "program"), ("sparql", "SPARQL"), ("answer", "answer")):
        if key in record:
            value = record[key]
            text = "\n".join(value) if isinstance(value, list) else value
            print(f"{title}:\n{text}\n" if emit == "all" else text)


def _eval(args) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from tqdm import tqdm

    from koplc.llm.evaluate import dev_questions, evaluate_one, summarize, write_jsonl
    from koplc.llm.pipeline import CompileOptions

    hops = tuple(int(h) for h in args.hops.split(","))
    questions = dev_questions(args.data, hops, args.limit)
    compiler = api.compiler(args.kb, api.open_lm(args.lm, args.response_cache))
    options = CompileOptions(reuse=not args.no_reuse)
    records = [evaluate_one(compiler, q, options, args.leave_template_out)
               for q in tqdm(questions, desc="eval", unit="q")]
    write_jsonl(records, args.out)
    print(json.dumps(summarize(records), indent=1))
    return 0


# SPARQL: koplc lower, koplc run --backend oxigraph|endpoint, koplc kb export.


def _sparql_options(sub: argparse.ArgumentParser) -> None:
    from koplc.sparql_backend.encodings import ENCODINGS

    sub.add_argument("--encoding", default="kqapro", choices=sorted(ENCODINGS),
                     help="the RDF encoding of the KB (default: kqapro)")


def _add_backend(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--backend", default="native", choices=api.BACKENDS,
                     help="execute natively (default), on pyoxigraph, or on a SPARQL endpoint")
    sub.add_argument("--endpoint", help="SPARQL endpoint URL (for --backend endpoint)")
    sub.add_argument("--store", help="persistent pyoxigraph folder for the KB (loaded once)")
    sub.add_argument("--timeout", type=float, default=30.0, help="endpoint timeout, seconds")
    _sparql_options(sub)


def _add_lower(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--to", dest="target", default="sparql", choices=["sparql"])
    sub.add_argument("--no-findall-concepts", action="store_true",
                     help="FindAll returns entities only (the engine includes concepts)")
    sub.add_argument("--inclusive-comparators", action="store_true", help="allow <= and >=")
    sub.add_argument("--today", type=date.fromisoformat, help="the date NOW means (yyyy-mm-dd)")
    _sparql_options(sub)


def _add_kb_export(kb_commands) -> None:
    export = kb_commands.add_parser("export", help="write the KB as N-Triples in an RDF "
                                    "encoding (kqapro, plain, freebase)")
    export.add_argument("kb", metavar="KB")
    export.add_argument("--to", dest="out", help="output .nt file, written atomically "
                        "(default: stdout)")
    _sparql_options(export)
    export.set_defaults(run=_kb_export)


def _options(args):
    from koplc.kopl.execute import ExecOptions

    return ExecOptions(unit_conversion=getattr(args, "unit_conversion", False),
                       findall_concepts=not args.no_findall_concepts,
                       inclusive_comparators=args.inclusive_comparators, today=args.today)


def _lower(args) -> int:
    if args.jsonl:
        return _emit_batch(args, lambda text: {
            "ok": True, "sparql": api.lower(text, args.encoding, args.source, _options(args))})
    print(api.lower(_read(args.file), args.encoding, args.source, _options(args)))
    return 0


def _run_sparql(args) -> int:
    if args.backend == "endpoint":
        from koplc.sparql_backend.endpoint import Endpoint

        if not args.endpoint:
            raise KoplcError("--backend endpoint needs --endpoint URL", code="usage")
        kb, store = None, Endpoint(args.endpoint, timeout=args.timeout)
    else:
        kb = api.load_kb(args.kb)
        store = api.sparql_store(kb, args.encoding, kb_path=args.kb, store_dir=args.store)

    def job(text: str) -> dict:
        return {"ok": True, **api.run(text, kb, args.source, _options(args), backend=args.backend,
                                      store=store, encoding=args.encoding).to_json()}
    if args.jsonl:
        return _emit_batch(args, job)
    answer = job(_read(args.file))
    answer.pop("ok")
    print(json.dumps(answer, ensure_ascii=False))
    return 0


def _kb_export(args) -> int:
    text = api.kb_export(api.load_kb(args.kb), args.encoding, args.out)
    if args.out is None:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
