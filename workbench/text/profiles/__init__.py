"""Numbering profiles (C15): how a jurisdiction writes its labels, as small TOML files read
strictly, the same bytes giving the same compiled profile, cached by its bytes. It reads profile
files and nothing else; segmentation and the structure parser read through it. The format and
precedence: docs/profiles.md."""

from __future__ import annotations

import functools
import hashlib
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from workbench.bounds import check_toml_nesting
from workbench.errors import ProfileError
from workbench.models import content_id
from workbench.text.patterns import ProfilePattern, compile_profile_pattern

SHIPPED_DIR = Path(__file__).resolve().parent
GENERIC = "generic"
NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
APPLIES_TO = re.compile(r"[a-z0-9][a-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._@-]*)?")

Sequence_ = Literal["numeric", "alpha", "roman", "doubled", "none"]
Title = Literal["required", "optional", "forbidden", "heading"]

_TOP_KEYS = {
    "name": str,
    "description": str,
    "applies_to": list,
    "preamble": str,
    "front_matter": bool,
    "markdown_headings": bool,
    "inline_markup": bool,
    "gutter": bool,
    "furniture": list,
    "noise": list,
    "levels": list,
}
_LEVEL_KEYS = {
    "name": str,
    "pattern": str,
    "words": list,
    "rank": int,
    "dotted": bool,
    "sequence": str,
    "title": str,
    "heading": bool,
    "indent_max": int,
    "only_in_headings": bool,
    "counts": str,
    "dash": bool,
}
_REQUIRED_TOP = ("name", "description", "levels")
_REQUIRED_LEVEL = ("name", "pattern")


@dataclass(frozen=True, slots=True, kw_only=True)
class Level:
    """One level of a profile's numbering, compiled.

    `regex` matches a label at the start of a line's content (after its indentation and any gutter
    number): the declared words (if any), white space, then the declared pattern, whose named group
    `number` is the label as a path element. A label must be followed by white space (a space, a
    tab, the ideographic space) or the end of the line, so `12abc` is no label; with `dash = true` a dash may follow it directly too
    (`ARTICULO 18.—`, `Art. 5-La`). `rank` orders levels from the outermost (0); a dotted level's
    depth grows with its number's parts (`6.1.2` is deeper than `6.1`).
    """

    name: str
    regex: ProfilePattern
    rank: int
    dotted: bool
    sequence: Sequence_
    title: Title
    heading: bool
    indent_max: int | None
    only_in_headings: bool
    words: tuple[str, ...] = ()  # the declared words a label may open with ("§", "Article")
    through: bool = False  # `counts = "through"`: numbered on across its parents, checked so


# eq=False: a profile is hashed and compared by identity. `parse_profile` returns one object per
# (bytes, origin), so identity is equality, and readings can be cached per profile cheaply.
@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Profile:
    """A compiled numbering profile and the file it came from (name, origin, bytes' SHA-256)."""

    name: str
    description: str
    applies_to: tuple[str, ...]
    preamble: Literal["front_matter", "body"]
    front_matter: bool
    markdown_headings: bool
    gutter: bool
    furniture: tuple[ProfilePattern, ...]
    levels: tuple[Level, ...]
    sha256: str
    origin: str  # "shipped" or the path of the researcher's file
    source: bytes  # the file's bytes, so a worker can compile the very same profile
    # Look-alikes (footnote numbers): a line whose content opens with one is never a label.
    noise: tuple[ProfilePattern, ...] = ()
    # Labels are read through inline markup: emphasis and tags left out (`markup.inline_view`).
    inline_markup: bool = False

    def as_json(self) -> dict[str, Any]:
        """What a measurement records of the profile it used."""
        return {"name": self.name, "sha256": self.sha256, "origin": self.origin}


# What follows a label: a space, a tab, the ideographic space (U+3000) of CJK texts, or the line's
# end; with `dash = true`, a dash set right after the label too.
LABEL_END = r"(?=[ \t\u3000]|$)"
LABEL_END_DASH = r"(?=[ \t\u3000]|$|[—–-])"


def _fail(origin: str, key: str, expected: str) -> ProfileError:
    return ProfileError(f"{origin}: {key}: {expected}")


def _typed(table: Mapping[str, Any], allowed: Mapping[str, type], origin: str, where: str) -> None:
    for key, value in table.items():
        name = f"{where}{key}"
        if key not in allowed:
            raise _fail(origin, name, f"unknown key; expected one of {', '.join(sorted(allowed))}")
        kind = allowed[key]
        # bool is an int in Python; a rank of `true` is still a type error.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise _fail(origin, name, f"expected a {kind.__name__}, got {type(value).__name__}")


def _strings(values: list[Any], origin: str, key: str) -> tuple[str, ...]:
    for value in values:
        if not isinstance(value, str) or not value:
            raise _fail(origin, key, f"expected a list of non-empty strings, got {value!r}")
    return tuple(values)


def _choice(value: str, allowed: tuple[str, ...], origin: str, key: str) -> str:
    if value not in allowed:
        raise _fail(origin, key, f"expected one of {', '.join(allowed)}, got {value!r}")
    return value


def _level(table: Any, index: int, origin: str) -> Level:
    where = f"levels[{index}]."
    if not isinstance(table, dict):
        raise _fail(origin, f"levels[{index}]", "expected a table ([[levels]])")
    _typed(table, _LEVEL_KEYS, origin, where)
    for key in _REQUIRED_LEVEL:
        if key not in table:
            raise _fail(origin, where + key, "missing")
    pattern = compile_profile_pattern(table["pattern"], origin, where + "pattern")
    if "number" not in pattern.groupindex:
        raise _fail(origin, where + "pattern", "expected a named group (?P<number>...)")
    if pattern.match(""):
        raise _fail(origin, where + "pattern", "matches the empty string; a label needs text")
    words = _strings(table.get("words", []), origin, where + "words")
    prefix = "(?:" + "|".join(re.escape(w) for w in words) + r")[ \t]*" if words else ""
    end = LABEL_END_DASH if table.get("dash", False) else LABEL_END
    regex = compile_profile_pattern(
        rf"(?P<label>{prefix}(?:{table['pattern']})){end}", origin, where + "pattern"
    )
    indent = table.get("indent_max")
    if indent is not None and indent < 0:
        raise _fail(origin, where + "indent_max", f"expected 0 or more, got {indent}")
    rank = table.get("rank", index)
    if rank < 0:
        raise _fail(origin, where + "rank", f"expected 0 or more, got {rank}")
    return Level(
        name=table["name"],
        regex=regex,
        rank=rank,
        dotted=table.get("dotted", False),
        sequence=_choice(  # type: ignore[arg-type]
            table.get("sequence", "numeric"),
            ("numeric", "alpha", "roman", "doubled", "none"),
            origin,
            where + "sequence",
        ),
        title=_choice(  # type: ignore[arg-type]
            table.get("title", "optional"),
            ("required", "optional", "forbidden", "heading"),
            origin,
            where + "title",
        ),
        heading=table.get("heading", False),
        indent_max=indent,
        only_in_headings=table.get("only_in_headings", False),
        words=tuple(words),
        through=_choice(
            table.get("counts", "within"), ("within", "through"), origin, where + "counts"
        )
        == "through",
    )


@functools.lru_cache(maxsize=256)
def parse_profile(source: bytes, origin: str) -> Profile:
    """Compile a profile from its file's bytes; `origin` names the file in every error.

    Cached by (bytes, origin): trying the same profile on many families compiles it once.
    """
    try:
        text = source.decode("utf-8")
        check_toml_nesting(text, lambda why: ProfileError(f"{origin}: {why}"))
        data = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{origin}: not UTF-8 at byte {exc.start}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{origin}: not TOML: {exc}") from exc
    _typed(data, _TOP_KEYS, origin, "")
    for key in _REQUIRED_TOP:
        if key not in data:
            raise _fail(origin, key, "missing")
    if not NAME.fullmatch(data["name"]):
        raise _fail(
            origin, "name", f"expected lower-case letters, digits and -, got {data['name']!r}"
        )
    applies_to = _strings(data.get("applies_to", []), origin, "applies_to")
    for entry in applies_to:
        if not APPLIES_TO.fullmatch(entry):
            raise _fail(
                origin, "applies_to", f"expected JURISDICTION or JURISDICTION/FAMILY, got {entry!r}"
            )
    furniture = tuple(
        compile_profile_pattern(p, origin, f"furniture[{i}]")
        for i, p in enumerate(_strings(data.get("furniture", []), origin, "furniture"))
    )
    noise = tuple(
        compile_profile_pattern(p, origin, f"noise[{i}]")
        for i, p in enumerate(_strings(data.get("noise", []), origin, "noise"))
    )
    if not data["levels"]:
        raise _fail(origin, "levels", "expected at least one level")
    return Profile(
        name=data["name"],
        description=data["description"],
        applies_to=applies_to,
        preamble=_choice(  # type: ignore[arg-type]
            data.get("preamble", "body"), ("front_matter", "body"), origin, "preamble"
        ),
        front_matter=data.get("front_matter", False),
        markdown_headings=data.get("markdown_headings", False),
        gutter=data.get("gutter", False),
        furniture=furniture,
        noise=noise,
        inline_markup=data.get("inline_markup", False),
        levels=tuple(_level(t, i, origin) for i, t in enumerate(data["levels"])),
        sha256=hashlib.sha256(source).hexdigest(),
        origin=origin,
        source=source,
    )


def load_profile(path: Path) -> Profile:
    """Read and compile one profile file; a file that cannot be read is a `ProfileError`."""
    try:
        source = path.read_bytes()
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read it: {exc.strerror}") from exc
    return parse_profile(source, str(path))


def read_profile_dir(folder: Path) -> tuple[Profile, ...]:
    """Every `*.toml` in `folder` (not its subfolders), sorted by file name; two with one name fail."""
    if not folder.is_dir():
        raise ProfileError(f"{folder}: not a folder of profiles")
    profiles = tuple(load_profile(p) for p in sorted(folder.glob("*.toml")))
    seen: dict[str, str] = {}
    for profile in profiles:
        if profile.name in seen:
            raise ProfileError(
                f"{profile.origin}: name: {profile.name!r} is also the name of {seen[profile.name]}"
            )
        seen[profile.name] = profile.origin
    return profiles


@functools.cache
def shipped_profiles() -> tuple[Profile, ...]:
    """The profiles shipped with the workbench, sorted by file name, origin "shipped:<file>"."""
    return tuple(
        parse_profile(p.read_bytes(), f"shipped:{p.name}")
        for p in sorted(SHIPPED_DIR.glob("*.toml"))
    )


def generic_profile() -> Profile:
    """The shipped `generic` profile: what reads a text no other profile names."""
    return next(p for p in shipped_profiles() if p.name == GENERIC)


def registry(own: Iterable[Profile] = ()) -> tuple[Profile, ...]:
    """The researcher's profiles first (in the order given), then the shipped ones.

    A shipped profile with the same name as one of the researcher's is left out: theirs replaces it.
    """
    own = tuple(own)
    names = {p.name for p in own}
    return own + tuple(p for p in shipped_profiles() if p.name not in names)


def registry_digest(profiles: Iterable[Profile]) -> str:
    """The content id of a registry: each profile's name and SHA-256, in the registry's order
    (the order decides which profile reads a family, so a reordering is another registry). What
    the stored review queue and the search index record of the profiles they were made with."""
    return content_id([[p.name, p.sha256] for p in profiles])


def registry_from_sources(sources: Sequence[tuple[str, bytes]]) -> tuple[Profile, ...]:
    """A registry rebuilt from (origin, bytes) pairs, as a worker receives it (`engine.py`)."""
    return tuple(parse_profile(source, origin) for origin, source in sources)


def named_profile(profiles: Sequence[Profile], jurisdiction: str, family: str) -> Profile | None:
    """The profile that names this family, or None.

    Rule: the first profile (in registry order, so the researcher's before the shipped ones) whose
    `applies_to` holds `jurisdiction/family`; else the first that holds `jurisdiction`.
    """
    for wanted in (f"{jurisdiction}/{family}", jurisdiction):
        for profile in profiles:
            if wanted in profile.applies_to:
                return profile
    return None


def candidate_profiles(
    profiles: Sequence[Profile], jurisdiction: str, family: str
) -> tuple[Profile, ...]:
    """The profiles `choice.choose_profile` may pick for a family: the one naming it, else all of them.

    The family's reading depends on these and no others (besides the profile induced from the
    family's own texts, which depends on nothing else), so they are what a worker is sent
    (`engine.py`) and what a cached measurement is keyed on (`measure/cache.py`).
    """
    named = named_profile(profiles, jurisdiction, family)
    return (named,) if named is not None else tuple(profiles)


def profile_for(jurisdiction: str | None, family: str | None) -> Profile:
    """The shipped profile naming this jurisdiction and family, else `generic` (no choice is tried)."""
    if jurisdiction:
        named = named_profile(shipped_profiles(), jurisdiction, family or "")
        if named is not None:
            return named
    return generic_profile()
