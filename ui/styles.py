"""The few CSS rules the theme in ``.streamlit/config.toml`` cannot express."""

from __future__ import annotations

import streamlit as st

_CSS = """
<style>
.fs-cite {
    display: inline-block;
    min-width: 1.35em;
    padding: 0 0.35em;
    margin: 0 0.1em;
    border-radius: 0.6em;
    background: var(--st-primary-color, #1D4ED8);
    color: #fff;
    font-size: 0.72em;
    font-weight: 600;
    line-height: 1.5;
    text-align: center;
    vertical-align: super;
    cursor: pointer;
    user-select: none;
}
.fs-cite:hover, .fs-cite:focus-visible {
    filter: brightness(1.2);
    outline: 2px solid var(--st-primary-color, #1D4ED8);
    outline-offset: 1px;
}
.fs-page-text {
    white-space: pre-wrap;
    font-family: "Source Code Pro", ui-monospace, monospace;
    font-size: 0.8rem;
    line-height: 1.45;
}
.fs-page-text mark {
    background: #FDE68A;
    padding: 0.1em 0;
    border-radius: 0.2em;
}
.fs-cited-passage {
    border-left: 4px solid #F59E0B;
    background: #FFFBEB;
    padding: 0.5rem 0.8rem;
    border-radius: 0.3rem;
    font-size: 0.95rem;
}
.st-key-citation-click-catcher { display: none; }
</style>
"""


def apply_styles() -> None:
    st.html(_CSS)
