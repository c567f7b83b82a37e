"""A provenance record held as its text: what a catalogue row keeps of it (`models.CatalogueRow`).

A catalogue row lives from admission (or the catalogue's reading) to the end of the reduce, one
per version of the corpus. Held as the dictionary of strings `json.loads` makes, the provenance
was the measuring client's largest holding that grew with the corpus (a copy of every key per
row); held as one compact JSON text per row (`ProvenanceText`) with the few fields read for every
row beside it (`row_fields`), it costs about a third of that, and the record is parsed only where
a field other than those is read.

The text itself is held deflated (zlib) against a dictionary shared by the process: the first
record's text. A corpus's records share their field names and most of their values (issuer,
repository, notes), so what is left of each is little more than its hashes and dates. The
dictionary is only ever the first text, and each text keeps a reference to the one it was
deflated against, so no two threads can disagree about it; what is pickled, compared and read
is the text, never the deflated bytes.
"""

from __future__ import annotations

import json
import sys
import threading
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

# The fields of a row's provenance read for every row (grouping, ordering, checking bytes), in
# the order `CatalogueRow` reads them from `row_fields`.
ROW_FIELDS = (
    "sha256",
    "bytes",
    "jurisdiction",
    "document_family",
    "version_order",
    "format",
)


class ProvenanceText(Mapping[str, Any]):
    """A provenance record held as its compact JSON text, fields in the record's own order,
    deflated (module docstring), and parsed when read: a catalogue of tens of thousands of rows
    holds a few hundred bytes per row instead of a dictionary of strings. `text` inflates it;
    `record()` parses it once; every lookup parses it again, so a reader of several fields takes
    `record()` first. Equal when the records are equal."""

    __slots__ = ("_deflated", "_dictionary", "canonical")
    _deflated: bytes
    _dictionary: bytes
    canonical: bool  # the text is the record's canonical JSON (`models.canonical_json`)

    def __init__(self, record: Mapping[str, Any] | str, *, canonical: bool = False) -> None:
        if isinstance(record, ProvenanceText):
            self._deflated, self._dictionary = record._deflated, record._dictionary
            self.canonical = record.canonical
            return
        self.canonical = canonical and isinstance(record, str)
        text = (
            record
            if isinstance(record, str)
            else json.dumps(dict(record), ensure_ascii=False, separators=(",", ":"))
        )
        data = text.encode("utf-8")
        self._dictionary = _shared_dictionary(data)
        deflate = zlib.compressobj(1, zdict=self._dictionary)
        self._deflated = deflate.compress(data) + deflate.flush()

    @classmethod
    def from_deflated(
        cls, deflated: bytes, dictionary: bytes, *, canonical: bool
    ) -> ProvenanceText:
        """A text as `deflated_against(dictionary)` gave it (as a store of rows kept it)."""
        made = cls.__new__(cls)
        made._deflated, made._dictionary, made.canonical = deflated, dictionary, canonical
        return made

    @property
    def dictionary(self) -> bytes:
        """The dictionary the text is deflated against."""
        return self._dictionary

    def deflated_against(self, dictionary: bytes) -> bytes:
        """The text deflated against `dictionary`: what `from_deflated` takes back."""
        if dictionary is self._dictionary or dictionary == self._dictionary:
            return self._deflated
        deflate = zlib.compressobj(1, zdict=dictionary)
        return deflate.compress(self.text.encode("utf-8")) + deflate.flush()

    @property
    def text(self) -> str:
        """The record's compact JSON text."""
        inflate = zlib.decompressobj(zdict=self._dictionary)
        return (inflate.decompress(self._deflated) + inflate.flush()).decode("utf-8")

    def record(self) -> dict[str, Any]:
        """The record, parsed: a fresh dictionary, fields in the record's own order."""
        parsed: dict[str, Any] = json.loads(self.text)
        return parsed

    def __getitem__(self, key: str) -> Any:
        return self.record()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.record())

    def __len__(self) -> int:
        return len(self.record())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ProvenanceText):
            text, others = self.text, other.text
            return text == others or json.loads(text) == json.loads(others)
        return isinstance(other, Mapping) and self.record() == dict(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ProvenanceText({self.text!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle, (self.text, self.canonical))


def _unpickle(text: str, canonical: bool) -> ProvenanceText:
    return ProvenanceText(text, canonical=canonical)


_DICTIONARY: list[bytes] = []  # the process's dictionary, once the first text has made it
_DICTIONARY_LOCK = threading.Lock()


def _shared_dictionary(first: bytes) -> bytes:
    """The process's dictionary: `first`, if no text has made one yet."""
    if not _DICTIONARY:
        with _DICTIONARY_LOCK:
            if not _DICTIONARY:
                _DICTIONARY.append(first)
    return _DICTIONARY[0]


def row_fields(provenance: Mapping[str, Any]) -> tuple[Any, ...]:
    """The `ROW_FIELDS` of a record (None for one it lacks), parsed once; the jurisdiction and
    family names interned, so the rows of a family share theirs."""
    record = provenance.record() if isinstance(provenance, ProvenanceText) else provenance
    values = [record.get(name) for name in ROW_FIELDS]
    values[2:4] = [sys.intern(v) if isinstance(v, str) else v for v in values[2:4]]
    values[5] = sys.intern(values[5]) if isinstance(values[5], str) else values[5]
    return tuple(values)
