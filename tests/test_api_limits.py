"""Every request the JSON API refuses gets a 4xx (or a 503 for an outage) with one line and
never a traceback, over loopback against ``finsync api`` with small limits; the API listens
beyond this machine only with TLS or an explicit flag."""

from __future__ import annotations

import datetime
import ipaddress
import re
import ssl
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from api.tokens import TokenStore
from scripts.sample_data import SampleSet
from tests.api_server import ApiServer, start_api, store_env
from tests.app_server import free_port
from tests.reliability import record
from tests.test_cli import finsync

ASK_JSON_FIELDS = ["intent", "answer", "plan", "data", "citations", "timings_ms"]
QUESTION_CHARS = 200
PER_MINUTE = 5


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ApiServer, TokenStore]]:
    """``finsync api`` over an empty embedded store, with small limits."""
    data_dir = tmp_path_factory.mktemp("api-limits") / "data"
    env = store_env(
        data_dir,
        FINSYNC_API_REQUESTS_PER_MINUTE=str(PER_MINUTE),
        FINSYNC_API_MAX_QUESTION_CHARS=str(QUESTION_CHARS),
        FINSYNC_MAX_UPLOAD_MB="1",
        FINSYNC_MAX_UPLOAD_PAGES="2",
    )
    server = start_api(env, data_dir.parent, "api-limits.log")
    try:
        yield server, TokenStore(data_dir / "api-tokens.sqlite3")
    finally:
        server.stop()


def _one_line(response: httpx.Response) -> str:
    """The refusal's message, checked to be one line of JSON and no traceback."""
    assert response.headers["content-type"] == "application/json", response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail
    assert "Traceback" not in response.text and 'File "' not in response.text
    return detail


Request = Callable[[str, dict[str, str]], httpx.Response]


def _post(body: object = None, content: bytes | None = None, **headers: str) -> Request:
    def send(url: str, auth: dict[str, str]) -> httpx.Response:
        extra = {"Content-Type": "application/json"} if content is not None else {}
        return httpx.post(
            f"{url}/query",
            json=body if content is None else None,
            content=content,
            headers=auth | extra | headers,
            timeout=60,
        )

    return send


def _get(path: str) -> Request:
    return lambda url, auth: httpx.get(f"{url}{path}", headers=auth, timeout=60)


def _upload(files: list[tuple[str, bytes]], **form: str) -> Request:
    def send(url: str, auth: dict[str, str]) -> httpx.Response:
        parts = [("files", (name, data, "application/octet-stream")) for name, data in files]
        return httpx.post(f"{url}/ingest", files=parts, data=form, headers=auth, timeout=60)

    return send


def _chunked(size: int) -> Request:
    """A body sent in pieces with no Content-Length, so only its arriving bytes tell its size."""

    def pieces() -> Iterator[bytes]:
        yield b'{"question": "'
        for _ in range(size // 65536):
            yield b"a" * 65536
        yield b'"}'

    def send(url: str, auth: dict[str, str]) -> httpx.Response:
        headers = auth | {"Content-Type": "application/json"}
        return httpx.post(f"{url}/query", content=pieces(), headers=headers, timeout=60)

    return send


ASK = {"question": "How much did I spend last month?"}
NOBODY: dict[str, str] = {}

UNAUTHORISED = {
    "no Authorization header on POST /query": _post(ASK),
    "no token on GET /sources": _get("/sources"),
    "no token on GET /accounts": _get("/accounts"),
    "no token on GET /statements/x/pages/1": _get("/statements/x/pages/1"),
    "no token on GET /ingest/x": _get("/ingest/x"),
    "no token on DELETE /sources/x.csv": lambda url, auth: httpx.delete(f"{url}/sources/x.csv"),
    "no token on POST /ingest": _upload([("a.csv", b"date\n")]),
    "Basic credentials instead of a bearer token": _post(ASK, Authorization="Basic dXNlcjpwdw=="),
    "a token that was never made": _post(ASK, Authorization="Bearer fsk_0123456789ab_" + "A" * 43),
    "a malformed token": _post(ASK, Authorization="Bearer not-a-token"),
}

REFUSED: dict[str, tuple[Request, int, str]] = {
    "malformed JSON": (_post(content=b'{"question": "x"'), 422, "not valid JSON"),
    "a JSON array instead of an object": (_post(content=b"[1, 2]"), 422, "JSON object"),
    "a form body instead of JSON": (
        lambda url, auth: httpx.post(f"{url}/query", data={"question": "x"}, headers=auth),
        422,
        "Content-Type: application/json",
    ),
    "no question": (_post({"as_of": "2025-01-01"}), 422, "question"),
    "an empty question": (_post({"question": "   "}), 422, "empty"),
    "as_of 2025-02-30": (_post({**ASK, "as_of": "2025-02-30"}), 422, "as_of"),
    "as_of 2025-13-01": (_post({**ASK, "as_of": "2025-13-01"}), 422, "as_of"),
    "as_of as a timestamp": (_post({**ASK, "as_of": 1735689600}), 422, "YYYY-MM-DD"),
    "as_of 15/07/2025": (_post({**ASK, "as_of": "15/07/2025"}), 422, "YYYY-MM-DD"),
    "filters.date_to 2024-04-31": (
        _post({**ASK, "filters": {"date_to": "2024-04-31"}}),
        422,
        "filters.date_to",
    ),
    "filters from after to": (
        _post({**ASK, "filters": {"date_from": "2025-02-01", "date_to": "2025-01-01"}}),
        422,
        "date_from is after date_to",
    ),
    "a user field in the body": (_post({**ASK, "user": "someone-else"}), 422, "token"),
    "an unknown conversation": (_post({**ASK, "conversation_id": "nope"}), 404, "nope"),
    "a question one character over the limit": (
        _post({"question": "a" * (QUESTION_CHARS + 1)}),
        413,
        f"at most {QUESTION_CHARS}",
    ),
    "a body of 2 MB": (_post({"question": "a" * 2_000_000}), 413, "request body"),
    "a chunked body of 2 MB": (_chunked(2_000_000), 413, "request body"),
    "a page number that is not a number": (_get("/statements/x/pages/two"), 422, "page"),
    "another user's (or no) statement": (_get("/statements/st-x/pages/1"), 404, "st-x"),
    "an import job that is not the caller's": (_get("/ingest/nope"), 404, "nope"),
    "forgetting a file the caller does not have": (
        lambda url, auth: httpx.delete(f"{url}/sources/not-mine.csv", headers=auth),
        404,
        "not one of your files",
    ),
    "an upload over 1 MB": (_upload([("big.csv", b"x" * 1_500_000)]), 413, "up to 1 MB"),
    "an upload naming no ISO currency": (_upload([("a.csv", b"x")], currency="EURO"), 422, "ISO"),
    "an import with no files": (
        lambda url, auth: httpx.post(f"{url}/ingest", data={"bank": "x"}, headers=auth),
        422,
        "files",
    ),
}


@pytest.mark.reliability
@pytest.mark.parametrize("case", list(UNAUTHORISED))
def test_no_known_token_is_a_401(limited: tuple[ApiServer, TokenStore], case: str):
    server, _ = limited
    response = UNAUTHORISED[case](server.url, NOBODY)
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"] == "Bearer"
    detail = _one_line(response)
    record("API", case, f"401: {detail}", tracebacks_shown=0)


@pytest.mark.reliability
def test_a_revoked_token_is_a_401(limited: tuple[ApiServer, TokenStore]):
    server, tokens = limited
    info, token = tokens.create("revoked-user")
    auth = {"Authorization": f"Bearer {token}"}
    assert _get("/sources")(server.url, auth).status_code == 200
    assert tokens.revoke(info.token_id) is not None
    response = _get("/sources")(server.url, auth)
    assert response.status_code == 401 and "revoked" in _one_line(response)
    record("API", "a revoked token", "401 on its next request", tracebacks_shown=0)


@pytest.mark.reliability
@pytest.mark.parametrize("case", list(REFUSED))
def test_a_bad_request_gets_its_4xx_in_one_line(limited: tuple[ApiServer, TokenStore], case: str):
    server, tokens = limited
    send, status, says = REFUSED[case]
    auth = {"Authorization": f"Bearer {tokens.create('limits-user')[1]}"}
    response = send(server.url, auth)
    assert response.status_code == status, response.text
    detail = _one_line(response)
    assert says in detail
    record("API", case, f"{status}: {detail}", tracebacks_shown=0)


@pytest.mark.reliability
def test_a_pdf_over_the_page_limit_is_a_413(
    limited: tuple[ApiServer, TokenStore], sample_set: SampleSet
):
    server, tokens = limited
    auth = {"Authorization": f"Bearer {tokens.create('limits-user')[1]}"}
    pdf = next(p for p in sample_set.statement_pdfs if p.stat().st_size)
    response = _upload([(pdf.name, pdf.read_bytes())])(server.url, auth)
    assert response.status_code == 413
    assert "PDFs of up to 2 pages" in _one_line(response)
    record("API", "a statement PDF over the page limit", "413 before anything is read")


@pytest.mark.reliability
def test_too_many_requests_with_one_token_are_a_429_and_others_go_on(
    limited: tuple[ApiServer, TokenStore],
):
    server, tokens = limited
    busy = {"Authorization": f"Bearer {tokens.create('busy-user')[1]}"}
    calm = {"Authorization": f"Bearer {tokens.create('busy-user')[1]}"}
    statuses = [_get("/sources")(server.url, busy).status_code for _ in range(PER_MINUTE)]
    refused = _get("/sources")(server.url, busy)
    assert statuses == [200] * PER_MINUTE
    assert refused.status_code == 429 and f"more than {PER_MINUTE}" in _one_line(refused)
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert _get("/sources")(server.url, calm).status_code == 200  # the limit is per token
    record("API", f"request {PER_MINUTE + 1} within a minute", "429 with Retry-After")


def test_the_interface_is_described_and_health_needs_no_token(
    limited: tuple[ApiServer, TokenStore],
):
    server, _ = limited
    spec = httpx.get(f"{server.url}/openapi.json").json()
    routes = {"/query", "/ingest", "/ingest/{job}", "/sources", "/sources/{file}", "/health"}
    assert routes | {"/statements/{statement_id}/pages/{page}"} <= set(spec["paths"])
    answer = spec["components"]["schemas"]["Answer"]["properties"]
    assert list(answer) == [*ASK_JSON_FIELDS, "conversation_id"]
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert "swagger" in httpx.get(f"{server.url}/docs").text.lower()
    assert httpx.get(f"{server.url}/health").json() == {"status": "ok", "backend": "embedded"}


@pytest.mark.reliability
def test_a_backend_outage_is_a_503_with_the_line_the_cli_prints(tmp_path: Path):
    data_dir = tmp_path / "data"
    nowhere = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    env = store_env(data_dir, FINSYNC_ES_URL=nowhere)
    _, token = TokenStore(data_dir / "api-tokens.sqlite3").create("someone")
    cli = finsync("ask", "How much did I spend?", "--user", "someone", env=env, cwd=tmp_path)
    server = start_api(env, tmp_path, "api-outage.log")
    try:
        health = httpx.get(f"{server.url}/health")
        asked = _post(ASK)(server.url, {"Authorization": f"Bearer {token}"})
    finally:
        server.stop()
    assert cli.returncode == 1 and cli.stderr.startswith("error: ")
    assert health.status_code == asked.status_code == 503
    assert _one_line(asked) == _one_line(health) == cli.stderr.strip().removeprefix("error: ")
    assert "not answering" in asked.json()["detail"]
    record("API", "Elasticsearch down", "503 with the CLI's line", tracebacks_shown=0)


def _self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, written as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def _said(stderr: str) -> str:
    """A usage error's words, without the box and line breaks the terminal layout adds."""
    return " ".join(re.sub("[│╭╮╰╯─]", " ", stderr).split())


def test_beyond_loopback_the_api_needs_tls_or_an_explicit_flag(tmp_path: Path):
    data_dir = tmp_path / "data"
    env = store_env(data_dir)
    everywhere = ("api", "--address", "0.0.0.0")
    plain = finsync(*everywhere, env=env, cwd=tmp_path)
    assert plain.returncode == 2 and "only with TLS, or with --without-tls" in _said(plain.stderr)
    cert, key = _self_signed(tmp_path)
    half = finsync(*everywhere, env=env | {"FINSYNC_API_TLS_CERT": str(cert)}, cwd=tmp_path)
    assert half.returncode == 2 and "FINSYNC_API_TLS_KEY" in _said(half.stderr)
    tls = env | {"FINSYNC_API_TLS_CERT": str(cert), "FINSYNC_API_TLS_KEY": str(key)}
    no_key = tls | {"FINSYNC_API_TLS_KEY": str(tmp_path / "no.pem")}
    missing = finsync(*everywhere, env=no_key, cwd=tmp_path)
    assert missing.returncode == 2 and "no such file" in _said(missing.stderr)

    trusted = ssl.create_default_context(cafile=str(cert))
    server = start_api(
        tls, tmp_path, "api-tls.log", *everywhere[1:], scheme="https", verify=trusted
    )
    try:
        health = httpx.get(f"{server.url}/health", verify=trusted)
        with pytest.raises(httpx.TransportError):
            httpx.get(server.url.replace("https", "http") + "/health")
    finally:
        server.stop()
    assert health.status_code == 200
