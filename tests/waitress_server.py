"""Start and stop a waitress server in a thread for the tests that need real sockets.

``close`` from the test's thread while the server's loop waits in ``select`` races it (the loop
then fails with "Bad file descriptor" in its own thread). :func:`stop` closes every channel from
inside the loop instead, through the server's trigger, so the loop sees an empty map and returns.
"""
from __future__ import annotations

import threading

import waitress.server


def start(app, threads: int = 8):
    """``(server, thread)``: ``app`` served on 127.0.0.1 at ``server.effective_port``."""
    server = waitress.server.create_server(app, host="127.0.0.1", port=0, threads=threads)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    return server, thread


def stop(server, thread, timeout: float = 10.0) -> None:
    """Close the server and its open connections from its own loop; wait for the loop to end."""
    def close_all():
        for channel in list(server._map.values()):
            channel.close()
        server._map.clear()

    server.trigger.pull_trigger(close_all)
    thread.join(timeout)
    server.task_dispatcher.shutdown()
    assert not thread.is_alive(), "the server loop did not stop"
