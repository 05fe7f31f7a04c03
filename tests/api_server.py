"""Test helpers for the JSON API: ``finsync api`` as a subprocess on a free loopback port,
stopped by its process id, and the environment that points it (or ``finsync ask``, or
``finsync mcp``) at a test's store."""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from elastic.backend import SearchBackend
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from tests.app_server import ARTIFACTS, ROOT, AppServer, free_port


@dataclass
class ApiServer:
    """A running ``finsync api``, logged to ``log_path`` and stopped as the app's server is."""

    process: subprocess.Popen[bytes]
    url: str
    log_path: Path

    log_tail = AppServer.log_tail
    stop = AppServer.stop


def store_env(data_dir: Path, backend: SearchBackend | None = None, **extra: str) -> dict[str, str]:
    """The environment of a FinSync command using ``data_dir`` (the embedded store there, or
    ``backend``'s Elasticsearch node and the test's own index names); ``extra`` on top, and no
    other ``FINSYNC_*`` variable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FINSYNC_")}
    env |= {"FINSYNC_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    if isinstance(backend, ElasticsearchBackend):
        env |= {
            "FINSYNC_ES_URL": backend.url,
            "FINSYNC_TRANSACTIONS_INDEX": backend.tx_index,
            "FINSYNC_STATEMENTS_INDEX": backend.st_index,
            "FINSYNC_FACTS_INDEX": backend.facts_index,
            "FINSYNC_CATEGORY_RULES_INDEX": backend.rules_index,
        }
    return env | extra


def start_api(
    env: dict[str, str],
    cwd: Path,
    log_name: str,
    *args: str,
    scheme: str = "http",
    verify: bool | ssl.SSLContext = True,
    timeout_s: float = 120,
) -> ApiServer:
    """``finsync api`` on a free port; returns once ``/health`` answers (200, or 503 for a
    backend that is down: the server is up either way)."""
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log_path = ARTIFACTS / log_name
    command = [sys.executable, "-m", "scripts.cli", "api", "--port", str(port), *args]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = ApiServer(process, f"{scheme}://127.0.0.1:{port}", log_path)
    try:
        _wait_for_health(server, verify, timeout_s)
    except BaseException:  # a server that never answered (or a test stopped) is not left running
        server.stop()
        raise
    return server


def _wait_for_health(server: ApiServer, verify: bool | ssl.SSLContext, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"finsync api exited early:\n{server.log_tail()}")
        try:
            health = httpx.get(f"{server.url}/health", timeout=5, verify=verify)
            if health.status_code in (200, 503):
                return
        except httpx.TransportError:
            time.sleep(0.3)
    raise TimeoutError(f"finsync api did not start within {timeout_s:.0f}s:\n{server.log_tail()}")
