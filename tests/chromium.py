"""How the tests start Debian's Chromium: where it is, the flags it runs with here (headless, no
sandbox as root, no network of its own), and the flag that keeps a page from reaching anywhere but the
local test server."""
from __future__ import annotations

import socket
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

_HELD: list[socket.socket] = []


def _refusing_port() -> int:
    """A loopback port this process has bound and never listens on: a connection to it is refused."""
    if not _HELD:
        held = socket.socket()
        held.bind(("127.0.0.1", 0))
        _HELD.append(held)
    return _HELD[0].getsockname()[1]


def offline_args() -> list[str]:
    """ARGS, and every request but to the loopback address (which Chromium never sends through a
    proxy) sent to a proxy that refuses the connection: the browser itself refuses it, and a test that
    watches Playwright's request events sees and names it. Playwright's request routing would refuse
    such requests too, but routing turns the browser's HTTP cache off, so each page fetched and
    compiled its theme's scripts anew (1.5 MB of Font Awesome among them): a third of the CPU time
    the offline crawl spent loading pages."""
    return ARGS + [f"--proxy-server=http://127.0.0.1:{_refusing_port()}"]
