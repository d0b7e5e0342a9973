"""Where the benchmarks find their inputs.

The MetaQA KB and its verified dev questions ship in the package, the example KBs, conformance
cases and parser corpora are test fixtures; only a few large files live in the team's data
folder (``shared/`` beside the checkout), which a benchmark needing one names before it exits.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
SHARED = REPO.parent / "shared"


def require(*paths: Path) -> None:
    """Exit with a message naming the inputs of `paths` that are missing, if any."""
    missing = [str(path) for path in paths if not Path(path).is_file()]
    if missing:
        sys.exit(f"{Path(sys.argv[0]).name}: needs {', '.join(missing)}, which the repository "
                 "does not carry: put the team's data folder (shared/) beside the checkout")


def metaqa_kb() -> Path:
    """The MetaQA KB shipped in the package (kb.txt triples), unpacked into the cache."""
    from koplc.llm.lm.defaults import default_kb_path

    return default_kb_path()


def metaqa_dev_folder() -> Path:
    """The folder of MetaQA's verified dev questions (shipped in the package)."""
    from koplc.llm.lm.defaults import default_dev_folder

    return default_dev_folder()


def metaqa_dev(hop: int) -> Path:
    """MetaQA's verified dev questions of `hop` hops (shipped in the package)."""
    return metaqa_dev_folder() / f"qa_{hop}hop_dev.tsv"
