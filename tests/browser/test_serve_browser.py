"""`quizapp serve` as a user meets it: the real command, a real headless Chromium, the real database.

- Two tabs each review a self-graded card with r, Space and 3 at the same time; both reviews are in
  the review log, and a screenshot that is not blank is kept (its path is printed). A tab made
  smaller than 80x24 asks, in one line, to be enlarged.
- The server listens on the loopback address only (read from /proc/net/tcp, not from the flags);
  a host or port it cannot use is one line and exit status 2; an explicit other host warns once.
- SIGINT stops it and leaves no app process behind (each tab's pid and process group checked); a
  server killed with SIGKILL takes its apps along.
- A page of another site cannot drive the app (Origin), nor reach it under another name (Host).

The browser is Debian's `chromium` (installed by .ci/run) driven by playwright with executable_path;
no browser is ever downloaded. Only the browser test is skipped when chromium is not installed.
Every request goes to 127.0.0.1: the page's web font is blocked, nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from quizapp.cli import main

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian package "
                                    "`chromium`; .ci/run installs it)")

QUESTION = """\
id: serve-{name}
title: "Browser card {name}: what does Space do?"
topic: serve
lang: en
answer: |
  It reveals the answer of card {name}.
"""


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    folder = tmp_path / "bank" / "serve"
    folder.mkdir(parents=True)
    for name in ("one", "two"):
        (folder / f"serve-{name}.yaml").write_text(QUESTION.format(name=name), encoding="utf-8")
    return tmp_path / "bank"


class Served:
    """`quizapp serve --port 0` in its own session; its output collected by threads."""

    def __init__(self, tmp_path: Path, bank: Path, *extra: str) -> None:
        self.db = tmp_path / "served.sqlite3"
        env = {**os.environ, "QUIZAPP_CACHE": str(tmp_path / "cache")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "quizapp", "serve", "--port", "0", "--db", str(self.db), "--content", str(bank),
             *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=lambda s=stream, l=lines: l.extend(iter(s.readline, "")), daemon=True).start()
        deadline = time.monotonic() + 60
        while not any("http://" in line for line in self.out):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no URL printed; out={self.out} err={self.err}")
            time.sleep(0.05)
        line = next(line for line in self.out if "http://" in line)
        self.url = line[line.index("http://"):].split()[0]
        self.port = int(self.url.rsplit(":", 1)[1].strip("/"))

    def children(self) -> set[int]:
        return {pid for pid, ppid, _ in processes() if ppid == self.process.pid}

    def interrupt(self, timeout: float = 30) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.interrupt()
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture
def served(tmp_path: Path, bank: Path):
    started: list[Served] = []

    def start(*extra: str) -> Served:
        started.append(Served(tmp_path, bank, *extra))
        return started[-1]

    yield start
    for server in started:
        server.close()


def processes() -> list[tuple[int, int, int]]:
    """(pid, ppid, pgid) of every live process (zombies are not running, so they are left out)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z":
            found.append((int(entry.name), int(fields[1]), int(fields[2])))
    return found


def assert_gone(pids: set[int]) -> None:
    deadline = time.monotonic() + 10
    while True:
        left = [p for p in processes() if p[0] in pids or p[2] in pids]  # the app or anything in its group
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not left, f"app processes left behind: {left}"


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def listening_addresses(port: int) -> list[str]:
    """Local addresses of the sockets listening on `port`, from the kernel's tables."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if fields[3] == "0A" and int(port_hex, 16) == port:  # 0A = LISTEN
                raw = bytes.fromhex(address)
                if len(raw) == 4:
                    found.append(socket.inet_ntop(socket.AF_INET, raw[::-1]))
                else:  # four little-endian 32-bit words
                    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                    found.append(socket.inet_ntop(socket.AF_INET6, words))
    return found


# --- the browser ------------------------------------------------------------------------------------


class Tab:
    """One browser tab on the served app; what the app sent it (the terminal output) is collected from
    the websocket frames, since the page draws the terminal on a canvas."""

    def __init__(self, context, url: str) -> None:
        self.page = context.new_page()
        self.frames: list[str] = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._received))
        self.page.goto(url)

    def _received(self, payload) -> None:
        self.frames.append(payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload)

    def mark(self) -> int:
        return len(self.frames)

    def wait_for(self, needles: str | tuple[str, ...], since: int = 0, timeout: float = 60) -> None:
        """Until one of `needles` was drawn after frame `since`."""
        needles = (needles,) if isinstance(needles, str) else needles
        deadline = time.monotonic() + timeout
        while not any(needle in "".join(self.frames[since:]) for needle in needles):
            if time.monotonic() > deadline:
                raise AssertionError(f"{needles!r} never drawn; last output: {''.join(self.frames)[-2000:]!r}")
            self.page.wait_for_timeout(100)  # lets playwright deliver the frames

    def press(self, key: str) -> int:
        mark = self.mark()
        self.page.focus("textarea.xterm-helper-textarea")  # the terminal's keyboard input, as a click gives it
        self.page.keyboard.press(key)
        return mark


def pixel_spread(page, png: bytes) -> float:
    """Standard deviation of the screenshot's grey levels (0 for a blank, one-colour page)."""
    return page.evaluate(
        """async (data) => {
            const image = new Image();
            image.src = "data:image/png;base64," + data;
            await image.decode();
            const canvas = document.createElement("canvas");
            canvas.width = image.width; canvas.height = image.height;
            const context = canvas.getContext("2d");
            context.drawImage(image, 0, 0);
            const pixels = context.getImageData(0, 0, image.width, image.height).data;
            let sum = 0, squares = 0, n = 0;
            for (let i = 0; i < pixels.length; i += 4) {
                const grey = (pixels[i] + pixels[i + 1] + pixels[i + 2]) / 3;
                sum += grey; squares += grey * grey; n += 1;
            }
            const mean = sum / n;
            return Math.sqrt(squares / n - mean * mean);
        }""",
        base64.b64encode(png).decode("ascii"),
    )


@needs_chromium
def test_two_tabs_review_at_once_and_sigint_leaves_no_app(served, tmp_path: Path):
    from playwright.sync_api import sync_playwright

    server = served()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            local = server.url.rstrip("/")
            context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(local)
                          else route.abort())  # the page's web font: nothing leaves the machine
            tabs = [Tab(context, server.url), Tab(context, server.url)]
            for tab in tabs:
                tab.wait_for("Learned")  # Home, with its topic table
            apps = wait_until(lambda: len(server.children()) == 2 and server.children(), 30, "two app processes")

            marks = [tab.press("r") for tab in tabs]  # both tabs review at the same time
            for tab, mark in zip(tabs, marks):
                tab.wait_for("what does Space do?", mark)
            marks = [tab.press("Space") for tab in tabs]
            for tab, mark in zip(tabs, marks):
                tab.wait_for("It reveals the answer", mark)
            marks = [tab.press("3") for tab in tabs]

            def logged():
                with sqlite3.connect(server.db) as conn:
                    return conn.execute("SELECT card_id, rating, mode FROM review_log").fetchall()

            rows = wait_until(lambda: len(logged()) == 2 and logged(), 30, "two reviews in the database")
            assert sorted((rating, mode) for _, rating, mode in rows) == [(3, "review"), (3, "review")]
            assert all(card.startswith("serve-") for card, _, _ in rows)
            for tab, mark in zip(tabs, marks):  # the next card or the summary, never an error
                tab.wait_for(("what does Space do?", "Cards reviewed"), mark)
                assert "locked" not in "".join(tab.frames).lower()

            tabs[0].page.wait_for_timeout(500)
            png = tabs[0].page.screenshot()
            kept = tmp_path / "serve-tab.png"
            kept.write_bytes(png)
            print(f"screenshot of the served app: {kept}")
            assert pixel_spread(tabs[0].page, png) > 5, f"blank screenshot: {kept}"

            mark = tabs[1].mark()  # a window under 80x24: one line asking to enlarge it
            tabs[1].page.set_viewport_size({"width": 560, "height": 330})
            tabs[1].wait_for("Please enlarge the window to at least 80x24", mark)

            assert server.interrupt() == 0
        finally:
            browser.close()
    assert_gone(apps)
    assert any("stopped" in line for line in server.out)


# --- without a browser --------------------------------------------------------------------------------


async def _open_tab(url: str, origin: str | None = None, host: str | None = None):
    """A websocket client as the page's script opens it; returns (status, first frame or None)."""
    import aiohttp

    headers = {"Origin": origin or url.rstrip("/")}
    if host:
        headers["Host"] = host
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url.rstrip("/") + "/ws?width=100&height=30", headers=headers) as ws:
                message = await asyncio.wait_for(ws.receive(), 60)
                return 101, message.data
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status, None


def test_sigint_ends_every_app_process(served):
    server = served()
    clients = []

    async def hold_tabs():
        import aiohttp

        session = aiohttp.ClientSession()
        for _ in range(2):
            ws = await session.ws_connect(server.url.rstrip("/") + "/ws?width=100&height=30",
                                          headers={"Origin": server.url.rstrip("/")})
            await asyncio.wait_for(ws.receive(), 60)  # the app started and drew
            clients.append(ws)
        apps = wait_until(lambda: len(server.children()) == 2 and server.children(), 30, "two app processes")
        code = await asyncio.get_running_loop().run_in_executor(None, server.interrupt)
        await session.close()
        return apps, code

    apps, code = asyncio.run(hold_tabs())
    assert code == 0
    assert_gone(apps)


def test_a_killed_server_takes_its_apps_along(served):
    server = served()

    async def hold_tab():
        import aiohttp

        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(server.url.rstrip("/") + "/ws?width=100&height=30",
                                          headers={"Origin": server.url.rstrip("/")}) as ws:
                await asyncio.wait_for(ws.receive(), 60)
                apps = wait_until(lambda: server.children(), 30, "the app process")
                os.kill(server.process.pid, signal.SIGKILL)
                server.process.wait(10)
                return apps

    assert_gone(asyncio.run(hold_tab()))


def test_listens_on_loopback_only(served):
    server = served()
    assert server.url.startswith("http://127.0.0.1:")
    addresses = listening_addresses(server.port)
    assert addresses and all(a.startswith("127.") or a == "::1" for a in addresses), addresses
    assert not server.err  # no warning on the loopback address


def test_another_site_cannot_drive_or_reach_it(served):
    server = served()
    assert asyncio.run(_open_tab(server.url, origin="http://evil.example"))[0] == 403
    assert asyncio.run(_open_tab(server.url, host=f"evil.example:{server.port}"))[0] == 421
    status, first = asyncio.run(_open_tab(server.url))  # the page's own origin: the app starts
    assert status == 101 and first


def test_an_explicit_other_host_warns_once(served):
    server = served("--host", "0.0.0.0")
    wait_until(lambda: server.err, 10, "the warning")
    assert len(server.err) == 1 and "anyone who can reach" in server.err[0] and "database" in server.err[0]
    assert listening_addresses(server.port) == ["0.0.0.0"]


@pytest.mark.parametrize("host, says", [
    ("127.0.0.300", "expected an IP address"),
    ("::zz", "expected an IP address"),
    ("", "expected an IP address"),
    ("my-laptop.example", "expected an IP address"),  # a name is never looked up
    ("192.0.2.1", "not an address of this machine"),  # TEST-NET-1: no machine has it; nothing is sent
])
def test_a_bad_host_is_one_line_and_exit_2(capsys, host, says):
    assert main(["serve", "--host", host, "--port", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and says in err, err


def test_a_port_in_use_is_one_line_and_exit_2(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "already in use" in err, err


@pytest.mark.parametrize("port", ["70000", "-1", "http", "80.5"])
def test_a_bad_port_is_one_line_and_exit_2(capsys, port):
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--port", port])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--port" in err, err


def test_global_options_reach_the_served_command(tmp_path: Path):
    import shlex

    from quizapp.cli import build_parser, resolve_options
    from quizapp.cli.serve import TAB, app_command

    odd = tmp_path / "my bank's 'folder'"
    args = build_parser().parse_args(["--lang", "zh", "serve", "--content", str(odd), "--db", "rel/q $x.sqlite3"])
    command = app_command(resolve_options(args, {}), python="/opt/py thon/bin/python", server_pid=41)
    assert command.startswith("exec ")
    assert shlex.split(command[len("exec "):]) == [
        "/opt/py thon/bin/python", "-c", TAB, "41", "--content", str(odd),
        "--db", str(Path("rel/q $x.sqlite3").absolute()), "--lang", "zh",
    ]
    plain = app_command(resolve_options(build_parser().parse_args(["serve"]), {}), python="python", server_pid=7)
    assert shlex.split(plain) == ["exec", "python", "-c", TAB, "7"]  # the app's own defaults (and stored language)
