"""One tiny KBIGER model trained once per test session, shared by the tests/test_gnn_* files."""

from __future__ import annotations

import tempfile
from collections import Counter
from functools import cache
from pathlib import Path

from conftest import FIXTURES
from kb_fixtures import METAQA_KB, kb_path, metaqa_dev
from koplc import api
from koplc.kopl.datasets.metaqa import read_questions

KB = kb_path(METAQA_KB)
# MetaQA's unverified 1-hop dev questions, with some verified ones that exclude=VERIFIED drops.
TRAIN = [FIXTURES / "metaqa/qa_1hop_train.tsv"]
VERIFIED = [metaqa_dev(hop) for hop in (1, 2, 3)]
TINY = {"dim": 32, "size": 64, "steps": 2, "epochs": 1, "batch_size": 16, "limit": 300}


@cache
def tiny_model() -> tuple[Path, dict]:
    """Train the tiny configuration (1-hop, 300 questions, one epoch); (folder, result)."""
    folder = Path(tempfile.mkdtemp(prefix="koplc-gnn-"))
    result = api.gnn_train(KB, TRAIN, folder, schema="metaqa", exclude=VERIFIED, progress=False,
                           **TINY)
    return folder, result


@cache
def eval_file() -> Path:
    """The first 200 verified 1-hop dev questions, as a tsv file."""
    lines = VERIFIED[0].read_text(encoding="utf-8").splitlines()[:200]
    path = Path(tempfile.mkdtemp(prefix="koplc-gnn-eval-")) / "qa_1hop_sample.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def majority_hits(train_files: list[Path], eval_path: Path) -> float:
    """Hits@1 of always answering the most frequent training answer."""
    counts = Counter(a for f in train_files for q in read_questions(f) for a in q.answers)
    top = counts.most_common(1)[0][0]
    questions = read_questions(eval_path)
    return 100 * sum(top in q.answers for q in questions) / len(questions)
