"""The one serialization content ids, digests and catalogue lines are computed over, and the
SHA-256 of a text (C2): the hashes every record and cache key is made with."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """The one serialization that content ids, digests and catalogue lines are computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_id(value: Any) -> str:
    """SHA-256 hex of `canonical_json(value)` in UTF-8: the one way a content id, digest or cache
    key is made from structured data (never from `str()` of an object)."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def text_sha256(text: str | bytes) -> str:
    """SHA-256 of the text's UTF-8 bytes (a str, or those bytes): what citations are checked on."""
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()
