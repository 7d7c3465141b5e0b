"""Take the README's picture of the page (docs/page.png).

`judged-rag serve` runs the browser test's fake-model graph; one question is asked in
the system's headless Chromium.

Usage: python scripts/page_screenshot.py [OUT]   (default: docs/page.png)
"""

from __future__ import annotations

import secrets
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the fakes live in tests/

from tests.integration.page_graph import (  # noqa: E402
    CHROMIUM,
    QUESTION,
    browser_missing,
    page_server,
)


def main() -> int:
    """Write the screenshot; its size is printed (the README's should stay small)."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "page.png"
    missing = browser_missing()
    if missing:
        print(f"needs {missing}", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    key = secrets.token_urlsafe(16)
    with (
        tempfile.TemporaryDirectory() as folder,
        page_server(Path(folder), key) as base,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        page = browser.new_page(viewport={"width": 900, "height": 600})
        page.goto(f"{base}/#key={key}")
        page.fill("#question", QUESTION)
        page.click("#go")
        page.wait_for_function("() => document.getElementById('status').textContent === 'Done.'")
        page.screenshot(path=str(out), full_page=True)
        browser.close()
    print(f"{out}: {out.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
