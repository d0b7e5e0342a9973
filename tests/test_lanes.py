"""The run-level checks of tests/conftest.py, in nested pytest sessions (pytester) that load a
copy of it: under KOPLC_TESTS_NO_SKIPS=1 a strict xfail that fails is a known failure and the
run passes, while a skip, a non-strict xfail, a strict xfail that passes, and a write into
tests/fixtures each fail the run."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).resolve().parent / "conftest.py"


@pytest.fixture
def nested(pytester, monkeypatch):
    """Run a test module, beside one that passes, in a nested session with our conftest and
    no skips allowed."""
    monkeypatch.setenv("KOPLC_TESTS_NO_SKIPS", "1")
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    (pytester.path / "fixtures").mkdir()

    def run(source: str) -> pytest.RunResult:
        pytester.makepyfile(test_nested=source, test_other="def test_fine():\n    pass\n")
        return pytester.runpytest("-p", "no:cacheprovider")

    return run


def test_a_strict_xfail_that_fails_is_a_known_failure(nested):
    result = nested("""
        import pytest

        @pytest.mark.xfail(strict=True, reason="a known failure")
        def test_known():
            assert False
    """)
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*FAILED RUN*")


def test_a_skip_fails_the_run(nested):
    result = nested("""
        import pytest

        @pytest.mark.skip(reason="not now")
        def test_skipped():
            pass
    """)
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*FAILED RUN: 1 skipped tests*test_skipped*"])


def test_a_module_level_skip_fails_the_run(nested):
    result = nested("""
        import pytest

        pytest.importorskip("no_such_module_anywhere")
    """)
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*FAILED RUN: 1 skipped tests*test_nested.py*"])


def test_a_non_strict_xfail_counts_as_a_skip(nested):
    result = nested("""
        import pytest

        @pytest.mark.xfail(reason="may fail")
        def test_maybe():
            assert False
    """)
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*FAILED RUN: 1 skipped tests*test_maybe*"])


def test_a_strict_xfail_that_passes_fails_the_run(nested):
    result = nested("""
        import pytest

        @pytest.mark.xfail(strict=True, reason="a known failure, fixed meanwhile")
        def test_fixed():
            pass
    """)
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_write_into_the_fixtures_fails_the_run(nested):
    result = nested("""
        from pathlib import Path

        def test_writes():
            (Path(__file__).parent / "fixtures" / "new.json").write_text("{}")
    """)
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*FAILED RUN: tests wrote into tests/fixtures: new.json*"])
