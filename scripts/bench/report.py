"""docs/BENCHMARK.md: targets met or not, the tables behind them, and charts as PNG images."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio

from scripts.bench.measure import VenvSize, p50_p95
from scripts.bench.questions import QUESTIONS
from scripts.bench.run import BACKENDS, REFERENCES, SizeResult, Timing
from scripts.bench.startup import FirstAnswer, StatementIngestion

GB = 1024**3
LABELS = {
    "embedded": "embedded",
    "elasticsearch": "Elasticsearch",
    "pandas": "pandas",
    "duckdb": "DuckDB",
}
# p95 per size and backend, ingestion rates, the virtualenv, the app's memory and start
LATENCY_TARGETS_MS = {
    ("embedded", 100_000): 50.0,
    ("embedded", 1_000_000): 150.0,
    ("elasticsearch", 1_000_000): 100.0,
}
INGEST_TARGETS = {"embedded": 50_000, "elasticsearch": 20_000}
VENV_TARGET_GB = 1.5
PAGES_TARGET_PER_S = 10.0
FIRST_ANSWER_TARGET_S = 2.0
MEMORY_TARGET_GB = 1.5
MEMORY_TARGET_SIZE = 1_000_000
APP_PHASES = ("ingest", "pages", "columns", "questions")  # the app's work, not the references


@dataclass(frozen=True)
class RunInfo:
    """Where and how the benchmark ran."""

    started: datetime
    seconds: float
    command: str
    runs: int
    machine: dict[str, str]
    load: tuple[float, float]  # 1-minute load average before and after
    commit: str
    versions: dict[str, str]
    venv: VenvSize
    statements: list[StatementIngestion]
    first_answers: list[FirstAnswer]


@dataclass(frozen=True)
class Target:
    """One line of the headline table."""

    what: str
    target: str
    measured: str
    met: bool | None  # None: the run did not measure it


def _ms(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def _gb(value_mb: float) -> str:
    return f"{value_mb / 1024:.2f} GB"


def _timings(result: SizeResult) -> dict[tuple[str, str], Timing]:
    """The result's timings by engine and question."""
    return {(t.engine, t.question): t for t in result.timings}


def _engines(result: SizeResult, among: tuple[str, ...]) -> list[str]:
    """The engines of ``among`` this result has timings for, in that order."""
    return [e for e in among if any(t.engine == e for t in result.timings)]


def _status(met: bool | None) -> str:
    return {True: "met", False: "**not met**", None: "not measured"}[met]


def _latency_target(results: list[SizeResult], backend: str, size: int) -> Target:
    limit = LATENCY_TARGETS_MS[backend, size]
    what = f"{LABELS[backend]} p95 at {size:,} transactions"
    result = next((r for r in results if r.size == size), None)
    timings = [t for t in result.timings if t.engine == backend] if result else []
    if not timings:
        return Target(what, f"≤ {limit:.0f} ms", "—", None)
    by_p95 = sorted(timings, key=lambda t: -p50_p95(t.wall)[1])
    measured = [f"{_ms(p50_p95(t.wall)[1])} ms ({t.question})" for t in by_p95[:2]]
    p95 = p50_p95(by_p95[0].wall)[1]
    return Target(what, f"≤ {limit:.0f} ms", "; next: ".join(measured), p95 <= limit)


def _ingest_target(results: list[SizeResult], backend: str) -> Target:
    limit = INGEST_TARGETS[backend]
    what = f"{LABELS[backend]} ingestion (CSV through `Importer.land`)"
    landed = [(r.size, i) for r in results for i in r.ingestion if i.backend == backend]
    if not landed:
        return Target(what, f"≥ {limit:,} rows/s", "—", None)
    # The goal is for a file of a million rows: judged at the largest size run.
    size, largest = max(landed, key=lambda pair: pair[0])
    rate = largest.rows_per_s
    measured = (
        f"{rate:,.0f} rows/s at {size:,}, {rate / limit:.0%} of the goal; the store's own writes "
        f"{largest.store_seconds:,.1f} of {largest.seconds:,.1f} s "
        f"({largest.store_rows_per_s:,.0f} rows/s alone)"
    )
    return Target(what, f"≥ {limit:,} rows/s", measured, rate >= limit)


def _app_peak_mb(result: SizeResult) -> float:
    return max(p.peak_rss_mb for p in result.phases if p.name.startswith(APP_PHASES))


def targets(results: list[SizeResult], info: RunInfo) -> list[Target]:
    """The issue's targets, each with what this run measured."""
    rows = [_latency_target(results, b, s) for b, s in LATENCY_TARGETS_MS]
    rows += [_ingest_target(results, b) for b in BACKENDS]
    for landed in info.statements:
        rows.append(
            Target(
                f"{LABELS[landed.backend]}: statement pages with local embeddings",
                f"≥ {PAGES_TARGET_PER_S:.0f} pages/s",
                f"{landed.pages_per_s:.1f} pages/s ({landed.pages} pages, {landed.files} PDFs)",
                landed.pages_per_s >= PAGES_TARGET_PER_S,
            )
        )
    if info.first_answers:
        slowest = max(info.first_answers, key=lambda a: a.seconds)
        rows.append(
            Target(
                "first answers in a fresh app (from its start)",
                f"< {FIRST_ANSWER_TARGET_S:.0f} s",
                "; ".join(f"{a.seconds:.2f} s ({a.question})" for a in info.first_answers),
                slowest.seconds < FIRST_ANSWER_TARGET_S,
            )
        )
    app_gb = info.venv.app / GB
    rows.append(
        Target(
            "the app's dependencies on disk (what `make run` installs)",
            f"< {VENV_TARGET_GB} GB",
            f"{app_gb:.2f} GB (the whole virtualenv with test and bench extras: "
            f"{info.venv.total / GB:.2f} GB)",
            app_gb < VENV_TARGET_GB,
        )
    )
    memory = "app peak memory (RSS) with 1,000,000 transactions"
    at_target = next((r for r in results if r.size == MEMORY_TARGET_SIZE), None)
    if at_target is None:
        rows.append(Target(memory, f"< {MEMORY_TARGET_GB} GB", "—", None))
    else:
        peak = _app_peak_mb(at_target)
        rows.append(
            Target(memory, f"< {MEMORY_TARGET_GB} GB", _gb(peak), peak / 1024 < MEMORY_TARGET_GB)
        )
    return rows


def _table(header: list[str], rows: list[list[str]], text: tuple[int, ...] = (0,)) -> list[str]:
    """A Markdown table; the columns ``text`` names are left-aligned, numbers right-aligned."""
    align = ["---" if i in text or i - len(header) in text else "---:" for i in range(len(header))]
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def headline(results: list[SizeResult], info: RunInfo) -> list[str]:
    """The targets table, as the README quotes it."""
    rows = [[t.what, t.target, t.measured, _status(t.met)] for t in targets(results, info)]
    return _table(["target", "goal", "measured", "status"], rows, text=(0, 1, 2, 3))


def _verdicts(result: SizeResult, question: str) -> str:
    """``exact``, or each mismatch and each failed ask."""
    notes = [
        f"{LABELS[t.engine]}: {len(t.errors)} of {len(t.wall)} asks failed ({t.errors[-1]})"
        for t in result.timings
        if t.question == question and t.errors
    ]
    notes += [
        f"{LABELS[c.engine]} vs {LABELS[c.reference]}: {c.verdict}"
        for c in result.checks
        if c.question == question and c.verdict != "exact"
    ]
    return "; ".join(notes).replace("|", "\\|") or "exact"


def latency_table(result: SizeResult) -> list[str]:
    """p50 / p95 per question per engine, each backend's p50 as a multiple of DuckDB's."""
    engines = _engines(result, (*BACKENDS, *REFERENCES))
    timings = _timings(result)
    header = ["question"]
    for engine in engines:
        header.append(f"{LABELS[engine]} p50 / p95 (ms)")
        if engine in BACKENDS:
            header.append("× DuckDB")
    header.append("answers")
    rows = []
    for question in QUESTIONS:
        duck = p50_p95(timings["duckdb", question.key].wall)[0]
        row = [question.text]
        for engine in engines:
            p50, p95 = p50_p95(timings[engine, question.key].wall)
            row.append(f"{_ms(p50)} / {_ms(p95)}")
            if engine in BACKENDS:
                row.append(f"{p50 / duck:,.1f}×")
        rows.append([*row, _verdicts(result, question.key)])
    limits = [LATENCY_TARGETS_MS.get((engine, result.size)) for engine in engines]
    if any(limits):
        goal = ["target p95"]
        for engine, limit in zip(engines, limits, strict=True):
            goal += [f"≤ {limit:.0f}" if limit else ""] + ([""] if engine in BACKENDS else [])
        rows.append([*goal, ""])
    return _table(header, rows, text=(0, -1))


def stages_table(result: SizeResult) -> list[str]:
    """The pipeline's own ``timings_ms`` per question and backend: the median of each stage,
    and p50 / p95 of their sum."""
    backends = _engines(result, BACKENDS)
    timings = _timings(result)
    header = ["question"]
    for backend in backends:
        header += [f"{LABELS[backend]} route / search / compose p50", "sum p50 / p95"]
    rows = []
    for question in QUESTIONS:
        row = [question.text]
        for backend in backends:
            timing = timings[backend, question.key]
            if not timing.stages:
                row += ["every ask failed", ""]
                continue
            parts = [_ms(p50_p95(timing.stages[s])[0]) for s in ("route", "search", "compose")]
            p50, p95 = p50_p95(timing.pipeline)
            row += [" / ".join(parts), f"{_ms(p50)} / {_ms(p95)}"]
        rows.append(row)
    return _table(header, rows)


def ingestion_table(results: list[SizeResult]) -> list[str]:
    header = [
        "transactions",
        "backend",
        "rows landed",
        "seconds",
        "rows/s",
        "goal",
        "status",
        "store writes: seconds",
        "store writes alone: rows/s",
        "problems",
        "pages: seconds",
        "columns loaded: seconds",
    ]
    rows = []
    for result in results:
        for landed in result.ingestion:
            goal = INGEST_TARGETS[landed.backend]
            rows.append(
                [
                    f"{result.size:,}",
                    LABELS[landed.backend],
                    f"{landed.rows:,}",
                    f"{landed.seconds:,.1f}",
                    f"{landed.rows_per_s:,.0f}",
                    f"≥ {goal:,}",
                    _status(landed.rows_per_s >= goal),
                    f"{landed.store_seconds:,.1f}",
                    f"{landed.store_rows_per_s:,.0f}",
                    f"{landed.problems}",
                    f"{landed.pages_seconds:,.1f}",
                    "" if landed.columns_seconds is None else f"{landed.columns_seconds:,.1f}",
                ]
            )
        for engine, seconds in result.load_seconds.items():
            rows.append(
                [
                    f"{result.size:,}",
                    f"{LABELS[engine]} (load only)",
                    f"{result.rows:,}",
                    f"{seconds:,.1f}",
                    f"{result.rows / seconds:,.0f}",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                ]
            )
    return _table(header, rows, text=(0, 1, 6))


def memory_table(results: list[SizeResult]) -> list[str]:
    """Peak RSS of the benchmark process per phase (and of the Elasticsearch JVM)."""
    names = list(dict.fromkeys(p.name for r in results for p in r.phases))
    header = ["phase", *(f"{r.size:,}: seconds / peak RSS" for r in results)]
    rows = []
    for name in names:
        row = [name]
        for result in results:
            phase = next((p for p in result.phases if p.name == name), None)
            if phase is None:
                row.append("")
                continue
            cell = f"{phase.seconds:,.1f} s / {phase.peak_rss_mb:,.0f} MB"
            if phase.es_peak_rss_mb and "elasticsearch" in name:
                cell += f" (node: {phase.es_peak_rss_mb:,.0f} MB)"
            row.append(cell)
        rows.append(row)
    return _table(header, rows)


def _latency_chart(result: SizeResult) -> go.Figure:
    figure = go.Figure()
    keys = [q.key for q in QUESTIONS]
    timings = _timings(result)
    for engine in _engines(result, (*BACKENDS, *REFERENCES)):
        p95 = [p50_p95(timings[engine, k].wall)[1] for k in keys]
        figure.add_bar(name=LABELS[engine], x=keys, y=p95)
    for (backend, size), limit in LATENCY_TARGETS_MS.items():
        if size == result.size and backend in _engines(result, BACKENDS):
            figure.add_scatter(  # a line trace: add_hline misplaces its label on log axes
                name=f"{LABELS[backend]} target {limit:.0f} ms",
                x=keys,
                y=[limit] * len(keys),
                mode="lines",
                line_dash="dash",
            )
    figure.update_layout(
        title=f"p95 per question, {result.size:,} transactions (ms, log scale)",
        barmode="group",
        yaxis_type="log",
    )
    return figure


def _ingestion_chart(results: list[SizeResult]) -> go.Figure:
    figure = go.Figure()
    for backend in BACKENDS:
        landed = [(r.size, i) for r in results for i in r.ingestion if i.backend == backend]
        if landed:
            figure.add_bar(
                name=LABELS[backend],
                x=[f"{s:,} tx" for s, _ in landed],
                y=[i.rows_per_s for _, i in landed],
            )
            figure.add_hline(
                y=INGEST_TARGETS[backend],
                line_dash="dash",
                annotation_text=f"{LABELS[backend]} target",
            )
    figure.update_layout(title="Ingestion rate (rows/s)", barmode="group")
    return figure


def _memory_chart(results: list[SizeResult]) -> go.Figure:
    figure = go.Figure()
    for result in results:
        figure.add_bar(
            name=f"{result.size:,} tx",
            x=[p.name for p in result.phases],
            y=[p.peak_rss_mb for p in result.phases],
        )
    figure.add_hline(y=MEMORY_TARGET_GB * 1024, line_dash="dash", annotation_text="app target")
    figure.update_layout(
        title="Peak RSS of the benchmark process per phase (MB)", barmode="group", showlegend=True
    )
    return figure


def write_charts(results: list[SizeResult], folder: Path) -> tuple[list[Path], str | None]:
    """The charts as PNG (plotly through kaleido, which drives the system's Chromium; set
    ``BROWSER_PATH`` to choose another). Returns the files, or none and why."""
    figures = {f"latency-{r.size}.png": _latency_chart(r) for r in results}
    figures["ingestion.png"] = _ingestion_chart(results)
    figures["memory.png"] = _memory_chart(results)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / name for name in figures]
    try:
        pio.write_images(list(figures.values()), paths, width=1000, height=500)
    except Exception as exc:  # no Chromium: the tables still stand
        return [], f"{type(exc).__name__}: {exc}"
    return paths, None


def _busy(info: RunInfo) -> str:
    """A warning when more work was waiting for the cores than there are cores."""
    cores = int(info.machine["cores"])
    if max(info.load) <= cores:
        return ""
    return f" (above the {cores} cores: other work shared the machine, so times are longer)"


def write_report(output: Path, results: list[SizeResult], info: RunInfo) -> Path:
    """Write the Markdown report, its charts and the raw numbers (``results.json``)."""
    folder = output.parent / "benchmark"
    charts, chart_problem = write_charts(results, folder)
    (folder / "results.json").write_text(
        json.dumps([asdict(r) for r in results], indent=1, default=str), encoding="utf-8"
    )
    lines = [
        "# FinSync Chat benchmark",
        "",
        f"Written by `{info.command}` on {info.started:%Y-%m-%d %H:%M} (took "
        f"{info.seconds / 60:.0f} min). Regenerate with `make bench`; a quick run: "
        "`.venv/bin/python -m scripts.bench --sizes 20000 --pages 500 --runs 5 --output "
        "/tmp/bench/BENCHMARK.md`.",
        "",
        f"- machine: {info.machine['cpu']}, {info.machine['cores']} cores, "
        f"{info.machine['ram']} RAM, {info.machine['os']}; load average "
        f"{info.load[0]:.1f} before and {info.load[1]:.1f} after{_busy(info)}",
        f"- commit: {info.commit}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in info.versions.items()),
        "",
        "## Targets",
        "",
        *headline(results, info),
        "",
        "Latency is the wall time of `ChatPipeline.ask` with the offline router, the question "
        f"set asked {info.runs} times after one warm-up round that is not counted.",
        "",
        "## What ran",
        "",
        "- Data: a CSV in FinSync's own schema, written as a stream, with the sample data's "
        "three accounts, merchants, descriptors, price ranges and bills over five years "
        "(2021–2025), about 7% money in (pay, interest, refunds) and 8% transfers between the "
        "accounts; statement pages "
        "of four-page statements (summary, two pages of transactions, terms and fees), each "
        "vector its page kind's real embedding plus noise.",
        "- Ingestion: the CSV through `elastic.ingest.Importer.land` (what `finsync "
        "ingest` calls) into a fresh SQLite store and into fresh indices on a local "
        "Elasticsearch node (`scripts.es_node.start_node`, default heap); rows/s is rows "
        "landed over the call's wall time. *Store writes* is the part of that time spent in "
        "the backend's `add_transactions` (SQLite's inserts and its index build at the end; "
        "Elasticsearch's bulk requests, documents built and the node indexing them): the "
        "rate the store alone would allow if reading and cleaning the file cost nothing (on "
        "Elasticsearch a batch is sent while the next is cleaned, so the two overlap). The "
        "goals are for a file of a million rows and judged at the largest size; the node is "
        "started for the run, so its first import, the smaller size, also pays the JVM's "
        "warm-up. "
        "Pages are added with `add_statement_chunks` and not counted.",
        "- Columns: the embedded store answers from a columnar cache of the user's "
        "transactions, loaded in the background after a write; questions asked before it is "
        "ready are answered in SQL. The questions are timed once it is loaded; *columns "
        "loaded* is how long that took after the import.",
        "- Questions: each through `ChatPipeline.ask` (route, search, compose) on each "
        "backend, as of 2025-12-31.",
        "- References: the same answers from pandas (the project's oracle "
        "`tests/pandas_reference.py`, which sums exact decimals and compares Python dates: "
        "correct rather than fast) and from DuckDB (hand-written SQL over an in-memory table "
        "loaded from the same CSV), in the same process, timed the same way. *answers* says "
        "whether every backend's numbers (totals, counts, every group, month and listed id; "
        "for the text question the fee quoted) equal both references', and pandas' DuckDB's. "
        "For the text question the references only pick the stated fee out of the pages by "
        "regular expression; the pipeline ranks pages (BM25 and vectors) and composes a quoted "
        "answer, so its ratio to DuckDB says little.",
        "- Statements: the sample set's statement PDFs through `Importer.land_all` (read the "
        "text layer, find tables and facts, chunk, embed with the local model, store) into a "
        "fresh store on each backend, each with a freshly loaded model (so no vector is "
        "remembered from the other backend's run); pages/s is PDF pages over the call's wall "
        "time.",
        "- First answers: a fresh process builds the pipeline as the app does, starts loading "
        "the local model in the background (as `ui/context.py` does), and asks at once, on the "
        "sample data; each time is counted from the start, so the second includes the first.",
        "- Memory: the benchmark process's resident set size, sampled every 20 ms per phase; "
        "each size runs in a process of its own. *App peak* is the highest peak of the "
        "ingest, pages and question phases (what the app does), not the references'.",
        "",
    ]
    for result in results:
        lines += [
            f"## {result.size:,} transactions, {result.pages:,} statement pages",
            "",
            f"{result.rows:,} rows written ({result.csv_mb:,.0f} MB of CSV).",
            "",
            *latency_table(result),
            "",
            "Where the time goes, from the answers' `timings_ms` (ms):",
            "",
            *stages_table(result),
            "",
        ]
        if any(c.name == f"latency-{result.size}.png" for c in charts):
            lines += [f"![p95 per question](benchmark/latency-{result.size}.png)", ""]
    lines += ["## Ingestion", "", *ingestion_table(results), ""]
    if charts:
        lines += ["![ingestion rate](benchmark/ingestion.png)", ""]
    lines += ["## Memory", "", *memory_table(results), ""]
    if charts:
        lines += ["![peak memory](benchmark/memory.png)", ""]
    venv = info.venv
    strays = ", ".join(f"{name} {size / GB:.2f} GB" for name, size in venv.strays)
    lines += [
        "## Virtualenv",
        "",
        f"`du` of the virtualenv: **{venv.total / GB:.2f} GB**. The app's dependencies "
        f"(`pyproject.toml`, and the tokenizer package `scripts/setup.sh` installs) account "
        f"for {venv.app / GB:.2f} GB, with the test and bench extras {venv.with_extras / GB:.2f} "
        f"GB (sizes from each package's RECORD, without compiled bytecode). The largest "
        f"packages installed that nothing in the project requires: {strays or 'none'}.",
        "",
    ]
    if chart_problem:
        lines += [f"Charts could not be exported as PNG: {chart_problem}", ""]
    output.write_text("\n".join(lines), encoding="utf-8")
    return output
