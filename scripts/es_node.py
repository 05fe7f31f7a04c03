"""Run a real single-node Elasticsearch 8.x locally, built from Maven Central jars.

The Java side lives in ``scripts/es_node`` (a Maven module that boots the
Elasticsearch server jar in-process with the netty4 HTTP transport). This module
builds it on demand, starts it as a subprocess bound to 127.0.0.1 without
security, and stops it again. Everything the node writes (config, data, logs)
stays in one home directory.

Usage::

    with start_node() as node:
        Elasticsearch(node.url).info()

or ``python -m scripts.es_node [--port N] [--data-dir DIR]`` to keep one running.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

ES_NODE_DIR = Path(__file__).resolve().parent / "es_node"
POM = ES_NODE_DIR / "pom.xml"
TARGET_DIR = ES_NODE_DIR / "target"
NODE_JAR = TARGET_DIR / "finsync-es-node.jar"
DEPENDENCY_DIR = TARGET_DIR / "dependency"
MAIN_CLASS = "io.finsync.esnode.EsNodeMain"

BUILD_COMMAND: tuple[str, ...] = (
    "mvn",
    "-q",
    "-B",
    "-Dstyle.color=never",
    "-f",
    str(POM),
    "package",
    "dependency:copy-dependencies",
    "-DincludeScope=runtime",
)

READY_MARKER = "FINSYNC_ES_READY "
FAILED_MARKER = "FINSYNC_ES_FAILED"

#: Heap defaults; extra flags can be appended with the FINSYNC_ES_JAVA_OPTS variable.
DEFAULT_HEAP_OPTS: tuple[str, ...] = ("-Xms512m", "-Xmx1g")
#: Flags the Elasticsearch distribution's launcher would normally add.
SYSTEM_JVM_OPTS: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:+ExitOnOutOfMemoryError",
    "-XX:-OmitStackTraceInFastThrow",
    "-Xss1m",
    "-Djava.awt.headless=true",
    "-Dfile.encoding=UTF-8",
    "-Djava.locale.providers=SPI,CLDR",
    "-Dlog4j.shutdownHookEnabled=false",
    "-Dlog4j2.disable.jmx=true",
    "-Dfinsync.es.exitOnStdinEof=true",
)

_LIVE_NODES: list[ElasticsearchNode] = []


def _sources_newer_than(path: Path) -> bool:
    """Return True if the pom or any Java source/resource is newer than ``path``."""
    built = path.stat().st_mtime
    inputs = [POM, *(p for p in (ES_NODE_DIR / "src").rglob("*") if p.is_file())]
    return any(p.stat().st_mtime > built for p in inputs)


def build_node_jar(force: bool = False) -> None:
    """Build the Java node with Maven unless an up-to-date build already exists."""
    TARGET_DIR.mkdir(parents=True, exist_ok=True)
    with open(TARGET_DIR / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time, e.g. parallel test workers
        up_to_date = (
            NODE_JAR.is_file() and DEPENDENCY_DIR.is_dir() and not _sources_newer_than(NODE_JAR)
        )
        if up_to_date and not force:
            return
        mvn = shutil.which("mvn")
        if mvn is None:
            raise RuntimeError("Maven ('mvn') is not on PATH; it is needed to build the ES node")
        proc = subprocess.run(
            [mvn, *BUILD_COMMAND[1:]],
            cwd=ES_NODE_DIR,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0 or not NODE_JAR.is_file():
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-40:])
            raise RuntimeError(f"Building the ES node failed ({' '.join(BUILD_COMMAND)}):\n{tail}")


def _java_executable() -> str:
    """Locate ``java``, preferring JAVA_HOME."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    java = shutil.which("java")
    if java is None:
        raise RuntimeError("Java 17+ ('java') is not on PATH; it is needed to run the ES node")
    return java


def _tail(path: Path, lines: int = 60) -> str:
    """Return the last ``lines`` lines of a text file (empty if missing)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return "".join(deque(fh, maxlen=lines))
    except FileNotFoundError:
        return ""


def _http_ok(url: str, timeout_s: float = 2.0) -> bool:
    """True if ``GET url/`` answers 200 as Elasticsearch."""
    try:
        with urllib.request.urlopen(url + "/", timeout=timeout_s) as resp:
            json.loads(resp.read())
            return resp.status == 200 and resp.headers.get("X-Elastic-Product") == "Elasticsearch"
    except (OSError, ValueError, http.client.HTTPException):
        return False


class ElasticsearchNode:
    """A running local Elasticsearch node (a java subprocess in its own session)."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        url: str,
        home: Path,
        log_path: Path,
        remove_home: bool,
    ) -> None:
        """Wrap an already started and ready node process."""
        self.process = process
        self.url = url
        self.home = home
        self.log_path = log_path
        self._remove_home = remove_home

    @property
    def pid(self) -> int:
        """Process id of the java process."""
        return self.process.pid

    @property
    def port(self) -> int:
        """HTTP port the node listens on."""
        return int(self.url.rsplit(":", 1)[1])

    def is_running(self) -> bool:
        """True while the java process has not exited."""
        return self.process.poll() is None

    def log_tail(self, lines: int = 60) -> str:
        """Last lines of the node's log."""
        return _tail(self.log_path, lines)

    def stop(self, timeout_s: float = 30) -> None:
        """SIGTERM the node, SIGKILL it after ``timeout_s``; remove a temp home."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        if self in _LIVE_NODES:
            _LIVE_NODES.remove(self)
        if self._remove_home:
            shutil.rmtree(self.home, ignore_errors=True)
            self._remove_home = False

    def __enter__(self) -> ElasticsearchNode:
        """Return the node itself."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop the node."""
        self.stop()

    def __repr__(self) -> str:
        """Short description with URL and pid."""
        return f"ElasticsearchNode(url={self.url!r}, pid={self.pid}, home={str(self.home)!r})"


def start_node(
    data_dir: Path | None = None,
    port: int | None = None,
    timeout_s: float = 120,
    java_opts: list[str] | None = None,
    settings: Mapping[str, str | int | bool] | None = None,
) -> ElasticsearchNode:
    """Build if needed, start a node and wait until it answers ``GET /``.

    ``data_dir`` becomes the node's home (config/, data/, logs/) and is kept;
    without it a temporary directory is used and removed by ``stop()``.
    ``port=None`` lets the node pick a free port. ``java_opts`` replaces the
    default heap flags (``-Xms512m -Xmx1g``). ``settings`` are node settings
    (``thread_pool.write.queue_size``...), written to its ``elasticsearch.yml``.
    """
    build_node_jar()
    remove_home = data_dir is None
    home = Path(tempfile.mkdtemp(prefix="finsync-es-")) if data_dir is None else Path(data_dir)
    home = home.resolve()
    (home / "logs").mkdir(parents=True, exist_ok=True)
    (home / "tmp").mkdir(exist_ok=True)
    if settings:
        (home / "config").mkdir(exist_ok=True)
        # JSON is YAML too; the node reads this file when it starts.
        (home / "config" / "elasticsearch.yml").write_text(json.dumps(dict(settings)))
    log_path = home / "logs" / "node.log"

    opts = list(DEFAULT_HEAP_OPTS if java_opts is None else java_opts)
    opts += SYSTEM_JVM_OPTS
    opts.append(f"-Djava.io.tmpdir={home / 'tmp'}")
    opts += os.environ.get("FINSYNC_ES_JAVA_OPTS", "").split()
    classpath = os.pathsep.join([str(NODE_JAR), str(DEPENDENCY_DIR / "*")])
    cmd = [_java_executable(), *opts, "-cp", classpath, MAIN_CLASS, str(home), str(port or 0)]

    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,  # the node exits when this pipe closes (launcher died)
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=home,
        )
    node: ElasticsearchNode | None = None
    try:
        url = _wait_until_ready(process, log_path, time.monotonic() + timeout_s)
        node = ElasticsearchNode(process, url, home, log_path, remove_home)
        _LIVE_NODES.append(node)
        return node
    finally:
        if node is None:
            _kill(process)
            if remove_home:
                shutil.rmtree(home, ignore_errors=True)


def _wait_until_ready(process: subprocess.Popen[bytes], log_path: Path, deadline: float) -> str:
    """Wait for the readiness line and a working ``GET /``; return the URL."""
    url: str | None = None
    offset = 0
    pending = ""
    while time.monotonic() < deadline:
        with open(log_path, encoding="utf-8", errors="replace") as fh:
            fh.seek(offset)
            chunk = fh.read()
            offset = fh.tell()
        pending += chunk
        *lines, pending = pending.split("\n")
        for line in lines:
            if line.startswith(READY_MARKER):
                url = line[len(READY_MARKER) :].strip()
            elif FAILED_MARKER in line:
                raise RuntimeError(f"Elasticsearch node failed to start:\n{_tail(log_path)}")
        if url is not None and _http_ok(url):
            return url
        if process.poll() is not None:
            raise RuntimeError(
                f"Elasticsearch node exited with code {process.returncode} before it was ready:\n"
                f"{_tail(log_path)}"
            )
        time.sleep(0.2)
    raise RuntimeError(f"Elasticsearch node was not ready in time:\n{_tail(log_path)}")


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Stop a node process that never became ready."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    if process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()


@atexit.register
def _stop_live_nodes() -> None:
    """Stop nodes the program forgot to stop."""
    for node in list(_LIVE_NODES):
        node.stop()


def main(port: int | None = None, data_dir: Path | None = None) -> int:
    """Start a node, print its URL and keep it running until Ctrl-C or SIGTERM."""
    started = time.monotonic()
    node = start_node(data_dir=data_dir, port=port)
    print(f"Elasticsearch {node.url} (pid {node.pid}, home {node.home})", flush=True)
    print(f"ready in {time.monotonic() - started:.1f}s; Ctrl-C to stop", flush=True)

    def _on_sigterm(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = node.process.wait()
        print(f"Elasticsearch node exited with code {code}:\n{node.log_tail()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        node.stop()
        print("Elasticsearch node stopped", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=None, help="HTTP port (default: any free)")
    parser.add_argument("--data-dir", type=Path, default=None, help="node home (default: temp)")
    args = parser.parse_args()
    sys.exit(main(port=args.port, data_dir=args.data_dir))
