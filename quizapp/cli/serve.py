"""`quizapp serve [--host HOST] [--port PORT]`: the full app in a web browser, through textual-serve.

textual-serve runs one command per browser tab and relays its screen over a websocket, so each tab
is its own `quizapp` process on the same database, exactly as two terminals would be (the store's
WAL mode, busy timeout and BEGIN IMMEDIATE writes keep concurrent reviews apart). The command is
this Python running `quizapp` (through `tab()`) with the global options given here (--content, --db,
--lang).

Safety, since textual-serve has no authentication:
- it listens on 127.0.0.1 unless --host says otherwise, and then prints one warning line;
- the listening socket is bound here before the server starts, so a port in use, a bad host or an
  address of another machine is one line and exit status 2;
- on the loopback address the server answers only requests whose Host names the loopback (a page
  elsewhere cannot reach it by DNS rebinding), and on any address the websocket that drives the app
  is refused to a page of another origin (cross-site websocket hijacking).

Stopping (Ctrl+C, SIGINT or SIGTERM): the open tabs' apps are told to quit (their reviews are already
committed), given a few seconds, and then their process groups are killed: each app runs in its own
session, so no app process outlives the server. A server killed outright takes its apps along too
(PR_SET_PDEATHSIG, Linux).
"""

from __future__ import annotations

import argparse
import sys

from quizapp.cli.args import text, whole_number

HELP = "serve the app to a web browser (textual-serve); only this machine can connect unless --host says otherwise"

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8000
QUIT_GRACE_S = 5.0  # how long the apps have to quit on their own when the server stops
KILL_GRACE_S = 2.0  # then SIGTERM to each app's process group, and SIGKILL after this


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", type=text(253, "host"), default=None, metavar="HOST",
                        help=f"IP address to listen on, or localhost (default {LOOPBACK}: this machine only; any other lets "
                             "anyone who can reach it use the app and its database: there is no authentication)")
    parser.add_argument("--port", type=whole_number(0, 65535), default=DEFAULT_PORT, metavar="PORT",
                        help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one)")


TAB = "from quizapp.cli.serve import tab; tab()"  # what each tab's process runs (see tab())


def app_command(options, python: str = sys.executable, server_pid: int | None = None) -> str:
    """The shell command textual-serve runs for each tab: `exec` so the shell becomes the app process,
    which runs `quizapp` with the global options given to serve."""
    import os
    import shlex
    from pathlib import Path

    argv = [python, "-c", TAB, str(os.getpid() if server_pid is None else server_pid)]
    for folder in options.content_dirs:
        argv += ["--content", str(Path(folder).expanduser().absolute())]
    if options.db_path is not None:
        argv += ["--db", str(Path(options.db_path).expanduser().absolute())]
    if options.lang_given:
        argv += ["--lang", options.lang]
    return "exec " + shlex.join(argv)


def tab() -> None:
    """One tab's app: `quizapp` with the arguments after the server's pid, ending when the server ends,
    even a server killed with SIGKILL (on Linux the kernel sends this process SIGTERM, which the web
    driver turns into a clean exit)."""
    import os
    import signal

    server_pid, argv = int(sys.argv[1]), sys.argv[2:]
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != server_pid:  # the server is already gone
        sys.exit(0)
    from quizapp.cli import main

    sys.exit(main(argv))


def listen(host: str, port: int, lang: str = "en"):
    """A socket bound to (host, port) and listening; CliError (exit 2) with one line when it cannot be."""
    import errno
    import ipaddress
    import socket

    from quizapp.cli import CliError
    from quizapp.cli.args import quote
    from quizapp.words import say

    shown = quote(host)
    try:  # an address, never a name: a name may stand for several addresses, and no lookup is made
        literal = LOOPBACK if host == "localhost" else str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        raise CliError(say("serve.cli.bad_host", lang, host=shown)) from None
    try:
        infos = socket.getaddrinfo(literal, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE | socket.AI_NUMERICHOST | socket.AI_NUMERICSERV)
    except (socket.gaierror, UnicodeError):
        raise CliError(say("serve.cli.bad_host", lang, host=shown)) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        if sys.platform != "win32":  # as aiohttp does: a port in TIME_WAIT is free, one listened on is not
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise CliError(say("serve.cli.port_in_use", lang, port=port, host=shown)) from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise CliError(say("serve.cli.not_local", lang, host=shown)) from None
        raise CliError(say("serve.cli.cannot_listen", lang, host=shown, port=port,
                           reason=exc.strerror or exc)) from None
    sock.setblocking(False)
    return sock


def is_loopback(sock) -> bool:
    import ipaddress

    return ipaddress.ip_address(sock.getsockname()[0].split("%")[0]).is_loopback


def url_of(sock) -> str:
    """The address to open: the bound one, this machine's name for a wildcard address."""
    import ipaddress
    import socket

    host, port = sock.getsockname()[:2]
    ip = ipaddress.ip_address(host.split("%")[0])
    if ip.is_unspecified:
        return f"http://{socket.gethostname()}:{port}"
    return f"http://[{host}]:{port}" if ip.version == 6 else f"http://{host}:{port}"


def _prepare(options) -> None:
    """Open (create or migrate) the database and warm the bank's cache once, before any tab starts:
    a database that cannot be opened is one line here instead of in every tab, and tabs opened at the
    same moment do not all create the file or parse the YAML."""
    from pathlib import Path

    from quizapp import locations
    from quizapp.cli import CliError
    from quizapp.clock import SystemClock
    from quizapp.content.cache import load_bank_cached
    from quizapp.store import Store, StoreError

    db_path = Path(options.db_path).expanduser() if options.db_path else locations.default_db_path()
    try:
        Store.open(db_path, SystemClock()).close()
    except StoreError as exc:
        raise CliError(str(exc)) from None
    load_bank_cached(tuple(locations.content_dirs(tuple(options.content_dirs))), locations.cache_dir())


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli.args import printable
    from quizapp.words import say

    host = LOOPBACK if args.host is None else args.host
    sock = listen(host, args.port, options.lang)
    try:
        _prepare(options)
        url = url_of(sock)
        if not is_loopback(sock):
            print(f"quizapp: {printable(say('serve.cli.exposed', options.lang, host=host, url=url))}",
                  file=sys.stderr, flush=True)
        server = make_server(app_command(options), sock, url, lang=options.lang)
        server.serve()
    finally:
        sock.close()
    print(f"quizapp: {say('serve.cli.stopped', options.lang)}", flush=True)
    return 0


def make_server(command: str, sock, url: str, lang: str = "en"):
    """A textual_serve Server on the bound `sock` (see the module's docstring for what it changes)."""
    import asyncio
    import logging
    import os
    import signal
    from urllib.parse import urlsplit

    import aiohttp_jinja2
    from aiohttp import WSCloseCode, web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server, to_int

    from quizapp.words import say

    log = logging.getLogger("textual-serve")
    loopback = is_loopback(sock)
    port = sock.getsockname()[1]
    loopback_hosts = {f"{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]")}
    if port == 80:
        loopback_hosts |= {"127.0.0.1", "localhost", "[::1]"}

    class TabApp(AppService):
        """One tab's app process, started in its own session (a process group the server can kill)."""

        def __init__(self, *args, processes: set, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._processes = processes

        async def _open_app_process(self, width: int = 80, height: int = 24):
            environment = self._build_environment(width=width, height=height)
            self._process = process = await asyncio.create_subprocess_shell(
                self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=environment,
                start_new_session=True,  # Ctrl+C in the server's terminal reaches the server only
            )
            self._processes.add(process)
            self._stdin = process.stdin
            return process

    class QuizServer(Server):
        def __init__(self) -> None:
            super().__init__(command, host=LOOPBACK, port=port, title="quizapp", public_url=url)
            self.processes: set[asyncio.subprocess.Process] = set()
            self.websockets: set[web.WebSocketResponse] = set()

        def initialize_logging(self) -> None:  # textual-serve's handler, warnings and errors only
            super().initialize_logging()
            logging.getLogger().setLevel(logging.WARNING)

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(self._check_request)
            return app

        @web.middleware
        async def _check_request(self, request: web.Request, handler):
            if loopback and request.host not in loopback_hosts:  # DNS rebinding: another site's name for us
                raise web.HTTPMisdirectedRequest(text="quizapp serve answers on the loopback address only")
            origin = request.headers.get("Origin")
            if request.path == "/ws" and origin is not None and urlsplit(origin).netloc != request.host:
                raise web.HTTPForbidden(text="a page of another site cannot drive the app")
            return await handler(request)

        async def on_startup(self, app: web.Application) -> None:
            print(f"quizapp: {say('serve.cli.url', lang, url=url)}", flush=True)

        async def on_shutdown(self, app: web.Application) -> None:
            """Close every tab (each app is told to quit), then end the apps that did not."""
            await asyncio.gather(*(ws.close(code=WSCloseCode.GOING_AWAY) for ws in list(self.websockets)),
                                 return_exceptions=True)
            running = [p for p in self.processes if p.returncode is None]
            for process in running:
                try:
                    process.stdin.write(AppService.encode_packet(b"M", b'{"type": "quit"}'))
                except (RuntimeError, OSError, AttributeError):
                    pass
            await self._wait(running, QUIT_GRACE_S)
            for sig, grace in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, KILL_GRACE_S)):
                running = [p for p in running if p.returncode is None]
                if not running:
                    break
                for process in running:
                    _kill_group(process.pid, sig)
                await self._wait(running, grace)

        @staticmethod
        async def _wait(processes, timeout: float) -> None:
            if processes:
                await asyncio.wait([asyncio.ensure_future(p.wait()) for p in processes], timeout=timeout)

        def serve(self, debug: bool = False) -> None:
            self.debug = debug
            self.initialize_logging()
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            if sys.platform != "win32":
                loop.add_signal_handler(signal.SIGINT, self.request_exit)
                loop.add_signal_handler(signal.SIGTERM, self.request_exit)
            try:
                web.run_app(self._make_app(), sock=sock, handle_signals=False, loop=loop,
                            print=None, access_log=None, shutdown_timeout=QUIT_GRACE_S)
            finally:
                for process in self.processes:  # whatever survived the shutdown above
                    if process.returncode is None:
                        _kill_group(process.pid, signal.SIGKILL)

        @aiohttp_jinja2.template("app_index.html")
        async def handle_index(self, request: web.Request) -> dict:
            """textual-serve's page, its URLs on the host the browser used (a wildcard address has no name)."""
            base = f"{request.scheme}://{request.host}"
            static = f"{base}{request.app.router['static'].url_for(filename='/')}".rstrip("/") + "/"
            ws = f"{'wss' if request.scheme == 'https' else 'ws'}://{request.host}{request.app.router['websocket'].url_for()}"
            return {
                "font_size": to_int(request.query.get("fontsize", "16"), 16),
                "app_websocket_url": ws,
                "config": {"static": {"url": static}},
                "application": {"name": self.title},
            }

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """textual-serve's, with the app in its own session and the socket known to on_shutdown."""
            websocket = web.WebSocketResponse(heartbeat=15)
            width = to_int(request.query.get("width", "80"), 80)
            height = to_int(request.query.get("height", "24"), 24)
            app_service = None
            try:
                await websocket.prepare(request)
                self.websockets.add(websocket)
                app_service = TabApp(self.command, write_bytes=websocket.send_bytes,
                                     write_str=websocket.send_str, close=websocket.close,
                                     download_manager=self.download_manager, debug=self.debug,
                                     processes=self.processes)
                await app_service.start(width, height)
                try:
                    await self._process_messages(websocket, app_service)
                finally:
                    await app_service.stop()
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as error:  # as textual-serve: one tab's failure is logged, the server goes on
                log.exception(error)
            finally:
                self.websockets.discard(websocket)
                if app_service is not None:
                    await app_service.stop()
                    process = app_service._process
                    if process is not None:  # the tab closed: its app was told to quit; make sure it did
                        await self._wait([process], QUIT_GRACE_S)
                        if process.returncode is None:
                            _kill_group(process.pid, signal.SIGKILL)
                            await self._wait([process], KILL_GRACE_S)
                        if process.returncode is not None:
                            self.processes.discard(process)
            return websocket

    def _kill_group(pid: int, sig: int) -> None:
        try:
            os.killpg(pid, sig)  # the app's own session: its pid is the group id
        except (ProcessLookupError, PermissionError):
            pass

    return QuizServer()
