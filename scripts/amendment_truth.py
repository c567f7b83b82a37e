"""Derive a truth of amendment instructions from the D.C. Council's own codification markup.

The workbench reads a D.C. Law's enacted prose into instruction records; to score that reading
we need instructions the workbench did not compute. The Council's XML encodes its codifier's
reading of each change beside the prose (`codify:find-replace`, `codify:insert`, `codify:repeal`,
`codify:replace`, `codify:redesignate-para`, each naming its D.C. Code target in a
`codified:path` attribute such as `§34-1432|(c)|(13)`). This script is that oracle, so it imports
nothing from `workbench` (it shares the catalogue reading and the hash check of
`alignment_truth.py`, the other oracle): it reads the catalogue rows of the `dc-law-*` families,
checks every mirror file's SHA-256 against its row, parses the bytes with lxml and lists one
instruction per markup element. Its guarantee: every instruction it keeps is the Council's own
markup, and every element it does not keep is listed or counted with the reason, never dropped.

The rules (also in the output, `rules`):

* An instruction is a `codify:` element of the five kinds in `KINDS`, outside any other `codify:`
  element, whose `codified:doc` is "D.C. Code". Its kind is `KINDS`' name for the element; its
  target is `codified:path` split at "|": a first part "§N-N" names the Code section, the rest are
  unit labels ("(c)", "(13)"); a first part without "§" ("34|14A": title and chapter) names no
  section. `find` and `replace` (find-replace), `count` or `position` (find-replace), the new
  label (`num-value`, redesignate-para and insert) are copied as the markup gives them.
* The unit that holds the markup is its nearest enclosing `para`, `section` or `container` outside
  an `include` (the quoted matter a law inserts is not the unit that instructs). Its prose is its
  own text: every text node inside it but those of `codify:` elements, of `include` elements and
  of nested units, with white space collapsed.
* A find-replace whose `find` and `replace` are each a unit label alone ("(8)" -> "(9)", "4A" ->
  "4B") and whose target ends in the `replace` label is a redesignation: its kind is
  `redesignate` and its new label the `replace` text.
* A find-replace is kept when its `find` text, white space collapsed, occurs verbatim in that
  prose; otherwise it is listed under `departures` (`find_not_in_prose`: the codifier's reading
  departs from the enacted words, bracket notation such as `Elizabeth[s]`, a corrected figure).
  The other kinds have no quoted text to check: each is kept when the prose names the unit it
  targets (a unit: its last label, "(22)", occurs in the prose or is the number the quoted unit
  gives itself, "(SS)" of "(RR) through (WW)"; a whole section: its number, or the number the
  quoted section gives itself, "8a", occurs in the prose; a redesignate-para: the label it gives
  occurs in the prose), and is otherwise a departure (`target_not_in_prose`: the codifier applied
  the law to a unit its words do not name, such as the Code sections of a whole uncodified law
  the prose repeals, or a unit it renumbered).
* Elements of the five kinds that are nested in another `codify:` element, or whose
  `codified:doc` is not the Code, are counted under `not_listed` by reason; so is an insert
  outside any `include` (`codifies_the_laws_own_text`): there the codifier places a section the
  law itself enacts, and no sentence of the law instructs it; so is a find-replace whose `find`
  equals its `replace` (`changes_no_text`: the codifier re-files a passage, no text changes).
* An instruction lists the words of its inserted text (an insert's or replace's unit, a
  find-replace's `replace`) that the codifier prints otherwise (`codifier_rewrites`: a
  `code-cite` cross-reference, printed as the Code section it names, or a span with a
  `codify:value`), so a quoted line that does not stand in the Code can be told from one the
  codifier rewrote.
* Instructions are listed by law (catalogue path), then document order. Output is canonical JSON.
  A missing mirror file or a hash that is not the catalogue's stops the run with one line naming
  it (exit status 2).

Usage: `python scripts/amendment_truth.py [--mirror DIR] [--catalogue FILE] [--out FILE]`
(defaults `../shared/corpus`, `corpus/catalogue.jsonl`, `benchmarks/out/amendment-truth.json`).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The sibling oracle, found beside this file (its folder is put on the path above).
from alignment_truth import (
    TruthError,
    collapse,
    key_holds,
    parse_xml,
    read_catalogue,
    read_checked,
    truth_key,
    write_truth,
)

CODIFY = "https://code.dccouncil.us/schemas/codify"
CODIFIED = "https://code.dccouncil.us/schemas/codified"
LIBRARY = "https://code.dccouncil.us/schemas/dc-library"
JURISDICTION = "us-dc"
LAW_FAMILY_PREFIX = "dc-law-"
KINDS = {
    "find-replace": "strike_and_insert",
    "insert": "insert",
    "repeal": "repeal",
    "replace": "amend_to_read",
    "redesignate-para": "redesignate",
}
UNITS = frozenset({"para", "section", "container"})
LABEL = re.compile(r"\([0-9]+[A-Z]?(?:-[0-9]+)?\)|[0-9]+[A-Z]|\([a-zA-Z]{1,4}(?:-[0-9]+)?\)")
# Elements whose boundaries are white space in the prose ("(1)" and its text never run together);
# every other element (a citation, an emphasis) is inline.
BLOCKS = UNITS | {"num", "text", "heading", "aftertext", "include"}
RULES = {
    "instruction": "a codify: element of the kinds find-replace (strike_and_insert), insert, "
    "repeal, replace (amend_to_read) or redesignate-para (redesignate), outside any other codify: "
    "element, whose codified:doc is the D.C. Code; its target is codified:path",
    "holder": "the nearest enclosing para, section or container outside an include element",
    "prose": "the holder's own text: every text node but those of codify: elements, include "
    "elements and nested units, white space collapsed",
    "not_listed": "nested in another codify: element; not a D.C. Code target; an insert outside "
    "any include element (the codifier places the law's own text, no sentence instructs it); a "
    "find-replace whose find equals its replace (it changes no text)",
    "kept": "a find-replace whose find text (white space collapsed) occurs verbatim in the holder's "
    "prose; an instruction of another kind whose target the holder's prose names",
    "departure": "a find-replace whose find text is not verbatim in the holder's prose "
    "(find_not_in_prose); another kind whose target the holder's prose does not name "
    "(target_not_in_prose)",
}


def _qname(element: Any) -> tuple[str, str]:
    tag = element.tag
    if not isinstance(tag, str):
        return "", ""
    name = etree.QName(tag)
    return name.namespace or "", name.localname


def _in_codify(element: Any) -> bool:
    return any(_qname(a)[0] == CODIFY for a in element.iterancestors())


def holder_of(element: Any) -> Any:
    """The unit that instructs: the nearest para/section/container outside an `include`."""
    chain = list(element.iterancestors())
    for k, ancestor in enumerate(chain):
        namespace, name = _qname(ancestor)
        if (
            namespace == LIBRARY
            and name in UNITS
            and not any(_qname(a) == (LIBRARY, "include") for a in chain[k:])
        ):
            return ancestor
    return element.getparent()


def _prose_pieces(element: Any, top: bool) -> Iterator[str]:
    namespace, name = _qname(element)
    if not top and (
        namespace == CODIFY or (namespace == LIBRARY and (name in UNITS or name == "include"))
    ):
        return
    if namespace:  # an element, not a comment or processing instruction
        yield element.text or ""
    for child in element:
        yield from _prose_pieces(child, False)
        yield " " if _qname(child)[1] in BLOCKS else ""
        yield child.tail or ""


def own_prose(unit: Any) -> str:
    """The unit's own text (see the rules), white space collapsed."""
    return collapse("".join(_prose_pieces(unit, True)))


def target_of(path: str) -> dict[str, Any]:
    parts = path.split("|")
    section = parts[0][1:] if parts[0].startswith("§") else None
    return {
        "raw": path,
        "section": section,
        "path": parts[1:] if section is not None else parts,
    }


def _text_of(element: Any, name: str) -> str | None:
    child = element.find(f"{{{LIBRARY}}}{name}")
    return None if child is None else "".join(child.itertext())


def _rewrites(unit: Any) -> list[dict[str, str]]:
    """Words of the inserted unit that the codifier prints otherwise in the Code: a cross-reference
    (`code-cite`, printed as the Code section it names) or a span with a `codify:value` (printed
    as that value)."""
    out = []
    for el in unit.iter():
        namespace, name = _qname(el)
        value = el.get(f"{{{CODIFY}}}value")
        if namespace == LIBRARY and name == "code-cite":
            out.append({"text": collapse("".join(el.itertext())), "code": el.get("path") or ""})
        elif value is not None:
            out.append({"text": collapse("".join(el.itertext())), "code": collapse(value)})
    return out


def _is_label(text: str | None) -> bool:
    """A unit label alone: "(8)", "(4A)", "4B" (a find-replace of two renumbers a unit)."""
    return text is not None and LABEL.fullmatch(collapse(text)) is not None


def _grounded(entry: dict[str, Any], element: Any, prose: str) -> bool:
    """Whether the prose names the unit the markup targets. A unit: its last label ("(22)")
    occurs in the holder's prose, or is the number the quoted unit an insert or replace gives
    itself ("(SS)" of "(RR) through (WW)"). A whole section: its section number, or the number
    the quoted section gives itself ("8a"), occurs in the prose. A redesignate-para: the label it
    gives occurs in the prose."""
    target = entry["target"]
    num = None
    if entry["element"] in ("codify:insert", "codify:replace"):
        found = element.getparent().find(f"{{{LIBRARY}}}num")
        num = collapse("".join(found.itertext())) if found is not None else None
    if entry["element"] == "codify:redesignate-para":
        return bool(entry["new_label"]) and entry["new_label"] in prose
    if target["path"]:
        label = target["path"][-1].strip("[]")
        return label in prose or label == num
    return any(name and name.strip("[]") in prose for name in (target["section"], num))


def law_instructions(
    law: str, root: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Counter[str], list[str]]:
    """(kept, departures, not listed by reason, the prose of every unit holding a kept
    instruction) of one law's markup (see the module's rules)."""
    kept: list[dict[str, Any]] = []
    departures: list[dict[str, Any]] = []
    not_listed: Counter[str] = Counter()
    marked: set[str] = set()
    for element in root.iter():
        namespace, name = _qname(element)
        if namespace != CODIFY or name not in KINDS:
            continue
        if _in_codify(element):
            not_listed["nested_in_codify_markup"] += 1
            continue
        if element.get(f"{{{CODIFIED}}}doc") != "D.C. Code":
            not_listed["not_a_code_target"] += 1
            continue
        if name == "insert" and not any(
            _qname(a) == (LIBRARY, "include") for a in element.iterancestors()
        ):
            # Outside quoted matter the codifier places the law's own text (a section the law
            # enacts) in the Code: no sentence of the law instructs it.
            not_listed["codifies_the_laws_own_text"] += 1
            continue
        holder = holder_of(element)
        prose = own_prose(holder)
        count = element.get("count")
        entry = {
            "law": law,
            "element": f"codify:{name}",
            "kind": KINDS[name],
            "target": target_of(element.get(f"{{{CODIFIED}}}path") or ""),
            "find": _text_of(element, "find"),
            "replace": _text_of(element, "replace"),
            "count": int(count) if count and count.isdigit() else None,
            "position": element.get("position"),
            "new_label": element.get("num-value"),
            "holder_prose": prose,
            # The unit an insert or replace gives, its own text as the markup holds it.
            "inserted": own_prose(element.getparent()) if name in ("insert", "replace") else None,
            "inserted_heading": _text_of(element.getparent(), "heading")
            if name in ("insert", "replace")
            else None,
            "codifier_rewrites": _rewrites(
                element.getparent() if name in ("insert", "replace") else element
            ),
            "line": element.sourceline,
        }
        find = entry["find"]
        if (
            name == "find-replace"
            and _is_label(find)
            and _is_label(entry["replace"])
            and entry["target"]["path"][-1:]
            == [collapse(entry["replace"] or "").strip("()").join("()")]
        ):
            entry["kind"] = "redesignate"  # "(8)" -> "(9)": the codifier renumbers a unit
            entry["new_label"] = collapse(entry["replace"] or "")
        if name == "find-replace" and find is not None and find == entry["replace"]:
            # The codifier marks a passage it re-files (a history note, a renumbered citation)
            # with a find-replace that changes no text: no sentence of the law instructs it.
            not_listed["changes_no_text"] += 1
            continue
        if name == "find-replace" and (not find or collapse(find) not in prose):
            departures.append({**entry, "reason": "find_not_in_prose"})
        elif name != "find-replace" and not _grounded(entry, element, prose):
            departures.append({**entry, "reason": "target_not_in_prose"})
        else:
            kept.append(entry)
            marked.add(prose)
    return kept, departures, not_listed, sorted(marked)


def amendment_truth(mirror: Path, catalogue: Path) -> dict[str, Any]:
    rows = [
        row
        for row in read_catalogue(catalogue)
        if row["jurisdiction"] == JURISDICTION and row["family"].startswith(LAW_FAMILY_PREFIX)
    ]
    laws, instructions, departures = [], [], []
    not_listed: Counter[str] = Counter()
    for row in sorted(rows, key=lambda r: r["path"]):
        data = read_checked(mirror, row)
        root = parse_xml(data, str(mirror / row["path"]))
        effective = root.find(f"{{{LIBRARY}}}meta/{{{LIBRARY}}}effective")
        kept, departed, skipped, marked = law_instructions(row["path"], root)
        laws.append(
            {
                "law": row["path"],
                "sha256": row["sha256"],
                "effective": None if effective is None else (effective.text or "").strip(),
                "instructions": len(kept),
                "departures": len(departed),
                # The prose of every unit holding a kept instruction: where the codifier's
                # grounded reading speaks, so a reading elsewhere is one the truth cannot judge.
                "marked_units": marked,
            }
        )
        instructions.extend(kept)
        departures.extend(departed)
        not_listed.update(skipped)
    return {
        "computed_by": "scripts/amendment_truth.py (imports nothing from workbench)",
        "jurisdiction": JURISDICTION,
        "rules": RULES,
        "laws": laws,
        "kinds": dict(sorted(Counter(i["kind"] for i in instructions).items())),
        "instructions": instructions,
        "departures": departures,
        "not_listed": dict(sorted(not_listed.items())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("../shared/corpus"))
    parser.add_argument("--catalogue", type=Path, default=Path("corpus/catalogue.jsonl"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/out/amendment-truth.json"))
    args = parser.parse_args(argv)
    started = time.perf_counter()
    here = Path(__file__).resolve()
    key = truth_key("amendment-truth", args.catalogue, [here, here.with_name("alignment_truth.py")])
    if key_holds(args.out, key):
        print(f"{args.out}: its key holds (same catalogue, same scripts); nothing derived")
        return 0
    try:
        truth = amendment_truth(args.mirror, args.catalogue)
        write_truth(args.out, truth, key)
    except (TruthError, OSError) as exc:
        print(f"amendment_truth: error: {exc}", file=sys.stderr)
        return 2
    for law in truth["laws"]:
        print(
            f"{law['law']}: {law['instructions']} instructions, {law['departures']} departures "
            f"(effective {law['effective']})"
        )
    print(f"wrote {args.out} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
