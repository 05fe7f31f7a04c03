"""Sign-in: OpenID Connect when `.streamlit/secrets.toml` has `[auth]`, else one local user."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAuthError, StreamlitSecretNotFoundError

from elastic.user_ids import checked_user_id
from settings import Settings


def oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except (FileNotFoundError, StreamlitSecretNotFoundError):
        return False


def signed_in() -> bool:
    return not oidc_configured() or bool(st.user.get("is_logged_in", False))


def current_user_id(settings: Settings) -> str:
    """The owner every query is filtered by: the signed-in identity, or the configured user;
    ``InvalidUserId`` when that is not a usable id (``elastic.user_ids``)."""
    if not oidc_configured():
        return checked_user_id(settings.user)
    identity = st.user.get("email") or st.user.get("sub")
    if not identity:
        raise StreamlitAuthError("the identity provider returned neither an email nor a subject")
    return checked_user_id(str(identity))


def sign_in_page() -> None:
    """What a visitor sees before signing in: nothing of anyone's data."""
    st.title("FinSync Chat")
    st.markdown(
        "Ask questions about your bank statements and transactions and get exact answers, "
        "with every number traced back to its source."
    )
    if st.button("Sign in", type="primary", icon=":material/login:"):
        try:
            st.login()
        except StreamlitAuthError as exc:
            st.error(f"Sign-in is not available: {exc}")


def account_menu() -> None:
    """Who is signed in and the way out, or that the app runs for one local user."""
    if not oidc_configured():
        st.sidebar.caption(
            "Single-user mode: no sign-in is configured, so the app serves this machine only."
        )
        return
    name = st.user.get("name") or st.user.get("email") or "Signed in"
    st.sidebar.caption(f"Signed in as **{name}**")
    st.sidebar.button("Sign out", icon=":material/logout:", on_click=st.logout)
