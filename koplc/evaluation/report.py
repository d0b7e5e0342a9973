"""The evaluation report of one front end on question files: report.json, report.md,
report.png and predictions.jsonl, in one format whichever the front end."""

from __future__ import annotations

import json
from pathlib import Path

from koplc.evaluation.scoring import WRONG_ANSWER
from koplc.kopl.atomic import atomic_file, write_atomically
from koplc.kopl.errors import KoplcError
from koplc.kopl.frontend import FAILURE_STAGES

PLOT_SIZE = (10, 4)  # inches; at PLOT_DPI: 1000 x 400 pixels
PLOT_DPI = 100


def write_report(out: str | Path, report: dict, records: list[dict]) -> dict[str, Path]:
    """Write the report and the per-question records into folder `out`; their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {name: out / name for name in
             ("report.json", "report.md", "report.png", "predictions.jsonl")}
    write_atomically(paths["report.json"], json.dumps(report, indent=1, ensure_ascii=False))
    write_atomically(paths["report.md"], markdown(report))
    plot(report, paths["report.png"])
    with atomic_file(paths["predictions.jsonl"]) as sink:
        for record in records:
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")
    return paths


def markdown(report: dict) -> str:
    """The report as Markdown: what was run, accuracy and failures per kind, timings."""
    blocks = {**report["kinds"], "all": report["overall"]}
    lines = [f"# koplc eval: the {report['frontend']} front end", "",
             f"{report['questions']} questions from {', '.join(report['files'])}.", "",
             "Hits@1: the top-ranked answer (the topic left out) is a gold answer; this front "
             f"end ranks thus: {report['ranking']}. Hits@1 (set), BYOKG's rule: every answer "
             "of the set at rank 1, so any gold answer among them counts. F1: the answer set, "
             "less the topic, against the gold set. Failures: the stage where a question "
             "failed.", "",
             "| kind | n | Hits@1 | Hits@1 (set) | F1 | answered by | failures | wrong programs |",
             "|---|---|---|---|---|---|---|---|"]
    for kind, b in blocks.items():
        lines.append(f"| {kind} | {b['n']} | {b['hits@1']} | {b['hits@1 (set)']} | "
                     f"{b['f1']} | "
                     f"{_counts(b['answered_by'])} | {_counts(b['failures'])} | "
                     f"{_counts(b['wrong_programs'])} |")
    stages = list(dict.fromkeys(s for b in blocks.values() for s in b["seconds"]))
    lines += ["", "Seconds per question, median / p95:", "",
              "| stage | " + " | ".join(blocks) + " |", "|---" * (len(blocks) + 1) + "|"]
    for stage in stages:
        cells = [f"{t['median']} / {t['p95']}" if (t := b["seconds"].get(stage)) else "-"
                 for b in blocks.values()]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _counts(counts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "-"


def plot(report: dict, path: Path) -> None:
    """Hits@1 and F1 per kind (left) and failures per stage, stacked by kind (right)."""
    try:
        import matplotlib
    except ImportError as err:
        raise KoplcError("the report plot needs matplotlib (koplc's gnn extra)",
                         code="missing-dependency") from err
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    kinds = list(report["kinds"])
    blocks = [report["kinds"][k] for k in kinds] + [report["overall"]]
    labels = [*kinds, "all"]
    figure, (left, right) = plt.subplots(1, 2, figsize=PLOT_SIZE)
    xs = range(len(labels))
    left.bar([x - 0.2 for x in xs], [b["hits@1"] for b in blocks], 0.4, label="Hits@1")
    left.bar([x + 0.2 for x in xs], [b["f1"] for b in blocks], 0.4, label="F1")
    left.set_xticks(list(xs), labels)
    left.set_ylim(0, 100)
    left.set_ylabel("%")
    left.set_title(f"{report['frontend']}: accuracy per kind")
    left.legend()
    stages = [s for s in (*FAILURE_STAGES, WRONG_ANSWER) if s in report["overall"]["failures"]]
    stages += sorted(set(report["overall"]["failures"]) - set(stages))
    bottom = [0] * len(stages)
    for kind in kinds:
        counts = [report["kinds"][kind]["failures"].get(s, 0) for s in stages]
        right.bar(stages, counts, bottom=bottom, label=kind)
        bottom = [a + b for a, b in zip(bottom, counts, strict=True)]
    right.set_title("failures per stage")
    right.set_ylabel("questions")
    right.yaxis.set_major_locator(MaxNLocator(integer=True))
    right.tick_params(axis="x", labelrotation=20)
    if stages:
        right.legend()
    figure.tight_layout()
    with atomic_file(path, "wb") as sink:
        figure.savefig(sink, format="png", dpi=PLOT_DPI)
    plt.close(figure)
