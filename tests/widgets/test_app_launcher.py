"""`ercot-nb app` checks its address and port before starting, and prints the address once it listens."""
from __future__ import annotations

import os
import socket
import sys
import textwrap

import pytest

pytest.importorskip("voila")

from ercot_nb.cli import main  # noqa: E402
from ercot_nb.widgets.serve import launcher as app  # noqa: E402


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def no_server(monkeypatch):
    """Fail the test if the launcher starts a server."""
    def refuse(*args, **kwargs):
        raise AssertionError("the server was started")
    monkeypatch.setattr(app.subprocess, "Popen", refuse)


@pytest.mark.parametrize("args, named", [
    (["--ip", "not an address"], "--ip 'not an address'"),
    (["--ip", "999.1.1.1"], "--ip '999.1.1.1'"),
    (["--ip", "no-such-host.invalid"], "--ip 'no-such-host.invalid'"),
    (["--ip", "192.0.2.7"], "--ip 192.0.2.7 is not an address of this computer"),  # TEST-NET: not ours
    (["--port", "70000"], "--port must be a number from 1 to 65535, got 70000"),
    (["--port", "65536"], "--port must be a number from 1 to 65535, got 65536"),
    (["--port", "-1"], "--port must be a number from 1 to 65535, got -1"),
    (["--port", "0"], "--port must be a number from 1 to 65535, got 0"),
])
def test_bad_addresses_and_ports_are_one_line_before_the_server_starts(args, named, no_server, capsys):
    assert main(["app", "--no-browser", *args]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("ercot-nb: error: ") and err.count("\n") == 1, err
    assert named in err and "Traceback" not in err
    assert "Serving" not in out


@pytest.mark.parametrize("ip", ["127.0.0.1", "localhost"])
def test_a_busy_port_is_one_line_naming_it(ip, no_server, capsys):
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        assert main(["app", "--no-browser", "--ip", ip, "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and f"port {port} is in use" in err and "--port" in err, err
    assert "Serving" not in out


def _fake_voila(monkeypatch, script: str) -> None:
    """Serve with a stand-in server running ``script`` (formatted with {port})."""
    def command(notebook, port, **kwargs):
        return [sys.executable, "-c", textwrap.dedent(script).format(port=port)]
    monkeypatch.setattr(app, "voila_command", command)


def test_the_address_is_printed_once_the_server_listens(monkeypatch, capsys):
    _fake_voila(monkeypatch, """
        import socket, time
        time.sleep(1.5)  # Voila imports and reads the notebook before it listens
        with socket.socket() as server:
            server.bind(("127.0.0.1", {port}))
            server.listen()
            time.sleep(1)
    """)
    events = []
    listening = app._listening

    def probe(host, port):
        events.append(("listening", listening(host, port)))
        return events[-1][1]

    monkeypatch.setattr(app, "_listening", probe)
    monkeypatch.setattr(app, "print", lambda *a, **k: events.append(("print", " ".join(a))),
                        raising=False)
    port = _free_port()
    assert app.serve(port=port, open_browser=False) == 0
    printed = [index for index, (kind, _) in enumerate(events) if kind == "print"]
    assert len(printed) == 1 and f"http://127.0.0.1:{port}/" in events[printed[0]][1]
    assert events[printed[0] - 1] == ("listening", True)
    assert ("listening", False) in events[:printed[0]]  # it did wait


def test_a_server_that_stops_before_listening_prints_no_address(monkeypatch, capsys):
    _fake_voila(monkeypatch, "import sys; sys.exit(3)")
    assert app.serve(port=_free_port(), open_browser=False) == 3
    out, err = capsys.readouterr()
    assert "Serving" not in out
    assert err.count("\n") == 1 and "stopped before listening" in err and "exit code 3" in err


@pytest.mark.parametrize("workers", [1, 0])
def test_the_kernels_learn_the_fit_pool_from_their_environment_only(workers, monkeypatch, tmp_path):
    seen = tmp_path / "seen.json"
    _fake_voila(monkeypatch, f"""
        import json, os, sys
        with open({str(seen)!r}, "w") as out:
            json.dump({{{{"env": {{{{k: v for k, v in os.environ.items() if k.startswith("ERCOT_NB_FIT_POOL")}}}},
                       "argv": sys.argv}}}}, out)
    """)
    monkeypatch.setattr(app, "print", lambda *a, **k: None, raising=False)
    app.serve(port=_free_port(), open_browser=False, fit_workers=workers)
    kernel = __import__("json").loads(seen.read_text())
    if not workers:  # each kernel fits by itself
        assert kernel["env"] == {}
        return
    address, key = kernel["env"]["ERCOT_NB_FIT_POOL"], kernel["env"]["ERCOT_NB_FIT_POOL_KEY"]
    assert len(bytes.fromhex(key)) == 32 and key not in " ".join(kernel["argv"])
    assert not os.path.exists(address)  # the pool ended with the server: its socket and folder are gone
    assert main(["app", "--fit-workers", "-1", "--no-browser"]) == 2


def test_the_page_cap_is_sized_from_free_memory_so_a_class_of_30_is_let_in_in_turn(monkeypatch, capsys):
    """A fixed cap of 10 told the 11th student of a class 'the server is full' on a 24 GiB machine."""
    from ercot_nb.evolution import _memory

    assert app.default_max_kernels(2, 16 * 2**30)[0] == 41  # (0.8 * 16 GiB - 2 workers * 350 MiB) / 300 MiB
    assert app.default_max_kernels(0, 16 * 2**30)[0] == 29  # 0.8 * 16 GiB / 450 MiB
    assert app.default_max_kernels(2, 2**29)[0] == 1  # never 0 (which would mean no cap)
    monkeypatch.setattr(_memory, "memory_limit", lambda: (12 * 2**30, "its cgroup's memory limit"))
    asked: list[dict] = []

    def command(notebook, port, **kwargs):  # a stand-in server that listens for a second
        asked.append(kwargs)
        return [sys.executable, "-c", textwrap.dedent(f"""
            import socket, time
            with socket.socket() as server:
                server.bind(("127.0.0.1", {port}))
                server.listen()
                time.sleep(1)
        """)]

    monkeypatch.setattr(app, "voila_command", command)
    assert app.serve(port=_free_port(), open_browser=False, fit_workers=1) == 0
    assert asked[-1]["max_kernels"] == 31  # (0.8 * 12 GiB - 350 MiB) / 300 MiB
    assert "At most 31 pages at once (80% of 12.0 GiB free at 300 MiB a page); 2 start at a time" in \
        capsys.readouterr().out
    app.serve(port=_free_port(), open_browser=False, fit_workers=1, max_kernels=7)  # asked for: as asked
    assert asked[-1]["max_kernels"] == 7
