"""Shared fixtures: the test data folder and its JSON Lines records; checks on the whole run.

Everything the suite reads is in tests/fixtures (see its README) or shipped in the package;
nothing is read from outside the checkout, and nothing is written into tests/fixtures (a run
that changes it fails). With KOPLC_TESTS_NO_SKIPS=1, as CI runs the suite, a skipped test fails
the run: a skip is not a pass. A known failure is `@pytest.mark.xfail(strict=True, reason=...)`:
it is not a skip, and when it passes the run fails (strict); any other xfail counts as a skip.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"

_SKIPPED: list[str] = []
_PROBLEMS: list[str] = []
_FIXTURES_BEFORE: dict[str, tuple[int, int]] = {}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def alternating_halves(questions: list[dict]) -> Counter:
    """Asserts a dev KB's questions alternate halves within each kind, tune first; returns how
    many questions each kind has."""
    seen: Counter = Counter()
    for q in questions:
        assert q["half"] == ("tune" if seen[q["kind"]] % 2 == 0 else "report"), q["question"]
        seen[q["kind"]] += 1
    return seen


def second_tune_set_is_well_formed(more: list[dict], first: list[dict], kinds: set[str],
                                   extra_keys: frozenset[str] = frozenset(),
                                   absent: int = 4) -> None:
    """Asserts a dev KB's second tune set (more_questions.jsonl; or its fourth,
    fourth_questions.jsonl, with 6 `absent`) has the promised shape: 30 questions of the KB's
    `kinds`, all `tune`, sorted distinct answers (at most 15, none for the `absent` ones, which
    alone have no program), none asked in the earlier sets (`first`); `extra_keys` a question
    may carry beside those."""
    assert len(more) == 30
    for q in more:
        assert set(q) - extra_keys == {"question", "answers", "kind", "half"} | (
            set() if q["kind"] == "absent" else {"program"}), q
        assert q["kind"] in kinds and q["half"] == "tune" and q["question"].strip(), q
        assert all(isinstance(a, str) for a in q["answers"])
        assert q["answers"] == sorted(set(q["answers"])) and len(q["answers"]) <= 15, q
        assert bool(q["answers"]) == (q["kind"] != "absent"), q
    asked = [q["question"] for q in more]
    assert len(set(asked)) == len(asked)
    assert not set(asked) & {q["question"] for q in first}
    assert sum(q["kind"] == "absent" for q in more) == absent


def gold_form(value) -> list:
    """An executed program's value as a question file writes its gold answers: a list as its
    sorted distinct members, anything else as itself alone."""
    return sorted(set(value)) if isinstance(value, list) else [value]


@pytest.fixture
def user_cache(tmp_path, monkeypatch) -> Path:
    """A user cache folder of the test's own (KOPLC_CACHE_DIR)."""
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def private_caches(user_cache, tmp_path, monkeypatch):
    """The test's own user cache folder and LM response cache."""
    monkeypatch.setenv("KOPLC_RESPONSE_CACHE", str(tmp_path / "responses.sqlite"))


def _fixture_files() -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(FIXTURES)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in FIXTURES.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def _is_worker(config) -> bool:
    # Under pytest-xdist the controller sees every worker's reports and spans the whole run,
    # so the checks run there alone.
    return hasattr(config, "workerinput")


def _known_failure(item) -> bool:
    mark = item.get_closest_marker("xfail")
    return (mark is not None and mark.kwargs.get("run", True)
            and mark.kwargs.get("strict", item.config.getini("xfail_strict")))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    # An attribute, not a lookup at the end: xdist sends reports, not items, to the controller.
    report.koplc_known_failure = bool(hasattr(report, "wasxfail") and _known_failure(item))
    return report


def pytest_sessionstart(session):
    if not _is_worker(session.config):
        _FIXTURES_BEFORE.update(_fixture_files())


def pytest_runtest_logreport(report):
    # An xfail is reported as skipped; a strict one that fails is a known failure, not a skip.
    if report.skipped and not getattr(report, "koplc_known_failure", False):
        _SKIPPED.append(report.nodeid)


def pytest_collectreport(report):
    if report.skipped:  # a module-level skip or importorskip
        _SKIPPED.append(report.nodeid)


def pytest_sessionfinish(session):
    if _is_worker(session.config):
        return
    after = _fixture_files()
    changed = sorted(name for name in after.keys() | _FIXTURES_BEFORE.keys()
                     if after.get(name) != _FIXTURES_BEFORE.get(name))
    if changed:
        _PROBLEMS.append(f"tests wrote into tests/fixtures: {', '.join(changed[:10])}")
    if _SKIPPED and os.environ.get("KOPLC_TESTS_NO_SKIPS") == "1":
        _PROBLEMS.append(f"{len(_SKIPPED)} skipped tests (KOPLC_TESTS_NO_SKIPS=1): "
                         f"{', '.join(_SKIPPED[:10])}")
    if _PROBLEMS and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    for problem in _PROBLEMS:
        terminalreporter.write_line(f"FAILED RUN: {problem}", red=True, bold=True)
