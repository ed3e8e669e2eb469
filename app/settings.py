"""How this dashboard is shared: one user on loopback (the default), or a shared server in public mode.

DISH_ATLAS_PUBLIC=1: a deployment that people other than its owner open (docs/deployment.md). No page writes a file: the
review page labels only for a signed-in user (Streamlit's OpenID Connect login, `st.login`), under that account's
name, and only when the store is writable; the live probe is off, and the probes it answers are not recorded.
DISH_ATLAS_PUBLIC_PROBE=1 turns the probe on there, limited per client (the signed-in account, else the client's
address), not per browser session, which a reload renews.
"""

from __future__ import annotations

import os
import uuid

import streamlit as st

PUBLIC_ENV = "DISH_ATLAS_PUBLIC"
PUBLIC_PROBE_ENV = "DISH_ATLAS_PUBLIC_PROBE"
_TRUE = {"1", "true", "yes", "on"}
# What the two pages that could write say in public mode.
LABELS_OFF = "This dashboard is shared: labelling is off for visitors not signed in. The labels are shown below."
PROBE_OFF = (
    "The live probe is off on this shared dashboard. Its operator turns it on with `DISH_ATLAS_PUBLIC_PROBE=1` "
    "(each client may then ask a few questions a minute; see docs/deployment.md)."
)
_SESSION_KEY = "_client_session"


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _TRUE


def public() -> bool:
    """Whether this dashboard is shared (DISH_ATLAS_PUBLIC): then no page writes."""
    return _flag(PUBLIC_ENV)


def probe_enabled() -> bool:
    """The live probe runs everywhere except in public mode, where DISH_ATLAS_PUBLIC_PROBE turns it on."""
    return not public() or _flag(PUBLIC_PROBE_ENV)


def login_configured() -> bool:
    """Whether secrets.toml has an [auth] section, without which `st.login` cannot sign anyone in."""
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file at all (Streamlit raises its own error types)
        return False


def signed_in_user() -> str | None:
    """The signed-in account (its e-mail, else its subject id), or None: nobody signed in, or no login configured."""
    try:
        if not st.user.is_logged_in:
            return None
        return str(st.user.get("email") or st.user.get("sub") or "") or None
    except Exception:  # st.user outside a script run, or without [auth]
        return None


ANONYMOUS = "visitor"  # public mode, no account and no address known: every such visitor shares one allowance


def client() -> str:
    """Who asks, for per-client limits: in public mode the signed-in account, else the client's address (a reload
    or a new browser session is the same client), else one key shared by every unknown visitor (a limit that a new
    session could reset would be none); on a private dashboard, this browser session."""
    if not public():
        return st.session_state.setdefault(_SESSION_KEY, uuid.uuid4().hex)
    user = signed_in_user()
    if user:
        return f"user:{user}"
    try:
        address = st.context.ip_address
    except Exception:  # outside a script run
        address = None
    return f"address:{address}" if isinstance(address, str) and address else ANONYMOUS
