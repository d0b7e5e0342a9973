"""The front ends' commands: compile and eval (any front end), gnn train/eval."""

from __future__ import annotations

import json
import os
import sys

from koplc import api
from koplc.cli.common import EXIT_USER_ERROR, add_encoding, add_schema
from koplc.frontends import FRONTENDS

EMITS = ("kopl", "ir-json", "sparql", "answer", "all")

RESPONSE_CACHE_HELP = ("sqlite file of cached LM responses, or 'off' (default: "
                       "$KOPLC_RESPONSE_CACHE, else responses.sqlite in koplc's cache folder)")

NO_REUSE_HELP = ("always generate: do not reuse the program of a pool question phrased exactly "
                 "like this one, nor try the nearest demonstrations' programs when the "
                 "generated one answers nothing")


def add_compile(commands) -> None:
    compile_cmd = commands.add_parser(
        "compile", help="compile questions into grounded KoPL, SPARQL and answers",
        description="compile natural-language questions (one per line) with a front end")
    compile_cmd.add_argument("file", metavar="FILE", help="question file, or - for standard input")
    compile_cmd.add_argument("--emit", default="all", choices=EMITS)
    compile_cmd.add_argument("--explain", action="store_true",
                             help="also print every stage's output (on standard error)")
    _frontend_flags(compile_cmd)
    compile_cmd.set_defaults(run=_compile)
    evaluate = commands.add_parser(
        "eval", help="evaluate a front end on question files",
        description="Hits@1, F1, failures per stage and timings, per kind of question; "
        "writes report.json, report.md, report.png and predictions.jsonl")
    evaluate.add_argument("files", nargs="*", metavar="FILE",
                          help="MetaQA TSV or JSONL question files (default: the MetaQA dev "
                          "files of --hops)")
    evaluate.add_argument("--kind", help="the kind of the files' questions (default: the "
                          "record's own kind, else the hop count in the file name or type)")
    evaluate.add_argument("--limit", type=int,
                          help="questions per kind, spread evenly over the files")
    evaluate.add_argument("--out", default="eval-report", help="report folder")
    evaluate.add_argument("--leave-template-out", action="store_true",
                          help="llm: leave each question's own template out of the pool")
    evaluate.add_argument("--dataset", default="metaqa", choices=["metaqa"],
                          help="without FILE: the dataset to read; a .txt --kb takes its "
                          "schema unless --schema names another")
    evaluate.add_argument("--split", default="dev", choices=["dev"])
    evaluate.add_argument("--data", help="without FILE: the folder holding qa_{1,2,3}hop_dev.tsv")
    evaluate.add_argument("--hops", default="1,2,3", help="without FILE: the hops to read")
    _frontend_flags(evaluate)
    evaluate.set_defaults(run=_eval)


def _frontend_flags(sub) -> None:
    sub.add_argument("--frontend", choices=list(FRONTENDS), default="llm")
    sub.add_argument("--kb", help="KB file, or the http(s) URL of a SPARQL endpoint holding "
                     "the KB (default: the MetaQA movie KB shipped with koplc)")
    add_encoding(sub)
    add_schema(sub)
    sub.add_argument("--lm", default="embedded",
                     help="llm: embedded (default), an OpenAI-compatible server URL, a .gguf "
                     "file or a Hugging Face model folder")
    sub.add_argument("--response-cache", help=RESPONSE_CACHE_HELP)
    sub.add_argument("--no-reuse", action="store_true", help=NO_REUSE_HELP)
    sub.add_argument("--model", help="gnn: a trained model folder (default: the GNN trained "
                     "from the KB's explored pool, in the user cache)")
    sub.add_argument("--train-if-missing", action="store_true",
                     help="gnn: train the KB's GNN from its explored pool first when it has none "
                     "(or resume an interrupted training)")
    sub.add_argument("--pool", help="llm, byokg, agent: demonstration pool file (a `koplc explore` "
                     "pool or a MetaQA-style TSV) instead of the KB's own pool, which is "
                     "explored on first use and cached")
    sub.add_argument("--rerank", action="store_true",
                     help="byokg: the LM rescores the search's three best programs (BYOKG's "
                     "inverse-consistency rerank, alpha 0.5)")


def _settings(args) -> dict:
    settings = {"lm": args.lm, "response_cache": args.response_cache, "model": args.model,
                "reuse": not args.no_reuse, "pool": args.pool, "rerank": args.rerank}
    if args.frontend == "gnn" and args.train_if_missing:
        from koplc.gnn.frontend import GnnOptions

        settings["options"] = GnnOptions(model=args.model, train_if_missing=True)
    return {**settings, "leave_template_out": getattr(args, "leave_template_out", False)}


def _compile(args) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # koplc never downloads a model at run time
    questions = api.read_questions(args.file)
    results = api.compile_questions(questions, args.frontend, kb_path=args.kb,
                                    schema=args.schema, encoding=args.encoding,
                                    **_settings(args))
    if len(questions) == 1:
        return _print_one(next(results), args)
    failed = False
    for compiled in results:
        record = api.compiled_record(compiled, args.emit)
        failed |= not record["ok"]
        print(json.dumps(record, ensure_ascii=False), flush=True)
        _explain(compiled, args)
    return EXIT_USER_ERROR if failed else 0


def _print_one(compiled, args) -> int:
    record = api.compiled_record(compiled, args.emit)
    if args.emit == "answer":
        print("\n".join(record["answer"]))
    elif args.emit == "ir-json":
        print(json.dumps(record.get("ir"), indent=2, ensure_ascii=False))
    elif compiled.final is not None or compiled.raw:
        for key, title in (("kopl", "program"), ("sparql", "SPARQL"), ("answer", "answer")):
            if key in record:
                value = record[key]
                text = "\n".join(value) if isinstance(value, list) else value
                print(f"{title}:\n{text}\n" if args.emit == "all" else text)
    _explain(compiled, args)
    if compiled.ok:
        return 0
    print(f"koplc: no answer: {record['failure']}: {record['error']}", file=sys.stderr)
    return EXIT_USER_ERROR


def _explain(compiled, args) -> None:
    if args.explain:
        print(json.dumps(compiled.to_json(), indent=1, ensure_ascii=False), file=sys.stderr)


def _eval(args) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    files = args.files or api.metaqa_dev_files(
        [int(h) for h in args.hops.split(",")], args.data)
    # The dataset's own questions are asked of a KB shaped as the dataset's is.
    schema = args.schema or (None if args.files else args.dataset)
    _, paths = api.evaluate(files, args.frontend, out=args.out, kb_path=args.kb, schema=schema,
                            kind=args.kind, limit=args.limit, progress=True,
                            encoding=args.encoding, **_settings(args))
    print(paths["report.md"].read_text(encoding="utf-8"))
    print(f"written: {', '.join(str(p) for p in paths.values())}")
    return 0


def add_gnn(commands) -> None:
    gnn = commands.add_parser("gnn", help="train or evaluate the KBIGER GNN front end",
                              description="GNN front-end commands")
    gnn_commands = gnn.add_subparsers(required=True, metavar="GNN_COMMAND")
    train = gnn_commands.add_parser(
        "train", help="train from the KB's explored pool, or on MetaQA tsv files (resumable)",
        description="Without --train: train on the relation-path questions of the KB's explored "
        "pool (explored first when the user cache has none; no labelled question), into the "
        "KB's model folder in the user cache, which --frontend gnn --kb KB then uses. Defaults "
        "fit a shared 2-core machine: 3 epochs, subgraphs of 1000 nodes, at most 6000 "
        "questions, no teacher (the pool's paths teach each step). With --train: MetaQA tsv "
        "files (12 epochs, subgraphs of 2000 nodes, the teacher). Rerun the same command to "
        "resume an interrupted training.")
    train.add_argument("--kb", required=True, help="KB file (.txt triples or .json)")
    add_schema(train)
    train.add_argument("--train", nargs="+", metavar="FILE",
                       help="MetaQA tsv files (default: the KB's explored pool)")
    train.add_argument("--pool", metavar="POOL",
                       help="pool training: this `koplc explore` pool instead of the KB's own")
    train.add_argument("--programs", type=int, metavar="N",
                       help="pool training: explore N programs when the KB's cached pool has "
                       "fewer (default: use the cached pool, or explore koplc explore's default)")
    train.add_argument("--fresh", action="store_true",
                       help="pool training: start over instead of resuming the folder's training")
    train.add_argument("--exclude", nargs="*", default=[], metavar="FILE",
                       help="drop training questions that appear in these files")
    train.add_argument("--out", help="model folder (checkpoint, plot); default for pool "
                       "training: the KB's folder in the user cache")
    train.add_argument("--epochs", type=int)
    train.add_argument("--batch-size", type=int)
    train.add_argument("--limit", type=int, help="train on this many questions only")
    train.add_argument("--dim", type=int, default=64)
    train.add_argument("--steps", type=int, default=3)
    train.add_argument("--size", type=int, help="subgraph size cap (PPR)")
    train.add_argument("--lam", type=float, default=0.05, help="teacher KL weight")
    train.add_argument("--lr", type=float, help="Adam learning rate (default 3e-3)")
    train.add_argument("--seed", type=int, default=0, help="shuffling and initialisation seed")
    train.add_argument("--members", type=int, metavar="N",
                       help="pool training: N networks trained from seeds SEED, SEED + 1, ..., "
                       "answering as one, their reasoning averaged (default 4)")
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
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.set_defaults(run=_gnn_train)
    evaluate = gnn_commands.add_parser("eval", help="Hits@1, F1 per hop, faithfulness")
    evaluate.add_argument("--kb", required=True)
    add_schema(evaluate)
    evaluate.add_argument("--model", help="model folder (default: the GNN trained from the "
                          "KB's explored pool)")
    evaluate.add_argument("--data", nargs="+", required=True, metavar="FILE")
    evaluate.set_defaults(run=_gnn_eval)


def _gnn_train(args) -> int:
    if not args.train:
        return _gnn_train_pool(args)
    if not args.out:
        print("koplc gnn train: --train needs --out DIR", file=sys.stderr)
        return 2
    given = {"epochs": args.epochs, "batch_size": args.batch_size, "size": args.size,
             "lr": args.lr}
    result = api.gnn_train(
        args.kb, args.train, args.out, schema=args.schema, exclude=args.exclude,
        limit=args.limit, dim=args.dim, steps=args.steps, lam=args.lam, seed=args.seed,
        feedback=not args.no_feedback,
        teacher=not args.no_teacher, pretrained=not args.scratch,
        name_prior=not args.no_name_prior, type_filter=not args.no_type_filter,
        progress=not args.quiet, log=lambda row: print(json.dumps(row), flush=True),
        **{k: v for k, v in given.items() if v is not None})
    print(f"trained on {result['examples']} of {result['questions']} questions (the rest have "
          f"no answer in their subgraph or no KB topic); {result['mislabelled']} more were "
          "dropped as mislabelled: their type's relation chain reaches none of their answers")
    return 0


def _gnn_train_pool(args) -> int:
    record = api.gnn_train_pool(
        args.kb, args.out, schema=args.schema, pool=args.pool, programs=args.programs,
        fresh=args.fresh, seed=args.seed, progress=not args.quiet,
        log=lambda row: print(json.dumps(row), flush=True),
        epochs=args.epochs, batch_size=args.batch_size, limit=args.limit, size=args.size,
        lr=args.lr, dim=args.dim, steps=args.steps, lam=args.lam, members=args.members,
        feedback=not args.no_feedback, pretrained=not args.scratch,
        name_prior=not args.no_name_prior)
    print(f"trained on {record['examples']} relation-path questions of the pool {record['pool']} "
          f"({record['pool_entries']} programs), {record['epochs_done']} epochs "
          f"({record['options']['members']} networks) in "
          f"{record['seconds']} s; the model: {record['folder']}")
    return 0


def _gnn_eval(args) -> int:
    if not args.model:
        from koplc.gnn.pool_training import ready_model

        args.model = ready_model(args.kb)
    for split, metrics in api.gnn_eval(args.kb, args.model, args.data,
                                       schema=args.schema).items():
        print(split, json.dumps(metrics))
    return 0
