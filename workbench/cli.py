"""The `workbench` command: a thin layer that parses arguments, calls the library and prints.

Exit codes, one meaning in every command:

- 2: an argument cannot be used (missing, a folder where a file goes or a file where a folder goes,
  unreadable, not the expected kind of file, malformed), reported as one line on stderr, never a
  traceback; nothing is written.
- 1: the command ran, but something it was asked to use was refused or failed (a document that
  did not ingest, a file `corpus add` would not place, a folder in which admission admitted no
  document: "no document admitted"); the refusals are listed at the end of its output.
- 0: it ran, and everything it was asked to use was used, or refused only because the admission
  policy itself requires it (a transcription, `byte_faithful_to_official_filing: false`): such
  refusals are listed, not failures.
Progress bars go to stderr and only when stderr is a terminal. Text and JSON go to stdout as UTF-8
bytes, whatever the locale, with no newline translation.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from workbench import corpus as corpus_mod
from workbench.diff import change_as_json, diff_versions, pairing_is_uncertain
from workbench.errors import AddError, VersionNotFound, WorkbenchError
from workbench.models import Refusal, consecutive_pairs
from workbench.segment import segment_version
from workbench.store import DEFAULT_WORKSPACE, Workspace, ingest

PROG = "workbench"


def _out(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def _json(value: Any) -> None:
    _out(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def _progress() -> bool:
    return sys.stderr.isatty()


def _refusals(title: str, refusals: Sequence[Refusal]) -> int:
    if not refusals:
        return 0
    _out(f"\n{title} ({len(refusals)}):\n")
    for refusal in refusals:
        _out(f"  {refusal.line()}\n")
    return 1


# ---------------------------------------------------------------------------------------------
# Commands


def _failed(refusals: Sequence[Refusal]) -> int:
    """1 if any refusal is a failure, 0 if every one is required by the admission policy."""
    return int(any(not corpus_mod.refusal_is_policy(r) for r in refusals))


def cmd_add(args: argparse.Namespace) -> int:
    from workbench import corpus_add

    per_file = ("jurisdiction", "family", "url", "mirror", "official", "order", "label", "date")
    if args.from_csv is not None:
        given = [f"--{name}" for name in (*per_file, "issuer", "docket") if getattr(args, name)]
        if args.files or given or args.line_numbered:
            raise AddError(
                "--from-csv takes the files and their facts from the manifest; do not also give "
                + ", ".join(
                    ["FILE"] * bool(args.files) + given + ["--line-numbered"] * args.line_numbered
                )
            )
        report = corpus_add.add_from_manifest(args.from_csv, args.into)
    else:
        report = corpus_add.add_files(
            args.files,
            args.into,
            jurisdiction=args.jurisdiction,
            family=args.family,
            official=args.official,
            order=args.order,
            url=args.url,
            mirror=args.mirror,
            label=args.label,
            date=args.date,
            issuer=args.issuer,
            docket=args.docket,
            line_numbered=args.line_numbered,
        )
    if report.refusals:
        _out(f"nothing written into {args.into}\n")
        return _refusals("refused", report.refusals)
    for placement in report.placements:
        what = (
            " and ".join(Path(name).name for name in placement.written)
            or "nothing (already there, equal)"
        )
        _out(f"{placement.path}: wrote {what}\n")
    written = sum(bool(p.written) for p in report.placements)
    _out(
        f"placed {written} of {len(report.placements)} documents in {args.into}"
        f"; admit them with 'workbench corpus admit {args.into}'\n"
    )
    return 0


def cmd_admit(args: argparse.Namespace) -> int:
    admission, merged = corpus_mod.admit_into_catalogue(
        args.dir, args.corpus_dir, progress=_progress()
    )
    kept = len(merged.rows) - len(admission.rows)
    _out(
        f"admitted {len(admission.rows)} documents from {args.dir} into "
        f"{args.corpus_dir / corpus_mod.CATALOGUE_NAME}"
        + (f" (kept {kept} rows already catalogued)" if kept > 0 else "")
        + f"; refused {len(merged.refusals)}\n"
    )
    _refusals("refused", merged.refusals)
    if not admission.rows:
        _out(f"no document admitted from {args.dir}\n")
        return 1
    return _failed(merged.refusals)


def cmd_fetch(args: argparse.Namespace) -> int:
    mirror = args.mirror
    if mirror is not None and not mirror.is_dir():
        raise FileNotFoundError(f"{mirror}: mirror folder does not exist")
    rows = corpus_mod.read_catalogue(args.corpus_dir)
    report = corpus_mod.fetch(
        rows, args.store, mirror=mirror, url_template=args.mirror_url, progress=_progress()
    )
    refused = corpus_mod.read_refused(args.corpus_dir)
    extra = corpus_mod.fetch(
        refused,
        args.refused_store,
        mirror=mirror,
        url_template=args.mirror_url,
        progress=_progress(),
    )
    _out(
        f"fetched {len(report.copied)}, already held {len(report.held)}, failed {len(report.failed)} "
        f"into {args.store}; refused documents kept for re-checking admission in {args.refused_store}: "
        f"{len(extra.copied) + len(extra.held)}\n"
    )
    return _refusals("failed", report.failed + extra.failed)


def cmd_verify_store(args: argparse.Namespace) -> int:
    rows = corpus_mod.read_catalogue(args.corpus_dir)
    problems = corpus_mod.verify_store(rows, args.store, progress=_progress())
    _out(
        f"catalogue checksum ok; {len(rows) - len(problems)} of {len(rows)} held files match the catalogue\n"
    )
    failed = _refusals("problems", problems)
    if args.reextract:
        with Workspace(args.workspace) as workspace:
            report = ingest(workspace, rows, args.store, progress=_progress(), reextract=True)
        _out(
            f"re-extracted {len(report.added) + len(report.unchanged)} versions: "
            f"{len(report.unchanged)} give their held text hash, {len(report.added)} were not held "
            f"yet (now held)\n"
        )
        failed = max(failed, _refusals("re-extraction refused", report.refused))
    return failed


def cmd_ingest(args: argparse.Namespace) -> int:
    rows = corpus_mod.read_catalogue(args.corpus_dir)
    with Workspace(args.workspace) as workspace:
        report = ingest(workspace, rows, args.store, progress=_progress())
        held = workspace.count()
    _out(
        f"ingested {len(report.added)} new, {len(report.unchanged)} already held "
        f"({held} versions in {args.workspace})"
        + (f"; awaiting an extractor: {len(report.awaiting)}" if report.awaiting else "")
        + "\n"
    )
    return _refusals("refused", report.refused)


def cmd_families(args: argparse.Namespace) -> int:
    from workbench.store import families_as_json

    with Workspace(args.workspace) as workspace:
        rows = families_as_json(workspace.versions()) if workspace.count() else []
    if args.json:
        _json(rows)
        return 0
    if not rows:
        _out(f"no version is held in {args.workspace}; see 'workbench ingest'\n")
        return 0
    for row in rows:
        _out(
            f"{row['jurisdiction']:<20} {row['family']:<48} {row['versions']:>3} versions  "
            f"{', '.join(row['formats'])}\n"
        )
    return 0


def cmd_versions(args: argparse.Namespace) -> int:
    from workbench.store import versions_as_json

    with Workspace(args.workspace) as workspace:
        rows = versions_as_json(workspace.versions(args.family), workspace.filing_dates())
    if args.json:
        _json(rows)
        return 0
    for row in rows:
        pages = f"{row['pages']} pages, " if row["pages"] else ""
        _out(
            f"{row['order']:>3}  {row['version_id']}  {row['date'] or '-'}  "
            f"{pages}{row['text_length']} characters  {row['label']}\n"
        )
    return 0


def cmd_text(args: argparse.Namespace) -> int:
    with Workspace(args.workspace) as workspace:
        _out(workspace.version(args.version_id).text)
    return 0


def _own_profiles(args: argparse.Namespace, corpus: Path | None = None) -> tuple[Any, ...]:
    """The researcher's profiles: `--profiles DIR`, then `CORPUS/profiles/*.toml` if present."""
    from workbench.profiles import read_profile_dir

    own: list[Any] = []
    if getattr(args, "profiles", None) is not None:
        own.extend(read_profile_dir(args.profiles))
    if corpus is not None and (corpus / "profiles").is_dir():
        own.extend(read_profile_dir(corpus / "profiles"))
    return tuple(own)


def _family_profile(args: argparse.Namespace, workspace: Workspace, version: Any) -> Any:
    """The profile that reads `version`'s family: named, else the automatic choice (C15)."""
    from workbench.profiles import choose_profile, registry

    family = [
        v for v in workspace.versions(version.family) if v.jurisdiction == version.jurisdiction
    ]
    return choose_profile(family or [version], registry(_own_profiles(args)))


def cmd_passages(args: argparse.Namespace) -> int:
    with Workspace(args.workspace) as workspace:
        version = workspace.version(args.version_id)
        choice = _family_profile(args, workspace, version)
    passages = segment_version(version, choice.profile)
    if args.json:
        from workbench.extract_pdf import page_for_offset  # issue 8: PDF page locator

        _json(
            [
                {
                    "version_id": p.version_id,
                    "ordinal": p.ordinal,
                    "char_start": p.char_start,
                    "char_end": p.char_end,
                    "text": p.text,
                    "section_label": p.section_label,
                    "kind": p.kind,
                    "path": list(p.path) if p.path is not None else None,
                    "profile": choice.profile.name,
                    "page": page_for_offset(version.pages, p.char_start),
                }
                for p in passages
            ]
        )
        return 0
    for p in passages:
        first_line = p.text.split("\n", 1)[0][:90]
        _out(
            f"{p.ordinal:5d} [{p.char_start}, {p.char_end}) {p.kind:<12} "
            f"label={p.section_label or '-'} path={'/'.join(p.path) if p.path else '-'}  {first_line}\n"
        )
    return 0


def cmd_structure(args: argparse.Namespace) -> int:
    from workbench.profiles import load_profile
    from workbench.structure import is_marked, parse_structure, read_lines

    with Workspace(args.workspace) as workspace:
        version = workspace.version(args.version_id)
        if args.profile is not None:
            profile, how = load_profile(args.profile), "file"
        else:
            choice = _family_profile(args, workspace, version)
            profile, how = choice.profile, choice.how
    parse = parse_structure(version, profile)
    marks = version.structure if is_marked(version) else None
    readings = [r for r in read_lines(version.text, profile, marks) if r.label is not None]
    passages = segment_version(version, profile)
    labelled = sum(p.section_label is not None for p in passages)
    lines: list[dict[str, Any]] = [
        {
            "line": version.text.count("\n", 0, r.char_start) + 1,
            "char_start": r.label_start,
            "level": r.level.name if r.level else "mark",
            "label": r.printed,
            "labels": [r.label, *(i.label for i in r.inner)],
            "path": list(p) if (p := parse.path_at(r.label_start)) is not None else None,
            "text": version.text[r.char_start : r.char_end][:100],
        }
        for r in readings
    ]
    summary = {
        "version_id": version.version_id,
        "profile": {**profile.as_json(), "chosen": how},
        "method": parse.method,
        "refusal": parse.refusal,
        "units": len(parse.units),
        "label_steps_checked": parse.checked,
        "label_steps_inconsistent": parse.inconsistent,
        "passages": len(passages),
        "passages_with_own_label": labelled,
    }
    if args.json:
        _json({**summary, "labels": lines})
        return 0
    _out(
        f"{version.version_id}: profile {profile.name} ({how}, sha256 {profile.sha256[:12]}), "
        f"{parse.method}, {len(parse.units)} units, {parse.inconsistent} of {parse.checked} "
        f"label steps inconsistent, refusal {parse.refusal or '-'}; "
        f"{labelled} of {len(passages)} passages have their own label\n"
    )
    for line in lines:
        path = "/".join(line["path"]) if line["path"] else "-"
        _out(
            f"{line['line']:6d} {line['level']:<16} {line['label']!s:<14} {path:<30} {line['text']}\n"
        )
    return 0


def _pairs(
    workspace: Workspace, family: str, start: str | None, end: str | None
) -> list[tuple[Any, Any]]:
    versions = list(workspace.versions(family))
    if start is not None or end is not None:
        ids = [v.version_id for v in versions]
        for name in (start, end):
            if name is not None and name not in ids:
                raise VersionNotFound(
                    f"{name}: not a version of family {family}; its versions are {', '.join(ids)}"
                )
        before = workspace.version(start) if start else versions[0]
        after = workspace.version(end) if end else versions[-1]
        return [(before, after)]
    return list(consecutive_pairs(versions))


def cmd_diff(args: argparse.Namespace) -> int:
    with Workspace(args.workspace) as workspace:
        pairs = _pairs(workspace, args.family, args.start, args.end)
    if not pairs:
        if args.json:
            _json([])
        else:
            _out(f"{args.family}: only one version is held; nothing to diff\n")
        return 0
    from workbench.profiles import choose_profile, registry

    profile = choose_profile(
        [pairs[0][0], *(b for _, b in pairs)], registry(_own_profiles(args))
    ).profile
    results = [(before, after, diff_versions(before, after, profile)) for before, after in pairs]
    if args.json:
        _json(
            [
                {
                    "before": b.version_id,
                    "after": a.version_id,
                    "changes": [change_as_json(c) for c in changes],
                }
                for b, a, changes in results
            ]
        )
        return 0
    for before, after, changes in results:
        counts = {
            k: sum(c.kind == k for c in changes)
            for k in ("unchanged", "modified", "moved", "split", "merged", "added", "removed")
        }
        doubtful = sum(pairing_is_uncertain(c) for c in changes)
        _out(
            f"{before.version_id} -> {after.version_id}: "
            + ", ".join(f"{v} {k}" for k, v in counts.items())
            + f"; {doubtful} doubtful\n"
        )
        for c in changes:
            if c.kind == "unchanged":
                continue
            span = c.span_after or c.after or c.before
            source = after if c.after else before
            snippet = (
                source.text[span.char_start : span.char_end][:70].replace("\n", " ") if span else ""
            )
            score = (
                f" conf {c.alignment_confidence:.2f}{' capped' if c.capped else ''}"
                if c.alignment_confidence is not None
                else ""
            )
            flag = " DOUBTFUL" if pairing_is_uncertain(c) else ""
            _out(
                f"  {c.change_id} {c.kind:<8}{score}{flag} labels {c.before_label or '-'}->{c.after_label or '-'}: {snippet!r}\n"
            )
    return 0


def cmd_measure(args: argparse.Namespace) -> int:
    from workbench.measure import measure_corpus

    run = measure_corpus(
        out=args.out,
        workspace=args.workspace,
        corpus_dir=args.corpus_dir,
        store=args.store,
        mirror=args.corpus,
        profiles=_own_profiles(args),
        workers=args.workers,
        scheduler=args.scheduler,
        export=args.export,
        progress=_progress(),
    )
    if not run.written:
        _refusals("refused at admission", run.admission_refusals)
        _out(f"no document admitted from {args.corpus}; nothing measured\n")
        return 1
    _out(
        f"wrote {len(run.written)} files into {args.out} ({run.documents} documents, "
        f"{len(run.families)} families; {len(run.reused)} reused unchanged from the cache)\n"
    )
    failed = _refusals("not ingested", run.not_ingested)
    _refusals("refused at admission (listed in the report)", run.admission_refusals)
    return max(failed, _failed(run.admission_refusals))


# @@ commands: verify, export-annotations (issue 3) @@


def _citation_lines(args: argparse.Namespace) -> tuple[Any, ...]:
    from workbench.cite.formats import read_citations, read_documents

    data = sys.stdin.buffer.read() if str(args.file) == "-" else args.file.read_bytes()
    documents = None
    if getattr(args, "documents", None) is not None:
        documents = read_documents(args.documents.read_bytes(), str(args.documents))
    fmt: Any = getattr(args, "format", "workbench")  # argparse choices hold it to FORMATS
    return read_citations(data, fmt, documents=documents, source=str(args.file))


def _verification_json(line: int, verification: Any) -> dict[str, Any]:
    citation = verification.citation
    return {
        "line": line,
        "outcome": verification.outcome,
        "reason": verification.reason,
        "detail": verification.detail,
        "version_id": citation.version_id,
        "char_start": citation.char_start,
        "char_end": citation.char_end,
        "quoted_text": citation.quoted_text,
        "actual_text": verification.actual_text,
        "text_sha256": verification.text_sha256,
        "occurrence": verification.occurrence,
        "occurrence_count": len(verification.occurrences),
        "occurrences": [list(span) for span in verification.occurrences[:20]],
        "qualifiers": [
            {"word": q.word, "char_start": q.char_start, "char_end": q.char_end, "side": q.side}
            for q in verification.qualifiers
        ],
    }


def cmd_verify(args: argparse.Namespace) -> int:
    from workbench.cite import VERIFIED_MEANS, verify_citations

    lines = _citation_lines(args)
    good = [line for line in lines if line.citation is not None]
    with Workspace(args.workspace) as workspace:
        results = dict(
            zip(
                (line.line for line in good),
                verify_citations(workspace, (line.citation for line in good)),
                strict=True,
            )
        )
    counts = {"verified": 0, "refused": 0, "malformed": 0}
    for line in lines:
        if line.error is not None:
            counts["malformed"] += 1
            _out(
                json.dumps({"line": line.line, "error": line.error}, ensure_ascii=False) + "\n"
                if args.json
                else f"{line.error}\n"
            )
            continue
        result = results[line.line]
        counts[result.outcome] += 1
        if args.json:
            _out(json.dumps(_verification_json(line.line, result), ensure_ascii=False) + "\n")
            continue
        c = result.citation
        where = f"{c.version_id} [{c.char_start}, {c.char_end})"
        reason = f" {result.reason}" if result.reason else ""
        _out(
            f"line {line.line}: {result.outcome}{reason}: {where}: {result.detail}; "
            f"text at offsets: {json.dumps(result.actual_text, ensure_ascii=False)}\n"
        )
        for q in result.qualifiers:
            _out(
                f"  qualifier {q.side} the quote, left out of it: {q.word!r} at "
                f"[{q.char_start}, {q.char_end})\n"
            )
    if not args.json:
        _out(
            f"{counts['verified']} verified, {counts['refused']} refused, "
            f"{counts['malformed']} malformed lines; {VERIFIED_MEANS}\n"
        )
    if counts["malformed"]:
        return 2
    return 1 if counts["refused"] else 0


def cmd_export_annotations(args: argparse.Namespace) -> int:
    from workbench.cite.formats import export_annotations

    lines = _citation_lines(args)
    for line in lines:
        if line.error is not None:
            print(f"{PROG}: {line.error}", file=sys.stderr)
    with Workspace(args.workspace) as workspace:
        annotations, verifications = export_annotations(
            workspace, (line.citation for line in lines if line.citation is not None)
        )
    body = "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in annotations)
    if args.out is None:
        _out(body)
    else:
        args.out.write_bytes(body.encode("utf-8"))
    refused = [v for v in verifications if not v.verified]
    for v in refused:
        c = v.citation
        print(
            f"{PROG}: not exported: {c.version_id} [{c.char_start}, {c.char_end}): "
            f"{v.reason}: {v.detail}",
            file=sys.stderr,
        )
    if any(line.error is not None for line in lines):
        return 2
    return 1 if refused else 0


# @@ commands: review (issue 5) @@


def _caution_word(stands: bool) -> str:
    return "caution stands" if stands else "caution lifted"


def _review_pairing_line(review: Any, change: Any, verdicts: Sequence[Any]) -> str:
    """One pairing of `review list`: id, kind, labels, confidence, why doubtful, caution state."""
    standing = review.standing_verdict(change, verdicts)
    caution = review.pairing_caution_stands(change, verdicts)
    state = (
        f"{standing.answer} by {standing.actor} at row {standing.seq}" if standing else "unanswered"
    )
    return (
        f"{change.change_id} {change.kind} labels {change.before_label or '-'}->"
        f"{change.after_label or '-'} conf {change.alignment_confidence:.2f}"
        f"{' capped' if change.capped else ''} ({', '.join(review.doubt_reasons(change))}): "
        f"{_caution_word(caution)} ({state})"
    )


def cmd_review_list(args: argparse.Namespace) -> int:
    from workbench import review
    from workbench.profiles import registry

    with Workspace(args.workspace) as workspace:
        items = review.review_items(workspace, args.family, profiles=registry(_own_profiles(args)))
        verdicts = review.read_verdicts(workspace)
    if args.json:
        _json([review.item_as_json(item, verdicts) for item in items])
        return 0
    stands = groups = grouped = 0
    pair: tuple[str, str] | None = None
    for item in items:
        first = item.pairings[0]
        if (first.before_id, first.after_id) != pair:
            pair = (first.before_id, first.after_id)
            _out(f"{first.before_id} -> {first.after_id}\n")
        caution = review.item_caution_stands(item, verdicts)
        stands += caution
        if item.group_id is None:
            _out(f"  {_review_pairing_line(review, first.change, verdicts)}\n")
            continue
        groups, grouped = groups + 1, grouped + len(item.pairings)
        changes = [p.change for p in item.pairings]
        assert item.relabel is not None  # a group always has its renumbering
        _out(
            f"  {item.group_id} restructure group of {len(changes)} pairings, labels "
            f"{changes[0].before_label}->{changes[0].after_label} ... "
            f"{changes[-1].before_label}->{changes[-1].after_label} "
            f"({item.relabel.line()}): {_caution_word(caution)}\n"
        )
        for change in changes:
            _out(f"    {_review_pairing_line(review, change, verdicts)}\n")
    lone = len(items) - groups
    _out(
        f"{len(items)} review items ({groups} restructure groups of {grouped} pairings, {lone} lone "
        f"pairings; {grouped + lone} doubtful pairings); caution stands on {stands}\n"
    )
    return 0


def cmd_review_answer(args: argparse.Namespace) -> int:
    from workbench import review
    from workbench.profiles import registry

    with Workspace(args.workspace) as workspace:
        item = review.find_item(
            workspace, args.change_id, family=args.family, profiles=registry(_own_profiles(args))
        )
        common = {"actor": args.actor, "reason": args.reason, "undoes": args.undoes}
        rows: tuple[review.Verdict, ...]
        if item.group_id is None:
            rows = (
                review.append_verdict(workspace, item.pairings[0].change, args.answer, **common),
            )
        else:
            rows = review.append_group_verdict(workspace, item, args.answer, **common)
        caution = review.item_caution_stands(item, review.read_verdicts(workspace))
    for verdict in rows:
        _out(
            f"row {verdict.seq}: {verdict.answer} {verdict.change_id} by {verdict.actor}"
            + (f" in group {verdict.group_id}" if verdict.group_id else "")
            + (f" (undoes row {verdict.undoes})" if verdict.undoes is not None else "")
            + (f"; {_caution_word(caution)}" if item.group_id is None else "")
            + f"; digest {verdict.digest}\n"
        )
    if item.group_id is not None:
        _out(f"group {item.group_id}: {len(rows)} rows; {_caution_word(caution)}\n")
    return 0


def cmd_review_log(args: argparse.Namespace) -> int:
    from workbench import review
    from workbench.profiles import registry

    with Workspace(args.workspace) as workspace:
        verdicts = review.read_verdicts(workspace)
        orphans = {
            o.verdict.seq: o
            for o in review.orphaned_verdicts(
                workspace, verdicts, profiles=registry(_own_profiles(args))
            )
        }
    if args.json:
        _json(
            [
                {
                    **review.verdict_as_json(v),
                    "orphaned": orphans[v.seq].reason if v.seq in orphans else None,
                }
                for v in verdicts
            ]
        )
        return 0
    for v in verdicts:
        orphan = orphans.get(v.seq)
        _out(
            f"{v.seq:5d} {v.answered_at} {v.change_id} {v.answer:<10} {v.actor}"
            f" conf {v.alignment_confidence:.2f}{' capped' if v.capped else ''}"
            + (f" group {v.group_id}" if v.group_id else "")
            + (f" undoes {v.undoes}" if v.undoes is not None else "")
            + (f" reason {v.reason!r}" if v.reason else "")
            + (f" ORPHANED ({orphan.reason}: {orphan.detail})" if orphan else "")
            + "\n"
        )
    _out(f"{len(verdicts)} rows; {len(orphans)} orphaned\n")
    return 0


def cmd_review_verify_chain(args: argparse.Namespace) -> int:
    from workbench import review

    with Workspace(args.workspace) as workspace:
        report = review.verify_chain(workspace)
    _out(report.line() + "\n")
    return 0 if report.valid else 1


# @@ commands: grade, check, runs, census, quotes (issue 6) @@


def _ledger_path(args: argparse.Namespace) -> Path:
    return Path(args.ledger)


def cmd_grade(args: argparse.Namespace) -> int:
    from workbench import claims

    note = claims.parse_note(args.note)
    catalogue = claims.catalogue_index(args.corpus_dir)
    with claims.Ledger(_ledger_path(args)) as ledger:
        grade = claims.grade_note(note, catalogue, ledger.runs(claims.note_key(args.note)))
    if args.json:
        _json(
            {
                "note": str(grade.note),
                "grade": grade.grade,
                "pointer": grade.pointer,
                "backing_run": grade.backing_run,
                "evidence_missing": list(grade.evidence_missing),
                "why": list(grade.why),
            }
        )
        return 0
    _out(f"{args.note}: {grade.grade}\n" + "".join(f"  {line}\n" for line in grade.why))
    return 0


def _check_lines(report: Any) -> str:
    run = report.run
    head = f"{report.note}: {run.outcome} against {run.document} (run {run.run})"
    if report.pointer_after != report.pointer_before:
        head += (
            f"; pointer set to {report.pointer_after}"
            if report.pointer_after
            else f"; pointer {report.pointer_before} cleared"
        )
    lines = [head]
    if run.outcome == "checksum_mismatch":
        lines.append(f"  held sha256 {run.document_sha256} does not match the catalogue")
    for q in run.missing:
        excerpt = " ".join(q["quote"].split())
        route = f" via the {q['route']} route of {q['report']}" if "route" in q else ""
        lines.append(f"  {q['status']}: line {q['line']}: {excerpt!r} ({q['locator']}){route}")
    return "".join(line + "\n" for line in lines)


def cmd_check(args: argparse.Namespace) -> int:
    from workbench import claims
    from workbench.errors import NoteError

    if (args.note is None) == (args.all is None):
        raise NoteError("check: give one NOTE or --all DIR")
    if args.all is not None and args.against is not None:
        raise NoteError("check: --against goes with one NOTE, not with --all")
    with claims.Ledger(_ledger_path(args)) as ledger:
        if args.all is not None:
            reports = claims.check_notes(
                args.all, corpus_dir=args.corpus_dir, store=args.store, ledger=ledger
            )
        else:
            reports = (
                claims.check_note(
                    args.note,
                    against=args.against,
                    corpus_dir=args.corpus_dir,
                    store=args.store,
                    ledger=ledger,
                ),
            )
    for report in reports:
        _out(_check_lines(report))
    failed = sum(not r.confirmed for r in reports)
    if args.all is not None:
        _out(f"{len(reports)} notes checked: {len(reports) - failed} confirmed, {failed} not\n")
    return 1 if failed else 0


def cmd_runs(args: argparse.Namespace) -> int:
    from workbench import claims

    with claims.Ledger(_ledger_path(args)) as ledger:
        runs = ledger.runs(claims.note_key(args.note))
    if args.json:
        _json([{f: getattr(r, f) for f in r.__dataclass_fields__} for r in runs])
        return 0
    for r in runs:
        found = sum(q["status"] == "found" for q in r.quotes)
        _out(
            f"run {r.run} {r.checked_at} {r.outcome}: {found}/{len(r.quotes)} quotes found in "
            f"{r.document} (sha256 {r.document_sha256[:12]}); quotes sha256 {r.quotes_sha256[:12]}; "
            f"checker pid {r.checker_pid} workbench {r.workbench_version} "
            f"module {r.checker_sha256[:12]}\n"
        )
    _out(f"{len(runs)} runs\n")
    return 0


def cmd_census(args: argparse.Namespace) -> int:
    from workbench import claims

    with claims.Ledger(_ledger_path(args)) as ledger:
        result = claims.census(args.dir, corpus_dir=args.corpus_dir, ledger=ledger)
    _out("".join(line + "\n" for line in result.lines()))
    return 0


def cmd_quotes_new(args: argparse.Namespace) -> int:
    from workbench import quotes

    report = quotes.new_report(
        args.folder, args.slug, args.source, corpus_dir=args.corpus_dir, store=args.store
    )
    _out(
        f"{report.path}: new source report of {report.canonical_source}; snapshot "
        f"{report.snapshot_path} (sha256 {report.snapshot_sha256})\n"
    )
    return 0


def cmd_quotes_add(args: argparse.Namespace) -> int:
    from workbench import quotes

    added = quotes.add_quote(args.report, args.extract, args.location)
    excerpt = " ".join(added.text.split())
    _out(
        f"{args.report}: line {added.line}: retained {excerpt[:80]!r} "
        f"({quotes.LOCATION_LABEL} {added.location})\n"
    )
    return 0


def cmd_quotes_validate(args: argparse.Namespace) -> int:
    from workbench import quotes

    failed = 0
    for path in args.reports:
        problems = quotes.validate_report(path, corpus_dir=args.corpus_dir)
        if problems:
            failed += 1
            _out("".join(f"{problem}\n" for problem in problems))
        else:
            report = quotes.parse_report(path)
            held = len(report.extracts)
            _out(
                f"{path}: valid: {held} source extract{'s' * (held != 1)}; snapshot "
                f"{report.snapshot_path} matches (sha256 {report.snapshot_sha256[:12]})\n"
            )
    return 1 if failed else 0


def cmd_quotes_snapshot(args: argparse.Namespace) -> int:
    from workbench import quotes

    done = quotes.write_snapshot(args.report, corpus_dir=args.corpus_dir, store=args.store)
    said = "wrote" if done.written else "already holds the recorded bytes:"
    _out(f"{args.report}: {said} {done.path} (sha256 {done.sha256})\n")
    return 0


# @@ commands: search (issue 7) @@


def cmd_search(args: argparse.Namespace) -> int:
    from workbench import search as search_mod
    from workbench.errors import SearchQueryError

    if args.query is None and not args.reindex:
        raise SearchQueryError("query: missing; give QUERY, or --reindex to build the index only")
    with Workspace(args.workspace) as workspace:
        own = _own_profiles(args)
        if args.reindex:
            built = search_mod.build_index(workspace, own)
            if not args.json:
                _out(
                    f"search index built in {args.workspace}: {built.texts} distinct texts, "
                    f"{built.passages} passages\n"
                )
        if args.query is None:
            return 0
        scope = search_mod.SearchScope(
            workspace=workspace, jurisdiction=args.jurisdiction, family=args.family, profiles=own
        )
        result = search_mod.find_candidates(args.query, scope, args.k)
        texts = {v: workspace.version(v).text for v in {c.version_id for c in result.candidates}}
    passages = [texts[c.version_id][c.char_start : c.char_end] for c in result.candidates]
    if args.json:
        _json(
            {
                "query": result.query,
                "path": result.path,
                "index": {"state": result.index.state, "reason": result.index.reason},
                "note": result.note,
                "candidates": [
                    search_mod.candidate_as_json(c, text)
                    for c, text in zip(result.candidates, passages, strict=True)
                ],
            }
        )
        return 0
    _out(f"{result.note}; candidates are never evidence: verify a quote before citing it\n")
    for c, text in zip(result.candidates, passages, strict=True):
        snippet = " ".join(text.split())[:80]
        _out(
            f"{c.score:6.1f} {c.match:<9} {c.version_id} [{c.char_start}, {c.char_end}) "
            f"label={c.section_label or '-'}  {snippet}\n"
        )
    return 0


# @@ commands: eval (issue 10) @@


def cmd_eval(args: argparse.Namespace) -> int:
    from workbench import evals

    card = evals.scorecard(evals.load_demo(args.demo))
    if args.out is not None:
        for name in evals.write_scorecard(args.out, card):
            print(f"wrote {args.out / name}", file=sys.stderr)
    if args.truth is not None:
        from workbench import alignment_score
        from workbench.measure import corpus_digest

        truth = alignment_score.read_truth(args.truth)
        with Workspace(args.workspace) as workspace:
            alignment = alignment_score.alignment_scorecard(
                truth,
                workspace.version,
                corpus_digest=corpus_digest(corpus_mod.read_catalogue(args.corpus_dir)),
                truth_sha256=alignment_score.file_sha256(args.truth),
            )
        if args.out is not None:
            for name in alignment_score.write_alignment_scorecard(args.out, alignment):
                print(f"wrote {args.out / name}", file=sys.stderr)
        if not args.json:
            sys.stdout.buffer.write(alignment_score.scorecard_markdown(alignment))
    if args.json:
        sys.stdout.buffer.write(evals.scorecard_bytes(card))
    else:
        sys.stdout.buffer.write(evals.scorecard_markdown(card))
    sys.stdout.buffer.flush()
    return 0


# ---------------------------------------------------------------------------------------------
# Parser


def _paths(
    parser: argparse.ArgumentParser, *, workspace: bool = False, store: bool = False
) -> None:
    parser.add_argument(
        "--corpus-dir",
        type=Path,
        default=Path("corpus"),
        help="folder holding catalogue.jsonl and its checksum (default: corpus)",
    )
    if store:
        parser.add_argument(
            "--store",
            type=Path,
            default=Path("corpus/real"),
            help="folder the catalogued bytes are fetched into (default: corpus/real)",
        )
    if workspace:
        parser.add_argument(
            "--workspace",
            type=Path,
            default=Path(os.environ.get("WORKBENCH_WORKSPACE", DEFAULT_WORKSPACE)),
            help=f"workspace file (default: $WORKBENCH_WORKSPACE or {DEFAULT_WORKSPACE})",
        )


def _profiles_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profiles",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder of your own numbering profiles (*.toml); they win over the shipped ones",
    )


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("workbench")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Regulatory-text workbench: immutable versions, exact offsets, diffs.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    corpus = commands.add_parser(
        "corpus",
        help="add, admit, fetch and verify the catalogued corpus",
        description="Add your own files, admit a mirror folder, fetch catalogued bytes, "
        "re-verify them.",
    )
    corpus_commands = corpus.add_subparsers(dest="corpus_command", required=True, metavar="COMMAND")
    add = corpus_commands.add_parser(
        "add",
        help="place your own files in mirror layout and write their provenance",
        description="Copy each FILE to DIR/J/F/<name> and write <name>.provenance.json beside "
        "it: sha256, bytes, format (media type sniffed from the bytes), the mirror's git blob "
        "and retrieved_at are computed. Say where the bytes come from (--url and/or --mirror) "
        "and whether they are the issuer's own (--official) or a transcription "
        "(--transcription); there is no default. Or give every file's facts in a CSV manifest "
        "(--from-csv). Everything is checked before anything is written; a file or provenance "
        "already there with other content is refused (exit 1); the same again writes nothing. "
        "Then run 'workbench corpus admit DIR'.",
    )
    add.add_argument("files", nargs="*", type=Path, metavar="FILE", help="documents to add")
    add.add_argument("--into", type=Path, required=True, metavar="DIR", help="mirror folder")
    add.add_argument("--jurisdiction", metavar="J", help="folder and field, e.g. us-dc")
    add.add_argument("--family", metavar="F", help="document family folder, e.g. dc-code-34-306")
    add.add_argument("--url", metavar="URL", help="the issuer's http(s) URL for the artefact")
    add.add_argument(
        "--mirror",
        metavar="REPO@COMMIT:PATH",
        help="where these exact bytes are held: owner/name@<40-hex commit>:<path in the repo>; "
        "a path ending in '/' is the folder holding the FILEs (each file's name is appended)",
    )
    faithful = add.add_mutually_exclusive_group()
    faithful.add_argument(
        "--official",
        dest="official",
        action="store_const",
        const=True,
        help="the bytes are the issuer's official artefact (admitted)",
    )
    faithful.add_argument(
        "--transcription",
        dest="official",
        action="store_const",
        const=False,
        help="the bytes are not byte-faithful to the official filing (refused at admission)",
    )
    add.add_argument(
        "--order",
        type=int,
        metavar="N",
        help="version_order of the first FILE; the next get N+1, ... (default: 1)",
    )
    add.add_argument("--label", metavar="L", help="version label, e.g. '-04' or 'as introduced'")
    add.add_argument("--date", metavar="YYYY-MM-DD", help="filing or issue date")
    add.add_argument("--issuer", metavar="NAME", help="filer or issuer")
    add.add_argument("--docket", metavar="D", help="docket or bill")
    add.add_argument(
        "--line-numbered", action="store_true", help="the text carries gutter line numbers"
    )
    add.add_argument(
        "--from-csv",
        type=Path,
        metavar="MANIFEST",
        help="CSV with one row per file; columns file, jurisdiction, family, url, mirror, "
        "official, order, label, date, issuer, docket, line_numbered (file relative to the CSV)",
    )
    add.set_defaults(func=cmd_add)

    admit = corpus_commands.add_parser(
        "admit",
        help="admit a mirror folder into the catalogue, listing refusals",
        description="Read every <jurisdiction>/<family>/<file> and its .provenance.json "
        "under DIR, check hashes, write the catalogue. Exit 0 if every refusal is one the "
        "policy requires (transcriptions); 1 if anything else was refused or nothing was "
        "admitted.",
    )
    admit.add_argument(
        "dir",
        type=Path,
        metavar="DIR",
        help="mirror folder in <jurisdiction>/<family>/<file> layout",
    )
    _paths(admit)
    admit.set_defaults(func=cmd_admit)

    fetch = corpus_commands.add_parser(
        "fetch",
        help="bring catalogued bytes into the store, hash-checked",
        description="Copy (or, with no --mirror, download from each row's mirror URL) "
        "every catalogued file into the store, checking SHA-256. A mismatch never "
        "replaces a held file.",
    )
    fetch.add_argument(
        "--mirror",
        type=Path,
        default=None,
        help="local mirror folder to copy from instead of downloading",
    )
    fetch.add_argument(
        "--mirror-url",
        default=os.environ.get("WORKBENCH_MIRROR_URL", corpus_mod.MIRROR_URL),
        metavar="TEMPLATE",
        help="download URL template with {repo}, {commit} and {path} "
        "(default: $WORKBENCH_MIRROR_URL or %(default)s)",
    )
    fetch.add_argument(
        "--refused-store",
        type=Path,
        default=Path("corpus/refused"),
        help="folder for refused documents kept to re-check admission (default: corpus/refused)",
    )
    _paths(fetch, store=True)
    fetch.set_defaults(func=cmd_fetch)

    verify = corpus_commands.add_parser(
        "verify",
        help="re-hash everything held against the catalogue",
        description="Check the catalogue's own checksum, then re-hash every held file. With "
        "--reextract, also run every extractor again on the held bytes and check that each version's "
        "text hash equals the one the workspace holds (a difference is refused, nothing replaced).",
    )
    _paths(verify, store=True, workspace=True)
    verify.add_argument(
        "--reextract",
        action="store_true",
        help="re-run every extractor and check the text hashes against the workspace",
    )
    verify.set_defaults(func=cmd_verify_store)

    ingest_p = commands.add_parser(
        "ingest",
        help="extract and hold every catalogued version (idempotent)",
        description="Extract every catalogued, held file into the workspace. Identical bytes "
        "write nothing; a changed version id is refused. PDFs await their extractor.",
    )
    _paths(ingest_p, workspace=True, store=True)
    ingest_p.set_defaults(func=cmd_ingest)

    families = commands.add_parser(
        "families",
        help="the held families, to name them in other commands",
        description="List every held family: jurisdiction, family, versions held and formats.",
    )
    families.add_argument("--json", action="store_true", help="print the list as JSON")
    _paths(families, workspace=True)
    families.set_defaults(func=cmd_families)

    versions = commands.add_parser(
        "versions",
        help="the held versions of one family, to name them in other commands",
        description="List a family's held versions in version order: version id, order, filing "
        "date, pages (PDF), text length and label.",
    )
    versions.add_argument("family", metavar="FAMILY", help="a family name, as `families` lists it")
    versions.add_argument("--json", action="store_true", help="print the list as JSON")
    _paths(versions, workspace=True)
    versions.set_defaults(func=cmd_versions)

    text = commands.add_parser(
        "text",
        help="print the exact text offsets index",
        description="Print a held version's text exactly (UTF-8, no newline translation).",
    )
    text.add_argument(
        "version_id", metavar="VERSION_ID", help="catalogue path, e.g. ietf/<family>/<file>.txt"
    )
    _paths(text, workspace=True)
    text.set_defaults(func=cmd_text)

    passages = commands.add_parser(
        "passages",
        help="passages with offsets and section labels",
        description="Split a held version into passages with exact offsets.",
    )
    passages.add_argument("version_id", metavar="VERSION_ID")
    passages.add_argument(
        "--json",
        action="store_true",
        help="print [{version_id, ordinal, char_start, char_end, text, section_label, kind, "
        "path, profile, page}]",
    )
    _paths(passages, workspace=True)
    _profiles_option(passages)
    passages.set_defaults(func=cmd_passages)

    structure = commands.add_parser(
        "structure",
        help="which lines a numbering profile reads as labels, and their paths",
        description="Show how a numbering profile reads a held version: every label line, its "
        "level and structural path, and the parse's summary. Without --profile, the profile "
        "naming the version's family is used, else the automatic choice.",
    )
    structure.add_argument("version_id", metavar="VERSION_ID")
    structure.add_argument(
        "--profile", type=Path, default=None, metavar="FILE", help="a profile TOML file to try"
    )
    structure.add_argument("--json", action="store_true", help="print the reading as JSON")
    _paths(structure, workspace=True)
    _profiles_option(structure)
    structure.set_defaults(func=cmd_structure)

    diff = commands.add_parser(
        "diff",
        help="typed changes with confidence, cap and narrowed spans",
        description="Diff consecutive versions of a family (or --from/--to). Doubtful pairings "
        "are modified pairs with confidence at or below the restructure ceiling.",
    )
    diff.add_argument("family", metavar="FAMILY", help="document family, e.g. dc-code-34-306")
    diff.add_argument(
        "--from", dest="start", metavar="V", help="version id to diff from (default: first)"
    )
    diff.add_argument("--to", dest="end", metavar="V", help="version id to diff to (default: last)")
    diff.add_argument("--json", action="store_true", help="print the changes as JSON")
    _paths(diff, workspace=True)
    _profiles_option(diff)
    diff.set_defaults(func=cmd_diff)

    measure = commands.add_parser(
        "measure",
        help="re-derive measurements/ from the corpus",
        description="Ingest (idempotent) and write measurements/. With --corpus DIR, runs "
        "the whole chain on any mirror-layout folder: admission refusals are listed, not fatal.",
    )
    measure.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="mirror-layout folder to admit and measure instead of the catalogue",
    )
    measure.add_argument(
        "--out",
        type=Path,
        default=Path("measurements"),
        help="output folder (default: measurements)",
    )
    engine = measure.add_mutually_exclusive_group()
    engine.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="run the map on a local Dask cluster of N worker processes (default: in-process)",
    )
    engine.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="run the map on an existing Dask cluster; every worker must see the store at the "
        "same path and run the same workbench",
    )
    measure.add_argument(
        "--export",
        choices=("csv", "parquet"),
        default=None,
        help="also write the measurement tables (table-<kind>.csv or .parquet) into --out",
    )
    _paths(measure, workspace=True, store=True)
    _profiles_option(measure)
    measure.set_defaults(func=cmd_measure)
    # @@ parser: verify, export-annotations (issue 3) @@
    verify_p = commands.add_parser(
        "verify",
        help="verify citations exactly; one outcome line each",
        description="Check each citation of a JSON Lines FILE ('-' for stdin) against its held "
        "version: the text hash first, then the quote at the offsets, then its occurrences. "
        "Prints outcome, reason and the text actually at the offsets. Exit 0 only if every "
        "citation verified; 1 if any was refused; 2 if any line was malformed (the rest are "
        "still checked). Verified means the words are there, not that a reading of them is right.",
    )
    verify_p.add_argument("file", type=Path, metavar="FILE", help="JSON Lines of citations")
    verify_p.add_argument(
        "--format",
        choices=("workbench", "w3c", "anthropic"),
        default="workbench",
        help="workbench {version_id, char_start, char_end, quoted_text, occurrence?}; "
        "w3c Web Annotations (TextPositionSelector + TextQuoteSelector); anthropic "
        "char_location citations (default: workbench)",
    )
    verify_p.add_argument(
        "--documents",
        type=Path,
        default=None,
        help="for --format anthropic: JSON array of version ids in document_index order",
    )
    verify_p.add_argument(
        "--json", action="store_true", help="print one JSON object per input line"
    )
    _paths(verify_p, workspace=True)
    verify_p.set_defaults(func=cmd_verify)

    export_p = commands.add_parser(
        "export-annotations",
        help="write verified citations as W3C Web Annotations",
        description="Verify a JSON Lines FILE of citations (workbench format) and write each "
        "verified one as a W3C Web Annotation (JSON Lines): source = version id and text "
        "sha256, a TextQuoteSelector with the minimal prefix/suffix that makes the quote "
        "unique, and a TextPositionSelector. Refused citations are listed on stderr (exit 1).",
    )
    export_p.add_argument("file", type=Path, metavar="FILE", help="JSON Lines of citations")
    export_p.add_argument("--out", type=Path, default=None, help="write here instead of stdout")
    _paths(export_p, workspace=True)
    export_p.set_defaults(func=cmd_export_annotations)
    # @@ parser: review (issue 5) @@
    review_p = commands.add_parser(
        "review",
        help="doubtful pairings and the verdict log",
        description="List doubtful pairings, answer one, read the verdict log, verify its chain.",
    )
    review_commands = review_p.add_subparsers(
        dest="review_command", required=True, metavar="COMMAND"
    )
    review_list = review_commands.add_parser(
        "list",
        help="doubtful pairings and whether caution stands",
        description="Recompute the diffs of consecutive held versions and list the review queue: "
        "restructure groups (a section renumbered as a whole, its pairings inside) and lone "
        "doubtful pairings, each with kind, labels, confidence, why it is doubtful, its standing "
        "verdict and whether caution stands.",
    )
    review_list.add_argument("family", nargs="?", metavar="FAMILY", help="only this family")
    review_list.add_argument("--json", action="store_true", help="print the pairings as JSON")
    _paths(review_list, workspace=True)
    _profiles_option(review_list)
    review_list.set_defaults(func=cmd_review_list)
    review_answer = review_commands.add_parser(
        "answer",
        help="append a verdict on one doubtful pairing",
        description="Append one answer to the hash-chained verdict log. A pairing that already "
        "has a verdict is answered again only as a reversal (--undoes ROW).",
    )
    review_answer.add_argument(
        "change_id",
        metavar="ID",
        help="a change id (chg-...) or a restructure group id (grp-...): one answer to a group "
        "writes one row per pairing",
    )
    review_answer.add_argument(
        "answer", choices=("confirmed", "disputed", "uncertain"), help="uncertain: cannot tell"
    )
    review_answer.add_argument("--actor", required=True, metavar="NAME", help="the reviewer's name")
    review_answer.add_argument("--reason", default=None, metavar="TEXT", help="why (optional)")
    review_answer.add_argument(
        "--undoes", type=int, default=None, metavar="ROW", help="the log row this answer reverses"
    )
    review_answer.add_argument(
        "--family", default=None, metavar="FAMILY", help="look for the change in this family only"
    )
    _paths(review_answer, workspace=True)
    _profiles_option(review_answer)
    review_answer.set_defaults(func=cmd_review_answer)
    review_log = review_commands.add_parser(
        "log",
        help="print the verdict log",
        description="Print every row of the verdict log in sequence order, marking each row "
        "whose pairing the current diffs no longer produce as ORPHANED (kept, never re-attached).",
    )
    review_log.add_argument("--json", action="store_true", help="print the rows as JSON")
    _paths(review_log, workspace=True)
    _profiles_option(review_log)
    review_log.set_defaults(func=cmd_review_log)
    review_chain = review_commands.add_parser(
        "verify-chain",
        help="re-derive every link and digest of the verdict log",
        description="Report the first gap, broken link, altered row or unknown scheme; exit 1 "
        "if the chain is broken.",
    )
    _paths(review_chain, workspace=True)
    review_chain.set_defaults(func=cmd_review_verify_chain)
    # @@ parser: grade, check, runs, census, quotes (issue 6) @@
    ledger_help = "run ledger file (default: $WORKBENCH_LEDGER or .workbench/ledger.sqlite)"
    ledger_default = os.environ.get("WORKBENCH_LEDGER", ".workbench/ledger.sqlite")
    grade_p = commands.add_parser(
        "grade",
        help="a note's grade (floor, middle, top) and why",
        description="Read a note's grade off its header and the run ledger; nothing is stored.",
    )
    grade_p.add_argument("note", type=Path, metavar="NOTE")
    grade_p.add_argument("--json", action="store_true", help="print the grade as JSON")
    grade_p.add_argument("--ledger", default=ledger_default, metavar="PATH", help=ledger_help)
    _paths(grade_p)
    grade_p.set_defaults(func=cmd_grade)
    check_p = commands.add_parser(
        "check",
        help="check a note's quotes in a separate process; set the pointer if all are found",
        description="Spawn a checking process given only the note and the document: checksum "
        "against the catalogue first, then every quote (normalized, exact, occurrence rule). "
        "All found: the pointer is written and the run recorded. Any missing: no pointer, the "
        "missing quotes listed, exit 1. Without --against, the note's pointer or document field "
        "names the file (under --store).",
    )
    check_p.add_argument("note", nargs="?", type=Path, metavar="NOTE")
    check_p.add_argument("--against", type=Path, metavar="PATH", help="the held document's file")
    check_p.add_argument("--all", type=Path, metavar="DIR", help="check every note in DIR")
    check_p.add_argument("--ledger", default=ledger_default, metavar="PATH", help=ledger_help)
    _paths(check_p, store=True)
    check_p.set_defaults(func=cmd_check)
    runs_p = commands.add_parser(
        "runs",
        help="a note's runs in the ledger",
        description="List every recorded check of NOTE, oldest first.",
    )
    runs_p.add_argument("note", type=Path, metavar="NOTE")
    runs_p.add_argument("--json", action="store_true", help="print the runs as JSON")
    runs_p.add_argument("--ledger", default=ledger_default, metavar="PATH", help=ledger_help)
    runs_p.set_defaults(func=cmd_runs)
    census_p = commands.add_parser(
        "census",
        help="counts per grade and the staleness lines for a notes folder",
        description="Grade every note in DIR from its header and the ledger: counts per grade, "
        "top-grade notes missing an evidence field, middle-grade pointers with no recorded run "
        "behind them (evidence missing). Gates nothing; exits 0.",
    )
    census_p.add_argument("dir", type=Path, metavar="DIR")
    census_p.add_argument("--ledger", default=ledger_default, metavar="PATH", help=ledger_help)
    _paths(census_p)
    census_p.set_defaults(func=cmd_census)
    quotes_p = commands.add_parser(
        "quotes",
        help="a source report's quotes register and its snapshot",
        description="Keep the verbatim extracts a source report retains (notes/reports/"
        "<slug>.ingest.md), each checked against the exact snapshot bytes the report records.",
    )
    quotes_commands = quotes_p.add_subparsers(
        dest="quotes_command", required=True, metavar="COMMAND"
    )
    quotes_new = quotes_commands.add_parser(
        "new",
        help="write a report skeleton and its snapshot",
        description="Write FOLDER/SLUG.ingest.md with an empty Quotes section, and its snapshot "
        "FOLDER/.snapshots/SLUG.md built from the fetched, hash-checked document; the report "
        "records the snapshot's SHA-256. Never overwrites a report.",
    )
    quotes_new.add_argument("slug", metavar="SLUG", help="lowercase letters, digits, . _ -")
    quotes_new.add_argument(
        "--source", required=True, metavar="CATALOGUE_PATH", help="the document's catalogue path"
    )
    quotes_new.add_argument(
        "--folder",
        type=Path,
        default=Path("notes/reports"),
        help="where the report goes (default: notes/reports)",
    )
    _paths(quotes_new, store=True)
    quotes_new.set_defaults(func=cmd_quotes_new)
    quotes_add = quotes_commands.add_parser(
        "add",
        help="retain one verbatim extract, found in the snapshot",
        description="Read the report's snapshot (its SHA-256 and canonical source checked), "
        "search the extract in it (normalized, exact), and append the extract and its location "
        "at the end of the Quotes section, every other byte kept. A refused extract writes "
        "nothing.",
    )
    quotes_add.add_argument("report", type=Path, metavar="REPORT")
    quotes_add.add_argument("--extract", required=True, metavar="TEXT", help="the verbatim words")
    quotes_add.add_argument(
        "--location", required=True, metavar="TEXT", help="where they stand (one line)"
    )
    quotes_add.set_defaults(func=cmd_quotes_add)
    quotes_validate = quotes_commands.add_parser(
        "validate",
        help="check reports' structure and that every extract is in the snapshot",
        description="List every problem of each REPORT, one line each: structure, canonical "
        "source against the catalogue, the snapshot (missing, unreadable or mismatched bytes "
        "fail closed), each extract not found in it. Exit 1 on any problem.",
    )
    quotes_validate.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    _paths(quotes_validate)
    quotes_validate.set_defaults(func=cmd_quotes_validate)
    quotes_snapshot = quotes_commands.add_parser(
        "snapshot",
        help="write a report's ignored snapshot from the fetched corpus",
        description="Build REPORT's snapshot from the hash-checked corpus file and write it to "
        ".snapshots/<slug>.md beside the report; refused if it would hash differently from the "
        "recorded snapshot_sha256, which is never rewritten.",
    )
    quotes_snapshot.add_argument("report", type=Path, metavar="REPORT")
    _paths(quotes_snapshot, store=True)
    quotes_snapshot.set_defaults(func=cmd_quotes_snapshot)
    # @@ parser: search (issue 7) @@
    search = commands.add_parser(
        "search",
        help="candidate passages for a query, never evidence",
        description="Suggest passages where QUERY (a quote or a paraphrase) might be found. "
        "Every passage that contains the query after normalization is listed, then the best "
        "rapidfuzz-ranked others up to -k. Candidates are never evidence; verify quotes. A missing "
        "or stale index falls back to a full scan and says so.",
    )
    search.add_argument("query", nargs="?", metavar="QUERY", help="text to look for")
    search.add_argument("--jurisdiction", metavar="J", help="only versions of this jurisdiction")
    search.add_argument("--family", metavar="F", help="only versions of this document family")
    search.add_argument(
        "-k",
        type=int,
        default=10,
        help="candidates wanted (default: 10; substring ones can add more)",
    )
    search.add_argument(
        "--reindex", action="store_true", help="build (or rebuild) the search index first"
    )
    search.add_argument("--json", action="store_true", help="print the result as JSON")
    _paths(search, workspace=True)
    _profiles_option(search)
    search.set_defaults(func=cmd_search)
    # @@ parser: eval (issue 10) @@
    eval_ = commands.add_parser(
        "eval",
        help="the scorecard on the demonstration corpus",
        description="Score the diff (does each change match a manifest edit, are its offsets "
        "exact, is its caution right) and the verifier (a probe set whose outcomes the manifest "
        "decides) on the demonstration corpus, after checking its manifest against the bytes. "
        "Prints the scorecard; with --out, also writes eval-scorecard.json and .md there.",
    )
    eval_.add_argument(
        "--demo",
        type=Path,
        default=Path("corpus/demo"),
        help="demonstration corpus folder holding manifest.json (default: corpus/demo)",
    )
    eval_.add_argument(
        "--out", type=Path, help="write eval-scorecard.json and eval-scorecard.md into this folder"
    )
    eval_.add_argument("--json", action="store_true", help="print the scorecard as JSON")
    eval_.add_argument(
        "--truth",
        type=Path,
        help="also score the real corpus's pairings against this alignment truth (written by "
        "scripts/alignment_truth.py) and, with --out, write alignment-scorecard.json and .md",
    )
    _paths(eval_, workspace=True)
    eval_.set_defaults(func=cmd_eval)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except BrokenPipeError:
        # The reader went away (`workbench ... | head`): stop quietly, as Unix tools do. Caught
        # before OSError, of which it is one.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (WorkbenchError, OSError) as exc:
        # An argument that cannot be used (exit 2): a typed error, or a path the system refused
        # (no such file, a folder where a file goes, no permission), named with the system's words.
        if isinstance(exc, WorkbenchError) or not exc.filename:
            message = " ".join(str(exc).split())
        else:
            message = f"{exc.filename}: {exc.strerror}"
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
