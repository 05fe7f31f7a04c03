"""``make bench``: ingestion rate, answer latency, exactness, memory and start-up.

For each size (default 100,000 and 1,000,000 transactions, plus 10,000 statement pages), in
a process of its own: write the CSV, land it through the real ingest path on the embedded
store and on a local Elasticsearch node, ask the question set through ``ChatPipeline``,
answer it again with pandas and DuckDB, check the numbers. Then, each in a fresh process: the
sample statement PDFs landed with local embeddings, and the first answers of a cold app. Writes
docs/BENCHMARK.md with charts in docs/benchmark/. Quick run:
``python -m scripts.bench --sizes 20000 --pages 500``.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import shlex
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import TypeVar

from scripts.bench.measure import commit, machine, venv_size
from scripts.bench.report import RunInfo, headline, write_report
from scripts.bench.run import BACKENDS, SizeConfig, run_size
from scripts.bench.startup import first_answers, sample_store, statement_ingestion

PROJECT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m scripts.bench", description=__doc__)
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[100_000, 1_000_000],
        help="transactions per run (default: 100000 1000000)",
    )
    parser.add_argument("--pages", type=int, default=10_000, help="statement pages per run")
    parser.add_argument(
        "--runs",
        type=int,
        default=20,
        help="measured rounds of the question set, after one warm-up round",
    )
    parser.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument(
        "--output",
        type=Path,
        default=PROJECT / "docs" / "BENCHMARK.md",
        help="the report; charts go to benchmark/ beside it",
    )
    return parser.parse_args(argv)


def _in_own_process(work: Callable[..., T], *args: object) -> T:
    """Run ``work`` in a fresh process: its memory peaks are its own, and nothing is loaded
    or warm before it starts."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(work, *args).result()


def _versions(es_url: str | None) -> dict[str, str]:
    versions = {"Python": sys.version.split()[0]}
    versions |= {name: metadata.version(name) for name in ("pandas", "duckdb", "plotly")}
    if es_url:
        with urllib.request.urlopen(es_url, timeout=10) as reply:
            versions["Elasticsearch"] = json.loads(reply.read())["version"]["number"]
    return versions


def main(argv: list[str] | None = None) -> int:
    """Run every size, stop the node whatever happens, write the report."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    started, clock, load = datetime.now(), time.perf_counter(), os.getloadavg()[0]
    backends = tuple(b for b in BACKENDS if b in args.backends)
    node = None
    if "elasticsearch" in backends:
        from scripts.es_node import start_node

        node = start_node()
        print(f"Elasticsearch node pid {node.pid} at {node.url}", flush=True)
    try:
        es_url, es_pid = (node.url, node.pid) if node else (None, None)
        versions = _versions(es_url)
        results = [
            _in_own_process(
                run_size, SizeConfig(size, args.pages, args.runs, backends, es_url, es_pid)
            )
            for size in args.sizes
        ]
        print("== statement PDFs with local embeddings", flush=True)
        statements = _in_own_process(
            statement_ingestion, SizeConfig(0, 0, 0, backends, es_url, es_pid)
        )
    finally:
        if node is not None:
            node.stop()
            print(f"stopped the Elasticsearch node, pid {node.pid}", flush=True)
    print("== first answers of a fresh app", flush=True)
    with tempfile.TemporaryDirectory(prefix="finsync-bench-app-") as tmp:
        _in_own_process(sample_store, Path(tmp))
        first = _in_own_process(first_answers, Path(tmp))
    info = RunInfo(
        started=started,
        seconds=time.perf_counter() - clock,
        command=shlex.join(["python", "-m", "scripts.bench", *argv]),
        runs=args.runs,
        machine=machine(),
        load=(load, os.getloadavg()[0]),
        commit=commit(PROJECT),
        versions=versions,
        venv=venv_size(PROJECT / "pyproject.toml"),
        statements=statements,
        first_answers=first,
    )
    report = write_report(args.output, results, info)
    print("\n".join(headline(results, info)))
    print(f"wrote {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
