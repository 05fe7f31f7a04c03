"""The ``finsync`` command: ingest, sample data, questions, the app and a local Elasticsearch."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from tqdm import tqdm

from api.tokens import TokenStore, token_id_of
from elastic.errors import (
    BackendError,
    BackendUnavailable,
    EmbeddingMismatch,
    FinSyncError,
    ModelError,
    headline,
)
from elastic.ingest.landing import FileDefaults
from elastic.ingest.landing import forget as forget_data
from elastic.masking import mask_logs
from elastic.model.records import IngestReport
from elastic.user_ids import InvalidUserId, checked_user_id
from settings import Settings

if TYPE_CHECKING:
    from llm.sources import SourceFile

log = logging.getLogger("finsync")
app = typer.Typer(help="FinSync Chat: talk to your bank statements.", no_args_is_help=True)

UserOption = Annotated[
    str | None, typer.Option("--user", help="Owner of the data (default: FINSYNC_USER)")
]


_INERT = {
    code: f"\\u{code:04x}"
    for code in (
        *range(0x20),
        0x7F,
        *range(0x80, 0xA0),
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
    if code not in (0x09, 0x0A)
}


def terminal_safe(text: str) -> str:
    """``text`` with every control character (C0 but tab and newline, DEL, C1) and bidi override
    written as a visible ``\\uXXXX`` escape, so nothing a file holds can drive the terminal
    (an OSC 52 clipboard write, a bell, a backspace over what was printed). In JSON text the
    escapes are JSON's own, so the object still parses to the same strings."""
    return text.translate(_INERT)


def _echo(text: str, err: bool = False) -> None:
    """Every line the command prints goes through here."""
    typer.echo(terminal_safe(text), err=err)


def _owner(user: str | None, settings: Settings) -> str:
    """The user the command acts for: ``--user``, else ``FINSYNC_USER``; a usage error (exit 2)
    when it is not a usable id."""
    try:
        return checked_user_id(settings.user if user is None else user)
    except InvalidUserId as exc:
        raise typer.BadParameter(str(exc), param_hint="--user") from exc


@contextmanager
def _reported_errors() -> Iterator[None]:
    """A backend that fails or holds other vectors, or any other of FinSync's errors: one clear
    line (``headline``: an outage, an internal error, or the fix), exit code 1."""
    try:
        yield
    except FinSyncError as exc:
        _echo(f"error: {headline(exc)}", err=True)
        raise typer.Exit(1) from exc


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM stops the command the way Ctrl-C does, so it can say what it got done."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Bar:
    """A tqdm bar driven by the ingestion progress callback, one per file; it keeps the count
    of rows stored so far of the file in hand, for the message when an ingest stops. The total
    starts as the lines of the file and becomes the rows it held once all are read."""

    def __init__(self, unit: str) -> None:
        self._bar: tqdm | None = None
        self._unit = unit
        self.done = 0
        self.total = 0

    def __call__(self, done: int, total: int, label: str) -> None:
        self.done, self.total = done, total
        if self._bar is None:
            self._bar = tqdm(total=total, unit=self._unit, file=sys.stderr, leave=False)
        if self._bar.total != total:
            self._bar.total = total
        self._bar.set_postfix_str(terminal_safe(label[-40:]))
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        self._bar = None

    def next_file(self) -> None:
        """The file in hand is done: the next one starts a bar and a count of its own."""
        self.close()
        self.done = self.total = 0


def _print_report(report: IngestReport) -> None:
    """One line per file (format, what landed), then what was assumed, what was noted (a
    statement's reconciliation) and each problem."""
    _echo(f"{report.source}: {report.format or 'unreadable'}: {report.summary()}")
    for note in report.assumed:
        _echo(f"  assumed: {note}")
    for note in report.notes:
        _echo(f"  note: {note}")
    for problem in report.problems:
        _echo(f"  error: {problem}", err=True)


def _stopped(file: Path, bar: _Bar, reason: str) -> str:
    """The one line for an ingest that stopped part-way: why, what landed, what to do."""
    landed = (
        f"{bar.done} of {bar.total} rows of {file.name} were stored"
        if bar.total
        else f"No rows of {file.name} were stored"
    )
    return (
        f"error: ingest stopped at {file.name}: {reason} {landed} before it stopped; "
        "re-running the same command is safe: rows already stored are skipped, never doubled."
    )


def _ingest(settings: Settings, files: list[Path], user: str, defaults: FileDefaults) -> bool:
    """Land every file through the user's importer; True when everything in every file landed.

    A backend that fails or a stop (Ctrl-C, SIGTERM) part-way exits 1 with one line that says
    how many rows landed; ids are content hashes, so running the command again is safe.
    """
    from llm.embeddings import make_embedder
    from llm.ingesting import file_importer
    from llm.services import open_prepared_backend

    bar = _Bar("rows")
    printed = 0  # files whose report is printed; the next one is in hand
    clean = True
    try:
        with _sigterm_interrupts():
            embedder = make_embedder(settings)
            backend = open_prepared_backend(settings, embedder)
            try:
                importer = file_importer(settings, backend, embedder, user, defaults=defaults)
                for report in importer.with_progress(bar).land_each(files):
                    bar.next_file()
                    _print_report(report)
                    printed += 1
                    clean = clean and not report.problems and not report.landed_nothing
            finally:
                bar.close()
                backend.close()
    except EmbeddingMismatch as exc:
        _echo(f"error: {headline(exc)}", err=True)
        raise typer.Exit(1) from exc
    except (BackendError, ModelError, KeyboardInterrupt) as exc:
        if isinstance(exc, KeyboardInterrupt):
            reason = "interrupted."
        elif isinstance(exc, ModelError):  # Vertex AI embeddings for a statement's pages
            reason = f"{headline(exc)}."
        else:
            reason = str(exc)
        _echo(_stopped(files[min(printed, len(files) - 1)], bar, reason), err=True)
        raise typer.Exit(1) from exc
    return clean


ALIASES = {"transactions", "statements"}


@app.command("ingest")
def ingest_cmd(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Bank exports (CSV, XLS, XLSX, ODS, OFX/QFX, QIF, CAMT.052/053/054, "
            "MT940/MT942) or statement PDFs; the format is read from the content"
        ),
    ],
    user: UserOption = None,
    account_name: Annotated[
        str | None, typer.Option("--account-name", help="Account name, if the file has none")
    ] = None,
    account_no: Annotated[
        str | None, typer.Option("--account-no", help="Account number, if the file has none")
    ] = None,
    bank: Annotated[str | None, typer.Option("--bank", help="Bank, if the file has none")] = None,
    currency: Annotated[
        str | None, typer.Option("--currency", help="ISO 4217 code, if the file has none")
    ] = None,
) -> None:
    """Load bank exports and statement PDFs. Exit 0 when everything landed, 1 when anything
    was reported (the good part still lands), 2 on a usage error."""
    if files and str(files[0]) in ALIASES and not files[0].exists():
        files = files[1:]  # `finsync ingest transactions FILE` reads like the old commands
    if not files:
        raise typer.BadParameter("give at least one FILE")
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise typer.BadParameter(terminal_safe(f"no such file: {', '.join(missing)}"))
    if currency and not (len(currency) == 3 and currency.isalpha()):
        raise typer.BadParameter(f"--currency {currency!r} is not an ISO 4217 code")
    settings = Settings()
    owner = _owner(user, settings)
    defaults = FileDefaults(account_name, account_no, bank, currency.upper() if currency else None)
    if not _ingest(settings, files, owner, defaults):
        raise typer.Exit(1)


def _contents(source: SourceFile) -> str:
    """What a file holds, as ``forget --list`` says it: ``statement, 3 pages, 47 rows``."""
    parts = [source.kind]
    if source.pages:
        parts.append(f"{source.pages} page{'s' if source.pages != 1 else ''}")
    parts.append(f"{source.rows} row{'s' if source.rows != 1 else ''}")
    return ", ".join(parts)


@app.command()
def forget(
    files: Annotated[
        list[str] | None,
        typer.Argument(help="Files to forget, as the Sources page names them (see --list)"),
    ] = None,
    user: UserOption = None,
    everything: Annotated[
        bool, typer.Option("--all", help="Forget all of the user's data and corrections")
    ] = False,
    listing: Annotated[bool, typer.Option("--list", help="List the user's files")] = False,
) -> None:
    """Delete a file's data, or all of a user's data, from the store (and kept PDFs). Files are
    named as --list shows them (a statement PDF by the name it was imported with). Only the
    user's own files are touched; exit 1 when a named file is not one of them, or --all finds
    nothing."""
    from llm.embeddings import make_embedder
    from llm.services import chat_store, open_prepared_backend, statement_store, upload_store
    from llm.sources import list_sources, resolve

    settings = Settings()
    owner = _owner(user, settings)
    if bool(files) == everything and not listing:
        raise typer.BadParameter("name FILE(s) to forget, or --all for everything")
    unknown: list[str] = []
    with _reported_errors():
        backend = open_prepared_backend(settings, make_embedder(settings))
        try:
            sources = list_sources(backend, owner)
            if listing:
                for source in sources:
                    _echo(f"{source.name}\t{source.period}\t{_contents(source)}")
                return
            chosen = None
            if not everything:
                chosen, unknown = resolve(sources, files or [])
            forgotten = forget_data(backend, statement_store(settings), owner, chosen)
            if everything:
                upload_store(settings).forget(owner)
                chat_store(settings).forget(owner)
        finally:
            backend.close()
    shown = {source.key: source.name for source in sources}
    for name in forgotten.files:
        _echo(f"forgot {shown.get(name, name)}")
    unknown += forgotten.unknown
    for name in unknown:
        _echo(f"error: {name} is not one of {owner}'s files (see finsync forget --list)", err=True)
    _echo(
        f"forgot {forgotten.documents} stored document(s) and {len(forgotten.pdfs)} kept PDF(s) "
        f"of {len(forgotten.files)} file(s) of {owner}"
    )
    if unknown or not forgotten.files:
        raise typer.Exit(1)


@app.command()
def reembed() -> None:
    """Embed every stored statement page again with the configured embedding model, when the
    store holds vectors of another one (the other commands then refuse it)."""
    from elastic.engines import open_backend
    from llm.embeddings import make_embedder

    settings = Settings()
    embedder = make_embedder(settings)
    with _reported_errors():
        backend = open_backend(settings)
        bar = tqdm(desc=f"re-embedding pages with {embedder.model_name}", unit=" pages")

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        try:
            pages = backend.reembed(embedder.embed, embedder.dims, embedder.model_name, progress)
        finally:
            bar.close()
            backend.close()
    _echo(f"re-embedded {pages} page(s) with {embedder.model_name}")


def _month(text: str) -> date:
    """A ``YYYY-MM`` option as the first day of that month."""
    try:
        return datetime.strptime(text, "%Y-%m").date()
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a month written YYYY-MM") from None


@app.command()
def sample(
    out: Annotated[Path, typer.Option(help="Where to write the sample set")] = Path(
        ".finsync/sample"
    ),
    ingest: Annotated[bool, typer.Option("--ingest", help="Ingest it afterwards")] = False,
    seed: Annotated[int, typer.Option(help="Random seed; same seed, same data")] = 7,
    end: Annotated[
        str | None,
        typer.Option(
            help="The sample's last month, YYYY-MM (default: the last full month before today); "
            "same seed and end, same data",
        ),
    ] = None,
    user: UserOption = None,
) -> None:
    """Generate the sample statements and transactions (and optionally ingest them)."""
    from scripts.sample_data import generate_sample

    sample_set = generate_sample(out, seed=seed, end=_month(end) if end else None)
    _echo(
        f"sample: {sample_set.transactions_csv}, {len(sample_set.statement_pdfs)} statements, "
        f"{len(sample_set.exports)} bank exports in {sample_set.exports[0].parent} and "
        f"{len(sample_set.statement_layouts)} statements in other banks' layouts in "
        f"{sample_set.statement_layouts[0].parent}"
    )
    if ingest:
        settings = Settings()
        owner = _owner(user, settings)
        files = [sample_set.transactions_csv, *sample_set.statement_pdfs]
        if not _ingest(settings, files, owner, FileDefaults()):
            raise typer.Exit(1)


def _questions(question: str | None, file: Path | None) -> list[str]:
    if file is not None:
        lines = file.read_text(encoding="utf-8").splitlines()
        return [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    if question:
        return [question]
    raise typer.BadParameter("give a QUESTION or --file QUESTIONS.txt")


@app.command()
def ask(
    question: Annotated[str | None, typer.Argument(help="The question")] = None,
    file: Annotated[
        Path | None, typer.Option("--file", exists=True, help="One question per line")
    ] = None,
    user: UserOption = None,
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="Resolve relative dates against YYYY-MM-DD")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per answer")] = False,
) -> None:
    """Answer questions; with --file, a conversation of many questions in one process."""
    from llm.services import build_pipeline

    settings = Settings()
    owner = _owner(user, settings)
    try:
        today = date.fromisoformat(as_of) if as_of else date.today()
    except ValueError as exc:
        raise typer.BadParameter(f"--as-of {as_of!r} is not YYYY-MM-DD") from exc
    questions = _questions(question, file)
    with _reported_errors():
        pipeline = build_pipeline(settings)
    previous = None
    failures = 0
    try:
        for number, text in enumerate(questions):
            try:
                answer = pipeline.ask(text, owner, today, previous)
            except BackendUnavailable as exc:
                # The rest would wait on the same outage: each gets the one line, unasked.
                failures += len(questions) - number
                for unasked in questions[number:] if as_json else [text]:
                    _print_failure(unasked, headline(exc), as_json)
                break
            except FinSyncError as exc:  # a rejected query is logged with its request
                failures += 1
                _print_failure(text, headline(exc), as_json)
                continue
            except Exception as exc:  # one bad question must not lose the rest of the file
                log.exception("answering %r failed", text)
                failures += 1
                _print_failure(text, f"could not answer: {type(exc).__name__}: {exc}", as_json)
                continue
            previous = answer.follow_up_basis if answer.result is not None else previous
            if as_json:
                _echo(json.dumps(answer.as_json(), ensure_ascii=False))
                continue
            _echo(answer.text)
            for citation in answer.citations:
                _echo(f"  [{citation.n}] {citation.shown}")
            if len(questions) > 1:
                _echo("")
    finally:
        pipeline.backend.close()
    if failures:
        raise typer.Exit(1)


def _print_failure(question: str, message: str, as_json: bool) -> None:
    if as_json:
        _echo(json.dumps({"question": question, "error": message}, ensure_ascii=False))
    else:
        _echo(f"error: {message}", err=True)


LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def _secrets_file(project: Path) -> Path:
    """The sign-in configuration: ``FINSYNC_CONFIG``, else the project's own, never whatever
    the working directory happens to hold."""
    configured = os.environ.get("FINSYNC_CONFIG")
    return Path(configured) if configured else project / ".streamlit" / "secrets.toml"


def _sign_in_configured(secrets: Path) -> bool:
    try:
        return "auth" in tomllib.loads(secrets.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise typer.BadParameter(f"{secrets} cannot be read: {exc}") from exc


@app.command()
def serve(
    port: Annotated[int, typer.Option(help="Port for the app")] = 8501,
    address: Annotated[
        str, typer.Option(help="Address to listen on; other than loopback needs sign-in")
    ] = "127.0.0.1",
    without_sign_in: Annotated[
        bool,
        typer.Option(
            "--without-sign-in",
            help="Listen beyond this machine with no sign-in configured (everyone who can "
            "reach the port sees the data)",
        ),
    ] = False,
    dev: Annotated[bool, typer.Option("--dev", help="Reload when the code changes")] = False,
) -> None:
    """Run the Streamlit app; this process becomes the server, so stopping it stops the app."""
    project = Path(__file__).resolve().parent.parent
    secrets = _secrets_file(project)
    if address not in LOOPBACK and not _sign_in_configured(secrets) and not without_sign_in:
        raise typer.BadParameter(
            f"no sign-in is configured in {secrets}: the app may listen on {address} only with "
            "[auth] configured, or with --without-sign-in"
        )
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(project / "ui" / "server.py"),
        "--server.port",
        str(port),
        "--server.address",
        address,
        "--server.fileWatcherType",
        "auto" if dev else "none",
        "--secrets.files",
        str(secrets),
    ]
    os.chdir(project)  # Streamlit reads .streamlit/config.toml from the working directory
    os.execv(sys.executable, command)


@app.command("api")
def api_cmd(
    port: Annotated[int, typer.Option(help="Port for the API")] = 8700,
    address: Annotated[
        str, typer.Option(help="Address to listen on; other than loopback needs TLS")
    ] = "127.0.0.1",
    without_tls: Annotated[
        bool,
        typer.Option(
            "--without-tls",
            help="Listen beyond this machine over plain HTTP (tokens and answers travel in "
            "the clear; for a TLS proxy in front)",
        ),
    ] = False,
) -> None:
    """Serve the JSON API: POST /query, /ingest, /sources, statement pages; docs at /docs.
    Each request acts for the user of its token (finsync token create)."""
    settings = Settings()
    cert, key = settings.api_tls_cert, settings.api_tls_key
    if bool(cert) != bool(key):
        raise typer.BadParameter("set both FINSYNC_API_TLS_CERT and FINSYNC_API_TLS_KEY, or none")
    missing = [str(path) for path in (cert, key) if path is not None and not path.is_file()]
    if missing:
        raise typer.BadParameter(terminal_safe(f"no such file: {', '.join(missing)}"))
    if address not in LOOPBACK and cert is None and not without_tls:
        raise typer.BadParameter(
            f"no TLS is configured (FINSYNC_API_TLS_CERT, FINSYNC_API_TLS_KEY): the API may "
            f"listen on {address} only with TLS, or with --without-tls"
        )
    from api.http import serve as serve_api

    serve_api(settings, address, port)


@app.command("mcp")
def mcp_cmd(
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            exists=True,
            dir_okay=False,
            help="A file holding the API token (default: FINSYNC_API_TOKEN)",
        ),
    ] = None,
) -> None:
    """Serve FinSync as MCP tools (ask, list_accounts, list_sources) on standard input and
    output, for the user of an API token (finsync token create)."""
    from api.mcp_server import serve as serve_mcp
    from api.service import FinSyncService

    settings = Settings()
    if token_file is not None:
        token = token_file.read_text(encoding="utf-8").strip()
    elif settings.api_token is not None:
        token = settings.api_token.get_secret_value().strip()
    else:
        raise typer.BadParameter("give the API token in FINSYNC_API_TOKEN or --token-file")
    service = FinSyncService(settings)
    user_id = service.tokens.user_of(token)
    if user_id is None:
        _echo("error: the API token is unknown or revoked (see finsync token list)", err=True)
        raise typer.Exit(1)
    serve_mcp(service, user_id)


token_app = typer.Typer(
    help="API tokens: each acts for one user (finsync api, finsync mcp).", no_args_is_help=True
)
app.add_typer(token_app, name="token")


def _token_store(settings: Settings) -> TokenStore:
    return TokenStore(settings.api_tokens_file)


@token_app.command("create")
def token_create(
    user: UserOption = None,
    name: Annotated[str, typer.Option("--name", help="A label: who or what uses it")] = "",
) -> None:
    """Make a token acting for the user. It is printed once, as the last line; only its hash
    is kept."""
    settings = Settings()
    owner = _owner(user, settings)
    try:
        info, token = _token_store(settings).create(owner, name)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--name") from exc
    label = f" ({info.name})" if info.name else ""
    _echo(f"token {info.token_id} for {owner}{label}; it is shown only now, keep it secret:")
    _echo(token)


@token_app.command("list")
def token_list(
    user: Annotated[
        str | None, typer.Option("--user", help="Only this user's tokens (default: all)")
    ] = None,
) -> None:
    """The tokens (id, when made, user, name); never a token itself."""
    tokens = _token_store(Settings()).tokens(user)
    if not tokens:
        _echo("no tokens")
    for info in tokens:
        _echo(f"{info.token_id}  {info.created:%Y-%m-%d %H:%M}Z  {info.user_id}  {info.name}")


@token_app.command("revoke")
def token_revoke(
    token_id: Annotated[str, typer.Argument(help="The token's id, as listed (or the token)")],
) -> None:
    """Revoke a token: requests with it are refused from now on."""
    revoked = _token_store(Settings()).revoke(token_id)
    if revoked is None:
        _echo(f"error: no token {token_id_of(token_id)} (see finsync token list)", err=True)
        raise typer.Exit(1)
    _echo(f"revoked token {revoked.token_id} of {revoked.user_id}")


@app.command("es-node")
def es_node(
    port: Annotated[int | None, typer.Option(help="HTTP port (default: a free one)")] = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="Data directory (default: temporary)")
    ] = None,
) -> None:
    """Start a local single-node Elasticsearch for development; Ctrl-C stops it."""
    from scripts.es_node import main as run_node

    run_node(port=port, data_dir=data_dir)


def main() -> None:
    mask_logs()
    # The client logs every retry with a traceback; the commands report failures themselves.
    logging.getLogger("elastic_transport").setLevel(logging.CRITICAL)
    app()


if __name__ == "__main__":
    main()
