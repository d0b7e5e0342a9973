"""The development KBs (tests/fixtures/devkbs): one front end on one half of each KB's questions,
accuracy by question kind, and seconds per question.

    .venv/bin/python benchmarks/devkbs.py --frontend byokg --half tune
    .venv/bin/python benchmarks/devkbs.py --frontend llm --half report --kbs starwars flights
    .venv/bin/python benchmarks/devkbs.py --frontend llm --half report --response-cache off
    .venv/bin/python benchmarks/devkbs.py --frontend agent --agent-k 1 --half tune
    .venv/bin/python benchmarks/devkbs.py --frontend byokg --half tune --untyped

Each KB's questions carry `half` ("tune" or "report"): constants are set on tune halves only,
and notes report report halves. Writes build/devkbs/<frontend>-<half>/<kb>/ (koplc eval's
report files) and prints one table: Hits@1 per KB and kind, the absent questions' share that
said nothing was found, and the median seconds per question.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from koplc import api

ROOT = Path(__file__).resolve().parent.parent
DEVKBS = ROOT / "tests" / "fixtures" / "devkbs"
# name -> (KB file, schema file or None), all beside the KB's questions.jsonl
KBS = {"starwars": ("kb.nt", None), "isotopes": ("kb.json", None),
       "flights": ("kb.txt", "schema.json"), "bakeoff": ("kb.json", None),
       "mammals": ("kb.ttl", None), "cars": ("kb.nt", None)}


def half_file(kb: str, half: str, out: Path) -> Path:
    """The questions of `kb`'s `half`, as a JSONL file of their own under `out`. The half
    "more" is the KB's second tune set (more_questions.jsonl, all of it tune), written after
    the first tune half had been worked on; "absent" is its third (absent_questions.jsonl, all
    of it tune and about what the KB lacks), written after the second; "fourth" its fourth
    (fourth_questions.jsonl, all of it tune, 6 of 30 absent), written on 2026-12-01 before
    anything ran on it."""
    name, half = ({"more": ("more_questions.jsonl", "tune"),
                   "absent": ("absent_questions.jsonl", "tune"),
                   "fourth": ("fourth_questions.jsonl", "tune")}.get(half)
                  or ("questions.jsonl", half))
    lines = (DEVKBS / kb / name).read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if line and json.loads(line)["half"] == half]
    path = out / f"{kb}-{half}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path


def source(kb: str) -> tuple[Path, str | None]:
    """`kb`'s KB file and its schema file (None when it has none)."""
    kb_file, schema = KBS[kb]
    return DEVKBS / kb / kb_file, str(DEVKBS / kb / schema) if schema else None


def run(kb: str, frontend: str, half: str, out: Path, untyped: bool = False,
        **settings) -> dict:
    """koplc eval of `frontend` on `kb`'s `half` (on the KB with no concept, `untyped`); its
    report."""
    path, schema = (untyped_copy(kb, out), None) if untyped else source(kb)
    report, _ = api.evaluate([half_file(kb, half, out)], frontend, out=out / kb,
                             kb_path=path, schema=schema, progress=True, **settings)
    return report


def untyped_copy(kb: str, out: Path) -> Path:
    """`kb` as KoPL JSON with no concept: every entity an instance of nothing, as a KB written
    as plain triples with labels is (the held-out benchmarks' KBs are)."""
    path, schema = source(kb)
    data = json.loads(api.kb_convert(api.load_kb(path, schema=schema)))
    data["concepts"] = {}
    for entity in data["entities"].values():
        entity["instanceOf"] = []
    path = out / f"{kb}-untyped.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def table(reports: dict[str, dict]) -> str:
    """A Markdown table: Hits@1 per kind (rows) and KB (columns), counts in brackets."""
    kinds = list(dict.fromkeys(k for r in reports.values() for k in r["kinds"]))
    lines = ["| kind | " + " | ".join(reports) + " |",
             "|---|" + "---|" * len(reports)]
    for kind in [*kinds, "all"]:
        cells = []
        for report in reports.values():
            block = (report["overall"] if kind == "all"
                     else report["kinds"].get(kind))
            cells.append(f"{block['hits@1']:.0f} ({block['n']})" if block else "")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    seconds = [f"{r['overall']['seconds']['total']['median']:.2f}"
               for r in reports.values()]
    lines.append("| median s/question | " + " | ".join(seconds) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frontend", default="byokg")
    parser.add_argument("--half", choices=("tune", "report", "more", "absent", "fourth"),
                        required=True)
    parser.add_argument("--kbs", nargs="+", choices=sorted(KBS), default=list(KBS))
    parser.add_argument("--response-cache", help="the LM's response cache (off: every "
                        "question generates, as a new question does; default: the user cache)")
    parser.add_argument("--agent-k", type=int, help="the agent's candidate actions a round "
                        "(1: greedy; default: the agent's own)")
    parser.add_argument("--untyped", action="store_true", help="each KB with its concepts "
                        "taken out, as plain triples with labels are written")
    args = parser.parse_args()
    out = ROOT / "build" / "devkbs" / (f"{args.frontend}-{args.half}"
                                       + ("-untyped" if args.untyped else ""))
    settings = {"response_cache": args.response_cache} if args.response_cache else {}
    if args.agent_k:
        from koplc.llm.agent.frontend import AgentSettings
        from koplc.llm.agent.loop import AgentOptions

        settings["options"] = AgentSettings(loop=AgentOptions(k=args.agent_k))
    reports = {kb: run(kb, args.frontend, args.half, out, args.untyped, **settings)
               for kb in args.kbs}
    text = table(reports)
    (out / "table.md").write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
