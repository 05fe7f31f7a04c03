"""Faults on a page: the one line of ``llm.faults`` (what happened, what to do) in an error
banner. The details go to the log, never to the page."""

from __future__ import annotations

import streamlit as st

from llm.faults import fault_line

__all__ = ["fault_line", "show_fault"]


def show_fault(what: str, exc: BaseException, todo: str) -> None:
    st.error(fault_line(what, exc, todo), icon=":material/error:")
