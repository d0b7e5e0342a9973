"""MkDocs hooks (mkdocs.yml `hooks:`): the generated pages and the import tree for the API pages.

- `on_config` makes `build/docs-import-tree`, the package as Python sees it (the folders are
  mapped into `koplc` by pyproject's package-dir, which griffe cannot follow), and points
  mkdocstrings at it. Making it is idempotent, so two builds at once do not trip over it.
- `on_files` adds the pages generated from the code (`tools/docs_reference.py`): the CLI
  reference from the argparse parser, the op reference from the op registry, the grammars;
  and the changelog from CHANGELOG.md, which lives at the top of the repository.
"""

from __future__ import annotations

import importlib.util
import os
import tomllib
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "docs-import-tree"


def _reference_module():
    spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "tools" /
                                                  "docs_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def import_tree(root: Path, tree: Path) -> Path:
    """Make (or bring up to date) `tree`: `koplc/` with links to the files of the `koplc`
    folder and one link per mapped subpackage, as pyproject.toml's package-dir says."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    folders = project["tool"]["setuptools"]["package-dir"]
    for name, folder in sorted(folders.items()):
        source = (root / folder).resolve()
        target = tree.joinpath(*name.split("."))
        if "." in name:
            _link(target, source)
            continue
        target.mkdir(parents=True, exist_ok=True)
        for entry in source.iterdir():
            _link(target / entry.name, entry)
        for entry in target.iterdir():  # a file removed from the folder since
            if entry.is_symlink() and not entry.exists():
                entry.unlink(missing_ok=True)
    return tree


def _link(target: Path, source: Path) -> None:
    if target.is_symlink() and Path(os.readlink(target)) == source:
        return
    if target.is_symlink():
        target.unlink(missing_ok=True)
    try:
        target.symlink_to(source, target_is_directory=source.is_dir())
    except FileExistsError:  # another build made it at the same moment
        pass


@event_priority(100)
def on_config(config):
    import_tree(ROOT, TREE)
    handlers = config.plugins["mkdocstrings"].config.handlers
    handlers.setdefault("python", {})["paths"] = [str(TREE)]
    return config


def on_files(files, config):
    import koplc.cli
    from koplc.kopl.registry import OPS

    reference = _reference_module()
    pages = {
        "reference/cli.md": reference.cli_reference(koplc.cli._parser()),
        "reference/ops.md": reference.op_reference(OPS),
        "reference/grammars.md": reference.grammar_reference(ROOT / "grammar"),
        "changelog.md": (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
    }
    for uri, content in pages.items():
        files.append(File.generated(config, uri, content=content))
    return files
