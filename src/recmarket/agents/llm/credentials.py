"""Credentials written into a base URL, kept out of everything recmarket writes.

A key belongs in the variable ``api_key_env`` names, but gateways and self-hosted servers
are often reached with one in the URL itself: ``http://user:KEY@host/v1`` or
``https://host/v1?api-key=KEY``. The settings hold the base URL, and the base URL goes into
the run's manifest, every call's key and row in the call store, and the lines a failure
prints; a key inside it would land in all of them. So the settings keep the URL without
its credentials (``strip``), and this process keeps them, by that URL, for the one place
that sends requests (``sending``): the user part goes back into the URL the HTTP client
reaches (as basic authentication, as it was written), and the query parameters go with
every request, as the provider expects them. They are held in memory only: a resumed run is
given the URL again, as it is given the key's variable again. ``redact`` masks any held
secret in a text, for a message that quotes what a server or library said.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# A query parameter whose name says it carries a secret: api-key, key, token, access_token,
# sig, password, auth, ... (matched anywhere in the name, case aside).
SECRET_PARAMETER = re.compile(r"key|token|secret|pass|auth|sig|cred", re.IGNORECASE)
MASK = "***"


@dataclass(frozen=True)
class Credentials:
    """What a base URL carried besides the endpoint: its user part and secret parameters."""

    userinfo: str = ""  # "user:password" as written in the URL, or ""
    query: tuple[tuple[str, str], ...] = ()

    def secrets(self) -> list[str]:
        """The values that must never be written: the password (or a lone user part, which
        some gateways take as the key) and every secret parameter's value."""
        user, _, password = self.userinfo.partition(":")
        found = [password or user] if self.userinfo else []
        return [v for v in (*found, *(value for _, value in self.query)) if v]


_held: dict[str, Credentials] = {}
_guard = threading.Lock()


def strip(url: str) -> str:
    """``url`` without its user part and secret query parameters, which this process keeps
    (by the stripped URL) for ``sending``; a URL with none is returned as it is."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    secret = tuple((k, v) for k, v in pairs if SECRET_PARAMETER.search(k))
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    if not secret and not userinfo:
        return url
    host = parts.netloc.rpartition("@")[2]
    kept = urlencode([(k, v) for k, v in pairs if not SECRET_PARAMETER.search(k)])
    clean = urlunsplit((parts.scheme, host, parts.path, kept, parts.fragment))
    with _guard:
        _held[clean] = Credentials(userinfo, secret)
    return clean


def sending(url: str) -> tuple[str, dict[str, str]]:
    """The URL the HTTP client reaches for the stripped ``url`` (its user part restored,
    no query) and the query parameters every request carries: the URL's own and its
    secret ones (the SDK joins a request's path onto the base URL, so a query left in it
    would swallow the path)."""
    with _guard:
        held = _held.get(url, Credentials())
    parts = urlsplit(url)
    netloc = f"{held.userinfo}@{parts.netloc}" if held.userinfo else parts.netloc
    query = dict(parse_qsl(parts.query, keep_blank_values=True)) | dict(held.query)
    return urlunsplit(parts._replace(netloc=netloc, query="")), query


def redact(text: str) -> str:
    """``text`` with every secret this process holds masked."""
    with _guard:
        secrets = [s for held in _held.values() for s in held.secrets()]
    for secret in sorted(set(secrets), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
