"""The JSON API (``finsync api``): FastAPI over ``FinSyncService``.

Every route but ``/health`` and the documentation takes ``Authorization: Bearer <token>``; the
token names the user, and nothing in a body, a path or a query string can name another. Every
refusal is a status with ``{"detail": "<one line>"}``, never a traceback: 401 without a known
token, 404 for what is not the caller's, 409 while the caller's import runs, 413 for a body,
file or question over its limit, 422 for malformed JSON, an impossible date or a field FinSync
does not take, 429 past the token's requests a minute, 503 while the backend or the language
model is not answering (the same line the CLI prints), 500 for FinSync's own bugs.
"""

from __future__ import annotations

import logging
import math
import shutil
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from starlette.exceptions import HTTPException

from api.service import FinSyncService, Refused, Upload, iso_day
from api.tokens import token_id_of
from elastic.errors import (
    BackendUnavailable,
    EmbeddingMismatch,
    FinSyncError,
    ModelUnavailable,
    headline,
)
from elastic.ingest.formats import is_pdf
from llm.ingesting import FileDefaults, safe_file_name
from llm.pdf_pages import readable_page_count
from llm.pipeline import Scope
from llm.services import upload_store
from settings import Settings

log = logging.getLogger(__name__)

MIB = 1024 * 1024
MAX_FILES = 20  # files one POST /ingest takes
_JSON_OVERHEAD = 16 * 1024  # a query's body besides its question
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]


# --- the request and answer shapes -------------------------------------------------------------


def _day(value: object) -> object:
    """JSON gives a day as a string; nothing else is taken for one."""
    if isinstance(value, str):
        return iso_day(value)
    if isinstance(value, date):
        return value
    raise ValueError("a date is a string written YYYY-MM-DD")


Day = Annotated[date, BeforeValidator(_day)]


class Filters(BaseModel):
    """Narrow the question as the chat page's sidebar does; a question entirely outside them
    is answered with a clarification, never widened."""

    model_config = ConfigDict(extra="forbid")

    accounts: list[str] = Field(default=[], description="Account names, as GET /accounts lists")
    date_from: Day | None = None
    date_to: Day | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Filters:
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise ValueError("date_from is after date_to")
        return self

    def scope(self) -> Scope:
        return Scope(tuple(self.accounts), self.date_from, self.date_to)


class Query(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="The question, in any language FinSync reads")
    as_of: Day | None = Field(
        default=None, description="Resolve relative dates against this day (default: today)"
    )
    conversation_id: str | None = Field(
        default=None,
        description="Continue a conversation: the conversation_id of an earlier answer",
    )
    filters: Filters | None = None


class CitationOut(BaseModel):
    n: int
    kind: Literal["statement", "transactions"]
    statement_id: str | None
    page: int | None
    source: str
    score: float | None


class Answer(BaseModel):
    """The object ``finsync ask --json`` prints, and the conversation it continues."""

    intent: Literal["aggregate", "trend", "listing", "text_qa", "clarify"]
    answer: str = Field(description="The answer as markdown, with [N] citation markers")
    plan: dict[str, Any] = Field(description="The validated IntentPlan")
    data: dict[str, Any] = Field(description="The numbers, rows or passages of the intent")
    citations: list[CitationOut]
    timings_ms: dict[str, float]
    conversation_id: str


class Problem(BaseModel):
    detail: str = Field(description="What is wrong, in one line")


# --- refusals as one line ------------------------------------------------------------------


def _problem(status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


def _validation_line(exc: RequestValidationError) -> str:
    """The first problem of a request FastAPI could not read, in one line."""
    errors = exc.errors()
    if not errors:
        return "the request could not be read"
    error = errors[0]
    if error["type"] == "json_invalid":
        reason = (error.get("ctx") or {}).get("error", "")
        return f"the body is not valid JSON ({reason})" if reason else "the body is not JSON"
    where = ".".join(str(p) for p in error["loc"] if p not in ("body", "path", "query", "form"))
    if error["type"] == "extra_forbidden":
        line = f"{where}: FinSync takes no such field"
        if where == "user":
            line += " (the user is the token's, and only the token's)"
    elif not where and error["type"] in ("model_attributes_type", "dict_type"):
        line = "the body is not a JSON object (send it with Content-Type: application/json)"
    else:
        ctx = error.get("ctx") or {}
        reason = ctx["error"] if error["type"] == "value_error" and "error" in ctx else None
        line = str(reason or error["msg"])
        line = f"{where}: {line}" if where else line
    more = len(errors) - 1
    return line + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def unreadable(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _problem(422, _validation_line(exc))

    @app.exception_handler(HTTPException)
    async def refused_by_route(request: Request, exc: HTTPException) -> JSONResponse:
        return _problem(exc.status_code, str(exc.detail), exc.headers)

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> JSONResponse:
        return _problem(exc.status, str(exc))

    @app.exception_handler(FinSyncError)
    async def failed(request: Request, exc: FinSyncError) -> JSONResponse:
        outage = isinstance(exc, BackendUnavailable | ModelUnavailable | EmbeddingMismatch)
        if not outage:
            log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return _problem(503 if outage else 500, headline(exc))

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return _problem(500, f"Internal error: an unexpected {type(exc).__name__} (logged)")


class BodyLimit:
    """Refuses a body over its route's limit with 413 before it is read whole: by its
    Content-Length when it states one, else as the bytes arrive."""

    def __init__(self, app: Callable[..., Awaitable[None]], limit: Callable[[str], int]) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope["path"])
        stated = dict(scope["headers"]).get(b"content-length", b"")
        if stated.isdigit() and int(stated) > limit:
            await _send_too_large(send, limit)
            return
        received, refused = 0, False

        async def limited() -> MutableMapping[str, Any]:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    await _send_too_large(send, limit)
                    return {
                        "type": "http.disconnect"
                    }  # the route stops reading; its reply is dropped
            return message

        async def guarded(message: MutableMapping[str, Any]) -> None:
            if not refused:
                await send(message)

        await self.app(scope, limited, guarded)


async def _send_too_large(send: Send, limit: int) -> None:
    size = f"{limit / MIB:,.1f} MB" if limit >= MIB else f"{limit / 1024:,.0f} KB"
    response = _problem(413, f"the request body is over {size}, the most this route takes")
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(k.encode(), v.encode()) for k, v in response.headers.items()],
        }
    )
    await send({"type": "http.response.body", "body": response.body})


class RateLimit:
    """Requests a minute per token, in a moving window."""

    def __init__(self, per_minute: int) -> None:
        self._item = RateLimitItemPerMinute(per_minute)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self.per_minute = per_minute

    def retry_after(self, key: str) -> int | None:
        """None when a request under ``key`` may go ahead, else the seconds until one may."""
        if self._limiter.hit(self._item, key):
            return None
        reset = self._limiter.get_window_stats(self._item, key).reset_time
        return max(1, math.ceil(reset - time.time()))


# --- the application -----------------------------------------------------------------------

_bearer = HTTPBearer(auto_error=False, description="A token from `finsync token create`")


def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """The user the request's token acts for: 401 without a known token, 429 past its rate."""
    service: FinSyncService = request.app.state.service
    rate: RateLimit = request.app.state.rate
    challenge = {"WWW-Authenticate": "Bearer"}
    if credentials is None:
        raise HTTPException(
            401, "no token: send Authorization: Bearer <token> (finsync token create)", challenge
        )
    user_id = service.tokens.user_of(credentials.credentials)
    if user_id is None:
        raise HTTPException(401, "the token is unknown or revoked", challenge)
    wait = rate.retry_after(token_id_of(credentials.credentials))
    if wait is not None:
        raise HTTPException(
            429,
            f"more than {rate.per_minute} requests a minute with this token; try again in {wait} s",
            {"Retry-After": str(wait)},
        )
    return user_id


User = Annotated[str, Depends(caller)]


_DESCRIPTION = """FinSync Chat's answers for other programs: the same pipeline as the app and
`finsync ask --json`. Every route but `/health` takes `Authorization: Bearer <token>` from
`finsync token create --user U`; the token decides whose data is read. Refusals are a status and
`{"detail": "<one line>"}`."""


def create_app(settings: Settings, service: FinSyncService | None = None) -> FastAPI:
    service = service or FinSyncService(settings)

    copies = upload_store(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        copies.sweep()  # copies a server that stopped without cleaning up left behind
        threading.Thread(target=_warm_up, args=(service,), name="api-warm-up", daemon=True).start()
        try:
            yield
        finally:
            service.close()
            copies.sweep(stopping=True)

    app = FastAPI(
        title="FinSync Chat API",
        version="1",
        description=_DESCRIPTION,
        lifespan=lifespan,
        responses={
            401: {"model": Problem, "description": "No token, or an unknown or revoked one"},
            422: {"model": Problem, "description": "A request FinSync cannot read"},
            429: {"model": Problem, "description": "Too many requests with this token"},
            503: {"model": Problem, "description": "The backend or model is not answering"},
        },
    )
    app.state.service = service
    app.state.rate = RateLimit(settings.api_requests_per_minute)
    _install_error_handlers(app)
    json_limit = _JSON_OVERHEAD + 6 * settings.api_max_question_chars
    upload_limit = MAX_FILES * settings.max_upload_mb * MIB + MIB
    app.add_middleware(
        BodyLimit, limit=lambda path: upload_limit if path == "/ingest" else json_limit
    )

    @app.get("/health", tags=["service"])
    def health() -> dict[str, str]:
        """Whether the backend answers, and which it is (no token needed)."""
        return service.health()

    @app.post(
        "/query",
        tags=["answers"],
        response_class=JSONResponse,
        responses={
            200: {"model": Answer},
            404: {"model": Problem, "description": "conversation_id is not one of yours"},
            413: {"model": Problem, "description": "The question is over the size limit"},
        },
    )
    def query(body: Query, user_id: User) -> JSONResponse:
        """Answer a question as ``finsync ask --json`` does, for the token's user; pass the
        answer's ``conversation_id`` with a follow-up ("and in March?") to continue."""
        scope = body.filters.scope() if body.filters else None
        return JSONResponse(
            service.ask(user_id, body.question, body.as_of, body.conversation_id, scope)
        )

    @app.get("/accounts", tags=["sources"])
    def accounts(user_id: User) -> dict[str, Any]:
        """The token's user's accounts (numbers masked) and the dates their data spans."""
        return service.accounts(user_id)

    @app.get("/sources", tags=["sources"])
    def sources(user_id: User) -> dict[str, Any]:
        """The token's user's files (``file`` is the name DELETE /sources/{file} takes), with
        the statements each PDF held."""
        return {"sources": service.sources(user_id)}

    @app.delete(
        "/sources/{file:path}",
        tags=["sources"],
        responses={404: {"model": Problem, "description": "Not one of your files"}},
    )
    def forget(file: str, user_id: User) -> dict[str, Any]:
        """Delete one of your files' data: rows, pages, facts and the kept PDF."""
        return service.forget(user_id, file)

    @app.get(
        "/statements/{statement_id}/pages/{page}",
        tags=["sources"],
        response_class=Response,
        responses={
            200: {"content": {"image/png": {}}, "description": "The page, account masked"},
            404: {"model": Problem, "description": "Not one of your statements or pages"},
        },
    )
    def statement_page(statement_id: str, page: int, user_id: User) -> Response:
        """The page a citation points at, as PNG, the account number masked."""
        return Response(service.page_png(user_id, statement_id, page), media_type="image/png")

    @app.post(
        "/ingest",
        tags=["imports"],
        status_code=202,
        responses={
            409: {"model": Problem, "description": "An import of yours is still running"},
            413: {"model": Problem, "description": "A file over the size or page limit"},
        },
    )
    def ingest(
        user_id: User,
        files: Annotated[list[UploadFile], File(description="Bank exports or statement PDFs")],
        account_name: Annotated[str | None, Form(description="If the files have none")] = None,
        account_no: Annotated[str | None, Form(description="If the files have none")] = None,
        bank: Annotated[str | None, Form(description="If the files have none")] = None,
        currency: Annotated[
            str | None, Form(description="ISO 4217, if the files have none")
        ] = None,
    ) -> JSONResponse:
        """Land files as ``finsync ingest`` and the Ingest page do, in the background: poll
        ``GET /ingest/{job}`` for progress and each file's report."""
        if currency and not (len(currency) == 3 and currency.isalpha()):
            raise HTTPException(422, f"currency: {currency!r} is not an ISO 4217 code")
        if len(files) > MAX_FILES:
            raise HTTPException(413, f"{len(files)} files; an import takes at most {MAX_FILES}")
        defaults = FileDefaults(
            account_name, account_no, bank, currency.upper() if currency else None
        )
        folder = copies.folder(user_id, f"api-{uuid.uuid4().hex}")
        try:
            uploads = [_received(file, folder / str(n), settings) for n, file in enumerate(files)]
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        job_id = service.start_import(user_id, uploads, defaults, folder)
        return JSONResponse(
            service.job(user_id, job_id), status_code=202, headers={"Location": f"/ingest/{job_id}"}
        )

    @app.get(
        "/ingest/{job}",
        tags=["imports"],
        responses={404: {"model": Problem, "description": "Not one of your imports"}},
    )
    def ingest_job(job: str, user_id: User) -> dict[str, Any]:
        """An import's state, progress (files done, rows written of the file in hand) and, per
        file landed, its report: format, what landed, duplicates skipped, each problem."""
        return service.job(user_id, job)

    return app


def _received(file: UploadFile, folder: Path, settings: Settings) -> Upload:
    """An upload written to ``folder`` under a plain name; 413 over the size or page limit."""
    name = file.filename or "upload"
    if file.size is not None and file.size > settings.max_upload_mb * MIB:
        raise HTTPException(
            413,
            f"{name} is {file.size / MIB:,.1f} MB; an import takes files of up to "
            f"{settings.max_upload_mb} MB (finsync ingest has no limit)",
        )
    folder.mkdir(parents=True)
    path = folder / safe_file_name(name)
    with path.open("wb") as target:
        shutil.copyfileobj(file.file, target)
    with path.open("rb") as written:
        pdf = is_pdf(written.read(1024))
    pages = readable_page_count(path) if pdf else None
    if pages is not None and pages > settings.max_upload_pages:
        raise HTTPException(
            413,
            f"{name} has {pages:,} pages; an import takes PDFs of up to "
            f"{settings.max_upload_pages:,} pages (finsync ingest has no limit)",
        )
    return Upload(name, path)


def _warm_up(service: FinSyncService) -> None:
    """Load the models and open the backend before the first request needs them."""
    try:
        service.pipeline()
    except FinSyncError as exc:
        log.warning("the backend is not ready (%s); each request tries again", headline(exc))


def serve(settings: Settings, address: str, port: int) -> None:
    """Run the API until stopped; HTTPS when a certificate and key are configured."""
    import uvicorn

    for name in ("uvicorn.error", "uvicorn.access"):  # through the root's masking handlers
        logging.getLogger(name).setLevel(logging.INFO)
    uvicorn.run(
        create_app(settings),
        host=address,
        port=port,
        ssl_certfile=settings.api_tls_cert,
        ssl_keyfile=settings.api_tls_key,
        log_config=None,
        timeout_graceful_shutdown=5,
    )
