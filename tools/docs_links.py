"""Check the links of the built docs site: every internal link and anchor resolves, and no page
loads anything from the network (the site must work offline).

    .venv/bin/python tools/docs_links.py build/site

prints each broken link and exits 1 when there is one; `broken_links(site)` is the function
tests/test_docs_site.py calls.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Attributes that load a resource when the page opens, rather than link to another page.
LOADS = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
         ("source", "src"), ("video", "src"), ("audio", "src")}


class _Page(HTMLParser):
    """The links and the element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, bool]] = []  # (url, whether it loads a resource)
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in ("href", "src"):
                self.links.append((value, (tag, name) in LOADS))


def _read(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(site: Path) -> list[str]:
    """Every broken internal link or anchor, and every resource loaded from the network, of the
    HTML pages under `site`, as `page: link (why)`."""
    site = site.resolve()
    pages = {path: _read(path) for path in sorted(site.rglob("*.html"))}
    problems = []
    for path, page in pages.items():
        where = path.relative_to(site)
        for url, loads in page.links:
            parts = urlsplit(url)
            if parts.scheme in ("http", "https") or url.startswith("//"):
                if loads:
                    problems.append(f"{where}: {url} (loads from the network)")
                continue
            if parts.scheme:  # mailto:, data:, javascript:
                continue
            why = _internal(site, path, parts.path, unquote(parts.fragment), pages)
            if why:
                problems.append(f"{where}: {url} ({why})")
    return problems


def _internal(site: Path, page: Path, target: str, fragment: str,
              pages: dict[Path, _Page]) -> str | None:
    if page.name == "404.html":  # served at any address; its links are written for the root
        return None
    resolved = (page.parent / unquote(target)).resolve() if target else page
    if resolved.is_dir():
        resolved = resolved / "index.html"
    if not resolved.is_relative_to(site):
        return "outside the site"
    if not resolved.exists():
        return "no such file"
    if fragment and resolved.suffix == ".html":
        ids = pages[resolved].ids if resolved in pages else _read(resolved).ids
        if fragment not in ids:
            return f"no anchor #{fragment}"
    return None


def main(argv: list[str]) -> int:
    site = Path(argv[0] if argv else "build/site")
    problems = broken_links(site)
    for problem in problems:
        sys.stdout.write(problem + "\n")
    pages = len(list(site.rglob("*.html")))
    sys.stdout.write(f"docs links: {pages} pages, {len(problems)} broken\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
