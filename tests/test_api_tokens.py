"""API tokens: made for one checked user id, shown once, kept only as a hash, refused once
revoked or altered; ``finsync token create|list|revoke`` end to end."""

from __future__ import annotations

import hashlib
import re
import stat
from pathlib import Path

import pytest

from api.tokens import TokenStore
from elastic.user_ids import InvalidUserId
from tests.api_server import store_env
from tests.test_cli import finsync


def test_a_token_acts_for_its_user_and_only_its_hash_is_kept(tmp_path: Path):
    store = TokenStore(tmp_path / "tokens.sqlite3")
    info, token = store.create("ana@example.com", "spreadsheet")
    other_info, other = store.create("bo")

    assert re.fullmatch(r"fsk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}", token)
    assert store.user_of(token) == "ana@example.com" and store.user_of(other) == "bo"
    kept = store.path.read_bytes()
    secret = token.rsplit("_", 1)[1]
    assert secret.encode() not in kept and token.encode() not in kept
    assert hashlib.sha256(token.encode()).hexdigest().encode() in kept
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [(t.token_id, t.user_id, t.name) for t in store.tokens()] == [
        (info.token_id, "ana@example.com", "spreadsheet"),
        (other_info.token_id, "bo", ""),
    ]
    assert [t.user_id for t in store.tokens("bo")] == ["bo"]


@pytest.mark.parametrize(
    "forged",
    [
        "altered secret",
        "another token's id",
        "no prefix",
        "empty",
        "padded",
    ],
)
def test_anything_but_the_token_itself_is_refused(tmp_path: Path, forged: str):
    store = TokenStore(tmp_path / "tokens.sqlite3")
    _, token = store.create("ana")
    other_info, _ = store.create("bo")
    prefix, token_id, secret = token.split("_", 2)
    attempt = {
        "altered secret": f"{prefix}_{token_id}_{secret[:-1]}{'A' if secret[-1] != 'A' else 'B'}",
        "another token's id": f"{prefix}_{other_info.token_id}_{secret}",
        "no prefix": f"{token_id}_{secret}",
        "empty": "",
        "padded": f" {token}",
    }[forged]
    assert store.user_of(attempt) is None


def test_a_revoked_token_is_refused_and_others_stay(tmp_path: Path):
    store = TokenStore(tmp_path / "tokens.sqlite3")
    info, token = store.create("ana")
    _, kept = store.create("ana")
    assert store.revoke(token) == info  # revoked by the token itself, or by its id
    assert store.user_of(token) is None and store.user_of(kept) == "ana"
    assert store.revoke(info.token_id) is None


@pytest.mark.parametrize("user", ["", " ana", "..", "a/b", "ana\u202e"])
def test_a_token_is_made_only_for_a_usable_user_id(tmp_path: Path, user: str):
    with pytest.raises(InvalidUserId):
        TokenStore(tmp_path / "tokens.sqlite3").create(user)


def test_the_token_commands(tmp_path: Path):
    env = store_env(tmp_path / "data")
    made = finsync("token", "create", "--user", "ana", "--name", "bot", env=env, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    token = made.stdout.splitlines()[-1]
    store = TokenStore(tmp_path / "data" / "api-tokens.sqlite3")
    assert store.user_of(token) == "ana"
    token_id = store.tokens()[0].token_id
    assert f"token {token_id} for ana (bot)" in made.stdout

    listed = finsync("token", "list", env=env, cwd=tmp_path)
    assert listed.returncode == 0 and token_id in listed.stdout and "ana" in listed.stdout
    assert token.split("_")[-1] not in listed.stdout

    assert finsync("token", "create", "--user", "../x", env=env, cwd=tmp_path).returncode == 2
    revoked = finsync("token", "revoke", token_id, env=env, cwd=tmp_path)
    assert revoked.returncode == 0 and f"revoked token {token_id} of ana" in revoked.stdout
    assert store.user_of(token) is None
    again = finsync("token", "revoke", token_id, env=env, cwd=tmp_path)
    assert again.returncode == 1 and f"no token {token_id}" in again.stderr
    assert finsync("token", "list", env=env, cwd=tmp_path).stdout.strip() == "no tokens"


def test_finsync_mcp_refuses_an_unknown_token_in_one_line(tmp_path: Path):
    env = store_env(tmp_path / "data", FINSYNC_API_TOKEN="fsk_0123456789ab_" + "A" * 43)
    refused = finsync("mcp", env=env, cwd=tmp_path)
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        "error: the API token is unknown or revoked (see finsync token list)"
    )
    assert finsync("mcp", env=store_env(tmp_path / "data"), cwd=tmp_path).returncode == 2
