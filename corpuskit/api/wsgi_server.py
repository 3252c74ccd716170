"""The WSGI server one ``server.py`` process runs: waitress on ``poll()``, with a connection cap.

Waitress's default event loop uses ``select()``, which cannot watch a file
descriptor numbered 1024 or above: about a thousand open connections (idle
ones too) made it raise ``filedescriptor out of range in select()`` and the
process die. :func:`make_server` builds a waitress server that

- runs its loop on ``poll()`` (``asyncore_use_poll``), which has no such ceiling;
- answers a connection beyond ``max_connections`` open ones with an immediate
  JSON ``503`` (``Retry-After: 1``, ``Connection: close``) and closes it,
  instead of leaving it queued in the listen backlog;
- closes a connection idle (no request in progress) for ``idle_timeout``
  seconds; an open signal stream is a request in progress and is never closed
  for being idle;
- answers a request without a body that says ``Expect: 100-continue`` (waitress
  sent ``100 Continue`` and then waited for a body that never comes, so the
  request was never answered) as if the header were absent.

:func:`raise_fd_limit` lifts the process's soft limit on open files to its
hard limit, so the cap rather than the kernel decides when to refuse.
"""
from __future__ import annotations

import errno
import logging
import socket

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

from corpuskit.api.errors import encode_json

log = logging.getLogger("corpuskit.server")

#: Default cap on open connections per server process.
DEFAULT_MAX_CONNECTIONS = 8192
#: Descriptors kept free for the corpus files, logs and the event loop itself.
FD_RESERVE = 256
#: Connections accepted per wake-up of the event loop.
ACCEPT_BATCH = 64
#: Connections the kernel queues for a process before it accepts them.
BACKLOG = 2048
#: Entries of waitress's socket map that are not connections: the listening socket, the wake-up pipe.
MAP_EXTRAS = 2
#: Seconds an idle keep-alive connection stays open.
DEFAULT_IDLE_TIMEOUT = 300

OVERLOADED_MESSAGE = "server busy: too many open connections; retry shortly"


def raise_fd_limit() -> int:
    """Raise this process's soft ``RLIMIT_NOFILE`` to its hard limit; return the new soft limit.

    Returns the current limit unchanged where the platform has no ``resource``
    module or refuses the change.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 1 << 16
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft == resource.RLIM_INFINITY or (target != resource.RLIM_INFINITY and soft >= target):
        return soft if soft != resource.RLIM_INFINITY else 1 << 16
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return soft
    return target


def connection_cap(requested: int | None, fd_limit: int) -> int:
    """The per-process connection cap: ``requested`` (default :data:`DEFAULT_MAX_CONNECTIONS`), within the fd limit."""
    wanted = DEFAULT_MAX_CONNECTIONS if requested is None else requested
    return max(1, min(wanted, fd_limit - FD_RESERVE))


def refusal_bytes(message: str = OVERLOADED_MESSAGE) -> bytes:
    """The complete HTTP answer sent to a connection beyond the cap."""
    body = encode_json({"error": message})
    head = ("HTTP/1.1 503 Service Unavailable\r\n"
            "Content-Type: application/json; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Retry-After: 1\r\n"
            "Connection: close\r\n\r\n").encode("ascii")
    return head + body


class _RequestParser(HTTPRequestParser):
    """Waitress's parser, minus the 100-continue wait on a request that has no body."""

    def parse_header(self, header_plus):
        super().parse_header(header_plus)
        if self.expect_continue and not self.chunked and not self.content_length:
            self.expect_continue = False


class _Channel(HTTPChannel):
    parser_class = _RequestParser


class CappedServer(TcpWSGIServer):
    """A waitress TCP server that refuses connections beyond ``max_connections`` with a JSON 503."""

    channel_class = _Channel

    def __init__(self, *args, max_connections: int, **kwargs):
        self.max_connections = max_connections
        self.refused = 0
        self._refusal = refusal_bytes()
        super().__init__(*args, **kwargs)

    def open_connections(self) -> int:
        """HTTP connections this process holds open now."""
        return len(self.active_channels)

    def readable(self):
        super().readable()  # waitress's idle-connection maintenance runs here
        # waitress stops accepting at its own connection_limit; this server refuses instead
        return self.accepting

    def handle_accept(self):
        # up to ACCEPT_BATCH connections per wake-up: with thousands of open connections one
        # turn of the event loop costs milliseconds, and accepting one per turn left the
        # listen backlog (and the clients in it) waiting for seconds
        for _ in range(ACCEPT_BATCH):
            try:
                pair = self.accept()
            except OSError:  # the client left before we got to it
                continue
            if pair is None:  # nothing more waiting
                return
            conn, addr = pair
            if self.open_connections() >= self.max_connections:
                self._refuse(conn)
                continue
            try:
                self.set_socket_options(conn)
            except OSError:
                conn.close()
                continue
            self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)

    def _refuse(self, conn) -> None:
        self.refused += 1
        if self.refused == 1 or self.refused % 1000 == 0:
            log.warning("connection cap (%d) reached: %d connections refused with 503",
                        self.max_connections, self.refused)
        try:
            conn.setblocking(False)
            try:  # read what already arrived, so closing sends FIN rather than RST
                conn.recv(65536)
            except OSError:
                pass
            conn.send(self._refusal)
            conn.shutdown(socket.SHUT_WR)
        except OSError as exc:  # the client is gone or its buffer full: nothing to tell it
            if exc.errno not in (errno.EAGAIN, errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN):
                log.debug("refusing a connection: %s", exc)
        finally:
            conn.close()


def server_name(sock: socket.socket) -> str:
    """``SERVER_NAME`` for requests without a ``Host`` (HTTP/1.0): the address ``sock`` listens on,
    or this machine's host name when it listens on every address (waitress's default is
    ``waitress.invalid``, which reached a 429's ``upgradeUrl``)."""
    host = sock.getsockname()[0]
    if host in ("0.0.0.0", "::", ""):
        return socket.gethostname() or "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def make_server(app, sock: socket.socket, *, threads: int, max_connections: int,
                idle_timeout: float = DEFAULT_IDLE_TIMEOUT, ident: str = "corpuskit") -> CappedServer:
    """A :class:`CappedServer` serving ``app`` on the listening socket ``sock`` (call ``.run()``)."""
    # waitress counts its listening socket and its wake-up pipe with the connections and, at its own
    # connection_limit, logs "no longer accepting new connections" (untrue here: this server keeps
    # accepting and refuses with a 503); a limit above anything the map can hold keeps it quiet
    adj = Adjustments(sockets=[sock], threads=threads, asyncore_use_poll=True, backlog=BACKLOG,
                      connection_limit=max_connections + MAP_EXTRAS + 1, channel_timeout=int(idle_timeout),
                      cleanup_interval=min(30, max(1, int(idle_timeout) // 2)), ident=ident,
                      server_name=server_name(sock))
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    sockinfo = (sock.family, sock.type, sock.proto, sock.getsockname())
    return CappedServer(app, {}, True, sock, dispatcher=dispatcher, adj=adj, bind_socket=False,
                        sockinfo=sockinfo, max_connections=max_connections)
