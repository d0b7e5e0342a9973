"""Screenshots of the built docs site: the home page, the tutorial and the op reference.

    make docs && .venv/bin/python tools/docs_screenshots.py [--site build/site] [--out build/screenshots]

Serves the site on 127.0.0.1 (a free port), opens each page in Debian's Chromium, headless,
through Playwright (no browser download), and saves `docs-<page>.png`, the top of the page at
1280×900 and the whole page beside it as `docs-<page>-full.png`.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
PAGES = {"home": "index.html", "tutorial": "tutorial.html", "ops": "reference/ops.html"}


def screenshots(site: Path, out: Path) -> list[Path]:
    """Take the screenshots; returns the files written."""
    from playwright.sync_api import sync_playwright

    if not (site / "index.html").exists():
        raise SystemExit(f"no {site / 'index.html'}: run `make docs` first")
    out.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    written = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            for name, path in PAGES.items():
                page.goto(f"{base}/{path}", wait_until="networkidle")
                for suffix, full in (("", False), ("-full", True)):
                    target = out / f"docs-{name}{suffix}.png"
                    page.screenshot(path=str(target), full_page=full)
                    written.append(target)
            browser.close()
    finally:
        server.shutdown()
    return written


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=Path("build/site"))
    parser.add_argument("--out", type=Path, default=Path("build/screenshots"))
    args = parser.parse_args(argv)
    for path in screenshots(args.site, args.out):
        sys.stdout.write(f"{path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
