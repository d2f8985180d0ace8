"""The HTTP client under each endpoint: a pool no larger than the calls in flight, and a
ceiling on how many bytes a reply may bring.

Without the ceiling one misbehaving endpoint (50 MB per reply) fills memory and both call
stores before any validation could look at the answer. The ceiling counts the bytes as
they arrive, so a reply is abandoned at the limit rather than after it has been read.
``Accept-Encoding: identity`` asks the endpoint not to compress, so the bytes counted
are the bytes the answer is made of.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from typing import Any

import openai


class ReplyTooLarge(openai.OpenAIError):
    """A reply body passed the configured size; treated like any malformed reply.

    An OpenAIError, so the SDK passes it through as raised instead of wrapping it as a
    connection error."""


def _http_library() -> Any:
    """The HTTP library the installed openai SDK is built on (httpx, or httpx2 in newer
    releases): transports and streams must come from the same one as its client."""
    client_base = openai.DefaultAsyncHttpxClient.__mro__[1]
    return importlib.import_module(client_base.__module__.split(".")[0])


http = _http_library()


def _too_large(limit: int) -> ReplyTooLarge:
    return ReplyTooLarge(f"a reply larger than {limit:,} bytes (the max_reply_bytes limit)")


class BoundedStream(http.AsyncByteStream):  # type: ignore[name-defined]
    """A reply body that raises ReplyTooLarge once more than ``limit`` bytes arrived."""

    def __init__(self, inner: Any, limit: int) -> None:
        self.inner, self.limit = inner, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self.inner:
            seen += len(chunk)
            if seen > self.limit:
                raise _too_large(self.limit)
            yield chunk

    async def aclose(self) -> None:
        """Close the wrapped stream."""
        await self.inner.aclose()


class Elsewhere(openai.OpenAIError):
    """A request the endpoint redirected to another host: its answers would be stored and
    reported as the configured endpoint's, so it is not sent."""


class BoundedTransport(http.AsyncBaseTransport):  # type: ignore[name-defined]
    """The library's own transport, with every reply body bounded (a declared length over
    the limit is refused before any of the body is read), sending only to the configured
    endpoint's host: a redirect elsewhere is refused (``Elsewhere``)."""

    def __init__(self, concurrency: int, limit: int, base_url: str | None = None) -> None:
        limits = http.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        self.inner, self.limit = http.AsyncHTTPTransport(limits=limits), limit
        self.home = _host(http.URL(base_url)) if base_url else None

    async def handle_async_request(self, request: Any) -> Any:
        """Send the request; a reply that declares a body over the limit is refused before
        its body is read, and the body read is bounded."""
        if self.home is not None and _host(request.url) != self.home:
            raise Elsewhere(
                f"the endpoint redirected to {request.url.scheme}://{request.url.netloc.decode()}"
                ", another host: refused (give that URL as the base URL if it is meant)"
            )
        response = await self.inner.handle_async_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.limit:
            await response.aclose()
            raise _too_large(self.limit)
        response.stream = BoundedStream(response.stream, self.limit)
        return response

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self.inner.aclose()


def _host(url: Any) -> str:
    """A URL's host: a redirect to the same host on another scheme or port (to https) is
    the endpoint's own."""
    return str(url.host).lower()


def bounded_client(concurrency: int, max_reply_bytes: int, base_url: str | None = None) -> Any:
    """An async HTTP client for the openai SDK: a pool no larger than the calls in flight
    (the pool's bookkeeping grows with its size, and more connections are never used),
    replies that stop at ``max_reply_bytes``, and no request to another host than
    ``base_url``'s."""
    return openai.DefaultAsyncHttpxClient(
        transport=BoundedTransport(concurrency, max_reply_bytes, base_url),
        headers={"Accept-Encoding": "identity"},
    )
