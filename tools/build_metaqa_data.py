"""Rebuild the MetaQA data shipped in the package (kopl/datasets/data) from the team's MetaQA files.

    .venv/bin/python tools/build_metaqa_data.py [METAQA_FOLDER]

METAQA_FOLDER (default: ../shared/data/metaqa beside the checkout) holds full/kb.txt (the whole
MetaQA movie KB), full/qa_{1,2,3}hop_dev.tsv (the dev questions whose question-type chain over
it gives exactly the gold answers) and dev_all/qa_{1,2,3}hop_dev_all.tsv (all dev questions).
Written into kopl/datasets/data:

- metaqa_kb.txt.gz, metaqa_qa_{1,2,3}hop_dev.tsv.gz: those files, gzip level 9 without a
  time stamp, so that the same input gives the same bytes;
- metaqa_pool.tsv: one dev question per question template (the question with its [topic]
  masked), in dev file order, 1- then 2- then 3-hop: the first verified question of the
  template, or the first of all dev questions when none of them is verified.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "llm" / "data"


def template_of(question: str) -> str:
    """The question with its [topic] masked (as llm/symkgqa/demos.py's template_of)."""
    start, end = question.index("["), question.index("]")
    return (question[:start] + "ENT" + question[end + 1:]).strip()


def pool_lines(folder: Path) -> list[str]:
    """`question<TAB>answers<TAB>type` lines, one per template of the dev questions."""
    picked: dict[str, str] = {}
    for hop in (1, 2, 3):
        fallback: dict[str, str] = {}
        for line in (folder / f"dev_all/qa_{hop}hop_dev_all.tsv").open(encoding="utf-8"):
            fallback.setdefault(template_of(line.split("\t")[0]), line.rstrip("\n"))
        verified: dict[str, str] = {}
        for line in (folder / f"full/qa_{hop}hop_dev.tsv").open(encoding="utf-8"):
            row = line.rstrip("\n").split("\t", 1)[1]
            verified.setdefault(template_of(row.split("\t")[0]), row)
        for template, row in fallback.items():
            picked.setdefault(template, verified.get(template, row))
    return list(picked.values())


def gzipped(source: Path, target: Path) -> None:
    target.write_bytes(gzip.compress(source.read_bytes(), compresslevel=9, mtime=0))


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else REPO.parent / "shared/data/metaqa"
    gzipped(folder / "full/kb.txt", DATA / "metaqa_kb.txt.gz")
    for hop in (1, 2, 3):
        gzipped(folder / f"full/qa_{hop}hop_dev.tsv", DATA / f"metaqa_qa_{hop}hop_dev.tsv.gz")
    lines = pool_lines(folder)
    (DATA / "metaqa_pool.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    sys.stdout.write(f"{len(lines)} pool questions\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
