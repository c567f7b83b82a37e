"""The numbering truth of the Legalize bundles: each law's units, labels and nesting paths, read
from the documents' own identifiers, with no help from the workbench (imports nothing from it).

Run: `python scripts/numbering_truth.py [--bundles ../shared/external/numbering] --out FILE`.

Each bundle (`<name>.bundle`, its README says what each holds) is cloned into a temporary folder;
every commit that changes a kept law is one version of it, oldest first. The texts are a mirror's
Markdown renderings of official consolidated law; each jurisdiction prints its identifiers in its
own way, so each has its own reader here (`READERS`): a truth reads the documents as they are, the
workbench's inducer must not. A reader is a list of unit kinds, outermost first, each a pattern
over a heading or bold line with its markup removed (heading `#`s, emphasis `*`, `<sup>` tags),
case aside (a line opening in lower case is none: it continues a wrapped sentence); the
pattern's `key` group is the unit's identifier: its number as printed, with its insertion suffix
(`10a`, `8 bis` -> `8bis`; `1<sup>er</sup>` -> `1`), or a division's numeral or ordinal word as
printed, in lower case. A unit closes every open unit of its kind or a deeper one; its path is the
keys of the units still open above it, then its own. Where identifiers stand (headings and bold
lines, or plain lines too) and whether a line opening with a quotation mark is a unit of the act
or another act's text quoted are the jurisdiction's (`PLAIN_LINES`, `QUOTED_UNITS`).

Written: JSON, {"rule", "jurisdictions": {jurisdiction: {"kinds", "families": {family:
[{"commit", "version_order", "text_sha256", "units": [[char_start, kind, [keys]]]}]}}}}, where
`char_start` is the Python `str` index of the line's first character in the text decoded as UTF-8.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUNDLES = ROOT.parent / "shared" / "external" / "numbering"

_SUFFIX = r"(?:\s*(?:bis|ter|quater|quinquies|[a-z])\b)?"
_ROMAN = r"[IVXLC]+"
# Each jurisdiction's unit kinds, outermost first: (kind, pattern over the stripped line).
READERS: dict[str, tuple[tuple[str, str], ...]] = {
    "ar": (
        ("titulo", rf"T[IÍ]TULO\s+(?P<key>{_ROMAN}|\d+)\b"),
        ("capitulo", rf"CAP[IÍ]TULO\s+(?P<key>{_ROMAN}|\d+)\b"),
        (
            "articulo",
            rf"(?:ART[IÍ]CULO|ART\.)\s*(?P<key>\d+{_SUFFIX})\s*[º°]?\s*(?P<suffix>bis|ter)?",
        ),
    ),
    "cz": (
        ("cast", r"ČÁST\s+(?P<key>[^\s]+)$"),
        ("hlava", rf"HLAVA\s+(?P<key>{_ROMAN})$"),
        ("dil", rf"D[ÍI]L\s+(?P<key>{_ROMAN}|\d+)$"),
        ("oddil", rf"ODD[ÍI]L\s+(?P<key>{_ROMAN}|\d+)$"),
        ("paragraf", r"§\s*(?P<key>\d+[a-z]?)$"),
    ),
    "fi": (
        ("luku", r"(?P<key>\d+\s*[a-z]?)\s+LUKU\b"),
        ("pykala", r"(?P<key>\d+\s*[a-z]?)\s+§"),
    ),
    "lu": (
        ("titre", rf"TITRE\s+(?P<key>{_ROMAN}|\d+){_SUFFIX}"),
        ("chapitre", rf"CHAPITRE\s+(?P<key>{_ROMAN}{_SUFFIX}|\d+{_SUFFIX})\b"),
        ("section", rf"SECTION\s+(?P<key>{_ROMAN}|\d+)\b"),
        ("article", rf"ART\.\s*(?P<key>\d+{_SUFFIX})\s*(?:ER)?\b"),
    ),
}
# Where a jurisdiction's identifiers stand: in headings and bold lines only, or also at a plain
# line's start; and whether a line opening with a quotation mark is a unit of the act. Luxembourg's
# consolidated texts print some articles as plain lines, and mark an article an amendment replaced
# with «...» (still a unit of the consolidated act); the others quote another act's text that way.
PLAIN_LINES = frozenset({"lu"})
QUOTED_UNITS = frozenset({"lu"})
_MARKUP = re.compile(r"<sup>(?:er|re)</sup>|</?[a-z]+>|[*_`]+")
_QUOTED = ("«", '"', "“", "„")


def _stripped(jurisdiction: str, line: str) -> str:
    """A line without its heading `#`s, emphasis and (where `QUOTED_UNITS`) opening quotation
    mark, its spaces single; "" for a plain line where identifiers stand only in headings and
    bold lines, for a quoted one where quotes are another act's text (`PLAIN_LINES`), and for one
    opening in lower case: an identifier's word is capitalised, a line opening in lower case
    continues a sentence (the mirror makes a heading of some wrapped lines)."""
    if jurisdiction not in PLAIN_LINES and not line.startswith(("#", "*")):
        return ""
    text = " ".join(_MARKUP.sub("", line.lstrip("#")).split())
    if text[:1].islower():
        return (
            ""  # a wrapped sentence's next line the mirror made a heading (`##### artículo 22 no`)
        )
    if text.startswith(_QUOTED):
        return text.lstrip("".join(_QUOTED)) if jurisdiction in QUOTED_UNITS else ""
    return text


def _key(match: re.Match[str]) -> str:
    key = match["key"] + (match.groupdict().get("suffix") or "")
    return re.sub(r"\s+", "", key).lower()


def read_units(jurisdiction: str, text: str) -> list[tuple[int, str, list[str]]]:
    """(char_start, kind, path of keys) of every unit of `text`, in text order (module docstring)."""
    kinds = READERS[jurisdiction]
    patterns = [(rank, kind, re.compile(p, re.IGNORECASE)) for rank, (kind, p) in enumerate(kinds)]
    units: list[tuple[int, str, list[str]]] = []
    open_units: list[tuple[int, str]] = []  # (rank, key), outermost first
    offset = 0
    for line in text.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        stripped = _stripped(jurisdiction, line)
        if not stripped:
            continue
        for rank, kind, pattern in patterns:
            match = pattern.match(stripped)
            if match:
                while open_units and open_units[-1][0] >= rank:
                    open_units.pop()
                open_units.append((rank, _key(match)))
                units.append((start, kind, [key for _, key in open_units]))
                break
    return units


def bundle_versions(bundle: Path, into: Path) -> Iterator[tuple[str, int, str, str]]:
    """(law path, version order, commit, text) of every version of every law in `bundle`: each
    commit that changes a law's file, oldest first, numbered from 1.

    Four git processes per bundle, whatever its size: a bare clone, the files at its head, one log
    naming the files each commit changes (the histories are linear: a merge is refused), and one
    `cat-file --batch` reading every version's bytes."""
    clone = into / bundle.stem
    subprocess.run(["git", "clone", "-q", "--bare", str(bundle), str(clone)], check=True)

    def git(*args: str, stdin: bytes | None = None) -> bytes:
        return subprocess.run(
            ["git", "-C", str(clone), *args], check=True, capture_output=True, input=stdin
        ).stdout

    laws = sorted(p for p in git("ls-tree", "-r", "-z", "--name-only", "HEAD").decode("utf-8")
                  .split("\0") if p.endswith(".md"))  # fmt: skip
    changed: dict[str, list[str]] = {path: [] for path in laws}
    log = git(
        "log", "--reverse", "--root", "--no-renames", "-z", "--format=%x01%H %P", "--name-only"
    )
    for entry in log.decode("utf-8").split("\x01")[1:]:
        heads, *names = entry.split("\0")  # `%H %P`, then each file's name after a newline
        commit, *parents = heads.split()
        if len(parents) > 1:
            raise ValueError(
                f"{bundle}: {commit} is a merge; a law's versions are read on one line"
            )
        for path in (name.removeprefix("\n") for name in names):
            if path in changed:
                changed[path].append(commit)
    wanted = [(path, order, commit) for path in laws
              for order, commit in enumerate(changed[path], start=1)]  # fmt: skip
    batch = git("cat-file", "--batch", stdin="".join(f"{c}:{p}\n" for p, _, c in wanted).encode())
    at = 0
    for path, order, commit in wanted:
        header_end = batch.index(b"\n", at)
        header = batch[at:header_end].decode("utf-8").split()
        if header[1:2] != ["blob"]:
            raise ValueError(f"{bundle}: {commit}:{path}: {' '.join(header)}")
        at = header_end + 1 + int(header[2])
        yield path, order, commit, batch[header_end + 1 : at].decode("utf-8")
        at += 1  # the newline after each object


def truth(bundles: Path) -> dict[str, object]:
    jurisdictions: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="numbering-truth-") as tmp:
        for bundle in sorted(bundles.glob("*.bundle")):
            for path, order, commit, text in bundle_versions(bundle, Path(tmp)):
                jurisdiction, family = path.split("/")[0], path.removesuffix(".md")
                entry = jurisdictions.setdefault(
                    jurisdiction, {"kinds": [k for k, _ in READERS[jurisdiction]], "families": {}}
                )
                families: dict[str, list[object]] = entry["families"]  # type: ignore[assignment]
                families.setdefault(family, []).append(
                    {
                        "commit": commit,
                        "version_order": order,
                        "text_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                        "units": read_units(jurisdiction, text),
                    }
                )
    return {
        "rule": "units read from each jurisdiction's own identifiers in the bundles' Markdown "
        "(scripts/numbering_truth.py READERS); path = keys of the units open above, then its own",
        "jurisdictions": jurisdictions,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundles", type=Path, default=BUNDLES)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if not any(args.bundles.glob("*.bundle")):
        print(f"{args.bundles}: no *.bundle here", file=sys.stderr)
        return 2
    found = truth(args.bundles)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(found, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for jurisdiction, entry in found["jurisdictions"].items():  # type: ignore[attr-defined]
        versions = [v for vs in entry["families"].values() for v in vs]
        units = sum(len(v["units"]) for v in versions)
        print(
            f"{jurisdiction}: {len(entry['families'])} laws, {len(versions)} versions, {units} units"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
