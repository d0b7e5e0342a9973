"""The docs site: it builds in strict mode with no warning, its internal links resolve, it loads
nothing from the network, and its CLI and op references are generated from the code (a flag or
an op added to the code shows up with no edit to the docs)."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Literal

import pytest

import koplc.cli
from koplc.kopl import ir
from koplc.kopl.registry import OPS
from koplc.kopl.types import ArgKind, Type

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _tool("docs_reference")
links = _tool("docs_links")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return out


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise KeyError(name)


def _section(page: str, heading: str) -> str:
    """The text of the page from `heading` to the next heading of any level."""
    start = page.index(heading)
    following = re.search(r"^#{1,4} ", page[start + len(heading):], re.M)
    return page[start:start + len(heading) + (following.start() if following else len(page))]


def test_a_new_flag_and_command_show_in_the_cli_reference():
    parser = koplc.cli._parser()
    before = reference.cli_reference(parser)
    _subparser(parser, "compile").add_argument(
        "--frobnicate", metavar="N", default=3, help="frobnicate N times")
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    commands.add_parser("tidy", help="tidy the cache").add_argument("--all", action="store_true")
    page = reference.cli_reference(parser)
    assert "--frobnicate" not in before
    compile_section = _section(page, "### `koplc compile`")
    assert "| `--frobnicate` | `N` | `3` | frobnicate N times |" in compile_section
    assert "### `koplc tidy`" in page and "[`tidy`](#koplc-tidy) | tidy the cache" in page


def test_every_command_and_flag_is_in_the_cli_reference():
    parser = koplc.cli._parser()
    page = reference.cli_reference(parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                section = _section(page, f"### `koplc {name}`")
                flags = [flag for a in sub._actions for flag in a.option_strings
                         if flag.startswith("--") and flag != "--help"]
                assert all(f"`{flag}" in section for flag in flags), name


class Frobnicate(ir.Node):
    """The number of input entities, frobnicated.

    A test op: it is in no registry but the one the test builds.
    """

    op: Literal["Frobnicate"] = "Frobnicate"
    output = Type.COUNT
    family = "count"
    input: Annotated[ir.AnyNode, Type.ENTITIES]
    key: Annotated[str, ArgKind.ATTRIBUTE]


def test_a_new_op_shows_in_the_op_reference():
    info = dataclasses.replace(
        OPS["Count"], name="Frobnicate", cls=Frobnicate, inputs=Frobnicate.child_types(),
        args=Frobnicate.arg_fields(), description="The number of input entities, frobnicated.",
        visitor="visit_Frobnicate")
    page = reference.op_reference({**OPS, "Frobnicate": info})
    assert "Frobnicate" not in reference.op_reference(OPS)
    section = _section(page, "## Frobnicate")
    assert "`Frobnicate(entities; attribute key) -> count`" in page  # the summary table
    assert "A test op: it is in no registry but the one the test builds." in section
    assert "Frobnicate(entities; attribute key) -> count" in section
    assert "| `key` | textual | attribute key |" in section
    assert "`Executor.visit_Frobnicate` in `kopl/execution/queries.py`" in section
    assert '`Frobnicate(Find("carbon-14"), "half-life")`' in section


def test_every_op_has_an_example_and_its_sparql():
    page = reference.op_reference(OPS)
    for name in OPS:
        section = _section(page, f"## {name}\n")
        assert "```sparql" in section and "(not written yet)" not in section, name


def test_the_grammars_page_lists_every_grammar():
    page = reference.grammar_reference(ROOT / "grammar")
    for path in (ROOT / "grammar").glob("*.lark"):
        assert f"## `{path.name}`" in page


def test_the_site_builds_with_the_generated_pages(site):
    cli_page = (site / "reference/cli.html").read_text(encoding="utf-8")
    ops_page = (site / "reference/ops.html").read_text(encoding="utf-8")
    assert "koplc compile" in cli_page and "--frontend" in cli_page
    assert all(f'id="{name.lower()}"' in ops_page for name in OPS)
    assert "koplc.api.compile" in (site / "reference/api.html").read_text(encoding="utf-8")
    assert "Unreleased" in (site / "changelog.html").read_text(encoding="utf-8")


def test_the_site_has_no_broken_link_and_loads_nothing_from_the_network(site):
    assert links.broken_links(site) == []


def test_the_link_checker_finds_what_is_broken(tmp_path):
    (tmp_path / "a.html").write_text(
        '<h1 id="top">A</h1><a href="b.html#here">b</a><a href="b.html#gone">b</a>'
        '<a href="missing.html">m</a><a href="#top">top</a><a href="https://example.org/">x</a>'
        '<script src="https://cdn.example.org/x.js"></script>', encoding="utf-8")
    (tmp_path / "b.html").write_text('<p id="here">b</p>', encoding="utf-8")
    assert links.broken_links(tmp_path) == [
        "a.html: b.html#gone (no anchor #gone)",
        "a.html: missing.html (no such file)",
        "a.html: https://cdn.example.org/x.js (loads from the network)",
    ]


def test_doctest_examples_are_fenced_for_the_api_pages():
    fence = _tool("docs_griffe").fence_examples
    assert fence("Ops.\n\n>>> f()\n['a', 'b']") == "Ops.\n\n```pycon\n>>> f()\n['a', 'b']\n```"


def test_the_readme_is_short_and_links_to_the_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    assert readme.startswith("# koplc\n\n```sh\nmake setup demo")
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / target).exists(), target
