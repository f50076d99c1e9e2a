"""Which failures are worth retrying, and how long to wait: exponential backoff with jitter, capped."""
from __future__ import annotations

import email.utils
import json
import random
import re
import time
from typing import Any

TRANSIENT_STATUS = {408, 409, 429}
FATAL_STATUS = {400, 401, 403, 404, 422}
_KEYLIKE = re.compile(r"\b(sk|key|tok)-[A-Za-z0-9_\-*.]{4,}", re.IGNORECASE)


class EmptyReply(Exception):
    """A 200 whose body has no `choices`: no answer at all (an overloaded or misbehaving endpoint), not an
    empty one. Retried like a transient failure, and never cached or journaled as an answer."""

    def __init__(self) -> None:
        super().__init__("a 200 reply whose `choices` was empty (the endpoint gave no answer)")


def status_of(error: BaseException) -> int | None:
    return getattr(error, "status_code", None)


def is_transient(error: BaseException) -> bool:
    """Timeouts, connection errors, 408/409/429, 5xx and replies without choices may succeed later; nothing
    else will."""
    import openai

    if isinstance(error, (openai.APITimeoutError, openai.APIConnectionError)):
        return True
    if isinstance(error, (EmptyReply, openai.APIResponseValidationError, json.JSONDecodeError)):
        return True  # a garbled body (a proxy hiccup) may come back whole; retries are capped
    status = status_of(error)
    if status is None:
        return False
    return status in TRANSIENT_STATUS or status >= 500


def backoff(attempt: int, error: BaseException | None, base: float = 0.5, cap: float = 30.0) -> float:
    """Seconds before retry number `attempt` (1-based): Retry-After when the server sends one."""
    after = _retry_after(error)
    if after is not None:
        return min(after, cap * 2)
    return min(cap, base * 2 ** (attempt - 1)) * random.uniform(0.5, 1.5)


def _retry_after(error: BaseException | None) -> float | None:
    response: Any = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):  # neither seconds nor a date ("soon"): our own backoff, not a crash
        return None
    return max(0.0, parsed.timestamp() - time.time())


def scrub(text: str, secret: str | None = None) -> str:
    """Remove an API key, and anything shaped like one, from a message we are about to show or log."""
    if secret and secret != "not-needed":
        text = text.replace(secret, "[redacted]")
    return _KEYLIKE.sub("[redacted]", text)
