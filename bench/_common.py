"""Shared pieces of the benchmarks: a private server, percentiles, a table, SSE readers.

Benchmarks print figures and assert nothing (docs/architecture.md §10). Every server they
start is a real `relaybay serve` on a free loopback port with a throwaway data folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.server import RelaybayServer, free_port  # noqa: E402


@contextlib.contextmanager
def private_server(**env: str) -> Iterator[RelaybayServer]:
    """A real `relaybay serve` with a temp data folder, stopped (SIGTERM) on exit."""
    with tempfile.TemporaryDirectory(prefix="relaybay-bench-") as tmp:
        server = RelaybayServer(home=Path(tmp) / "home", env=dict(env)).start()
        try:
            yield server
        finally:
            server.stop()


def serve_under_daphne(app: object, port: int) -> None:
    """Serve a bare ASGI app as `relaybay serve` runs daphne: the same HTTP factory, an
    access log line per request — the floor a benchmark compares the product with."""
    from daphne.endpoints import build_endpoint_description_strings
    from daphne.server import Server

    from relaybay_site import http_limits

    def access_log(protocol: str, action: str, details: dict) -> None:
        if protocol == "http" and action == "complete":
            sys.stderr.write(
                f"{details.get('method')} {details.get('path')} {details.get('status')}\n"
            )

    http_limits.install(10)
    Server(
        app,
        endpoints=build_endpoint_description_strings(host="127.0.0.1", port=port),
        signal_handlers=True,
        action_logger=access_log,
        verbosity=0,
        application_close_timeout=2,
    ).run()


@contextlib.contextmanager
def daphne_child(script: Path, flag: str) -> Iterator[object]:
    """`python <script> <flag> <port>` (which calls serve_under_daphne) on a free port, up
    once it answers an HTTP request; a stand-in with the `port` a RelaybayServer has."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(script), flag, str(port)],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "relaybay_site.settings"},
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                conn.request("GET", "/")
                conn.getresponse().read()
                conn.close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"{script.name} {flag} did not start") from None
                time.sleep(0.1)
        yield type("Bare", (), {"port": port, "base_url": f"http://127.0.0.1:{port}"})()
    finally:
        proc.terminate()
        proc.wait(10)


def seed_in_child(script: str, home: Path) -> None:
    """Run `script --seed home` in a child with the server's settings (RELAYBAY_HOME is the
    folder): the seeding benches write through the services as the server would."""
    from tests.support.server import clean_env

    env = clean_env(RELAYBAY_HOME=str(home), DJANGO_SETTINGS_MODULE="relaybay_site.settings")
    root = Path(__file__).resolve().parent.parent
    path = str(Path(script).resolve())
    subprocess.run([sys.executable, path, "--seed", str(home)], env=env, cwd=root, check=True)


def kept_home(argv: list[str], requests: int) -> tuple[Path | None, int]:
    """`[N] [--home DIR]`: the folder to keep and reuse (None: a temporary one) and the
    number of requests a row."""
    keep = None
    if "--home" in argv:
        at = argv.index("--home")
        keep = Path(argv[at + 1]).resolve()
        argv = argv[:at] + argv[at + 2 :]
    return keep, int(argv[0]) if argv else requests


def percentile(samples: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of unsorted samples."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f}"


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    print(f"\n{title}")
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(str(c).rjust(w) for c, w in zip(row, widths, strict=True)))


def get_json(server: RelaybayServer, path: str) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {server.token}"})
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


class SseSubscribers:
    """N open /events streams read on one event loop in a thread of their own.

    Each data line is stamped with time.perf_counter() when its bytes arrive, so the
    writer (another thread, same clock) can compute write → receive per subscriber.
    """

    def __init__(self, server: RelaybayServer, count: int, query: str = "") -> None:
        self.server, self.count, self.query = server, count, query
        self.received: list[list[tuple[dict, float]]] = [[] for _ in range(count)]
        self._loop: asyncio.AbstractEventLoop | None = None
        self._main: asyncio.Task | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SseSubscribers:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the SSE subscribers did not connect")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._main is not None:
            self._loop.call_soon_threadsafe(self._main.cancel)
        self._thread.join(5)

    def _run(self) -> None:
        asyncio.run(self._all())

    async def _all(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._main = asyncio.current_task()
        connected = asyncio.Semaphore(0)
        readers = [asyncio.create_task(self._read(n, connected)) for n in range(self.count)]
        for _ in range(self.count):
            await connected.acquire()
        self._ready.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*readers)

    async def _read(self, n: int, connected: asyncio.Semaphore) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.server.port)
        writer.write(
            f"GET /events{self.query} HTTP/1.1\r\nHost: 127.0.0.1:{self.server.port}\r\n"
            f"Authorization: Bearer {self.server.token}\r\n\r\n".encode()
        )
        buffer, announced = b"", False
        try:
            while chunk := await reader.read(65536):
                now = time.perf_counter()
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    if line.startswith(b"data: {"):
                        self.received[n].append((json.loads(line[6:]), now))
                if not announced and b": connected" in chunk:
                    announced = True
                    connected.release()
        finally:
            writer.close()
