"""`ercot-nb app` answers only its own host names (DNS rebinding), and --ip needs the token.

Requests go to the real server (`ercot-nb app --notebook tiny.ipynb`: the server
is under test, not the app) with forged Host and Origin headers, as `curl -H` and a
page on another origin would send them.
"""
from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request

import psutil
from .app_harness import server_process, tiny_notebook, wait_until


def get(url: str, host: str | None = None, timeout: float = 120) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def websocket_status(url: str, host: str, origin: str) -> int:
    """101 when the kernel websocket accepts the connection, else the HTTP status."""
    from tornado.httpclient import HTTPClientError, HTTPRequest
    from tornado.websocket import websocket_connect

    async def connect() -> int:
        try:
            connection = await websocket_connect(
                HTTPRequest(url, headers={"Host": host, "Origin": origin}, request_timeout=30))
        except HTTPClientError as error:
            return error.code
        connection.close()
        return 101

    return asyncio.run(connect())


def kernel_id(page: str) -> str:
    match = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', page)
    assert match, "no kernel id in the app page"
    return match.group(1)


def test_foreign_host_and_origin_are_refused(app, tmp_path, capsys):
    notebook = tiny_notebook(tmp_path)
    _, port, log = app(["--notebook", str(notebook), "--allow-host", "lab.example"])
    base = f"http://127.0.0.1:{port}"
    status, page = get(base + "/")
    assert status == 200 and "tiny app ready" in page
    kernel = kernel_id(page)
    results = {}
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"lab.example:{port}",
                 f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}"):
        results[host] = get(f"{base}/api/kernels/{kernel}", host=host)[0]
    status, refused = get(base + "/", host=f"evil.example:{port}")
    results["page evil.example"] = status
    channels = f"ws://127.0.0.1:{port}/api/kernels/{kernel}/channels"
    for host, origin in ((f"127.0.0.1:{port}", f"http://127.0.0.1:{port}"),
                         (f"127.0.0.1:{port}", f"http://evil.example:{port}"),
                         (f"evil.example:{port}", f"http://evil.example:{port}")):
        results[f"websocket Host {host}, Origin {origin}"] = websocket_status(channels, host, origin)
    with capsys.disabled():
        print("\n" + json.dumps(results, indent=1))
    assert results == {
        f"127.0.0.1:{port}": 200, f"localhost:{port}": 200, f"lab.example:{port}": 200,
        f"evil.example:{port}": 403, "evil.example": 403, f"127.0.0.1.evil.example:{port}": 403,
        "page evil.example": 403,
        f"websocket Host 127.0.0.1:{port}, Origin http://127.0.0.1:{port}": 101,
        f"websocket Host 127.0.0.1:{port}, Origin http://evil.example:{port}": 403,
        f"websocket Host evil.example:{port}, Origin http://evil.example:{port}": 403,
    }
    assert "Host not allowed" in refused and "--allow-host" in refused
    assert "refused a request for Host 'evil.example" in log.read_text()


def non_loopback_ipv4() -> str:
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if address.family.name == "AF_INET" and not address.address.startswith("127."):
                return address.address
    return "0.0.0.0"


def test_serving_other_computers_needs_the_printed_token(app, tmp_path):
    ip = non_loopback_ipv4()
    notebook = tiny_notebook(tmp_path)
    host = "127.0.0.1" if ip == "0.0.0.0" else ip
    launcher, port, log = app(["--notebook", str(notebook), "--ip", ip], host=host)
    wait_until(lambda: "Students open:" in log.read_text(), 10)  # printed once it listens
    printed = log.read_text()
    match = re.search(r"Students open:\s+(\S+)\?token=(\S+)", printed)
    assert match, printed
    token = match.group(2)
    server = server_process(launcher)
    assert token not in " ".join(server.cmdline())  # not visible in the process list
    assert ip in " ".join(server.cmdline())
    base = f"http://{host}:{port}"
    without, page = get(base + "/")
    assert without in (401, 403) or "token" in page.lower() and "tiny app ready" not in page
    status, page = get(f"{base}/?token={token}")
    assert status == 200 and "tiny app ready" in page
    assert get(f"{base}/?token={token}", host=f"evil.example:{port}")[0] == 403
    assert token not in log.read_text().split("Students open:")[1].split("\n", 2)[2]  # scrubbed
