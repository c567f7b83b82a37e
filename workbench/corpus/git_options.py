"""The options of `corpus add --from-git`, checked before git is run (`corpus.git`).

Every problem is found before anything is read or written, and reported in one line
(`AddError`): one problem as itself, several as "N problems: ...". `--at-head` reads HEAD's tree
alone, so a commit range (`--since`, `--until`) cannot go with it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from workbench.bounds import BudgetedPattern, compile_budgeted
from workbench.corpus.provenance import name_problem
from workbench.errors import AddError

DEFAULT_FAMILY_FROM = r"([^/]+)\.[^./]+$|[^/]+$"  # the file name without its last extension
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _check_date(option: str, value: str | None) -> None:
    if value is None:
        return
    try:
        if not _DATE.fullmatch(value):
            raise ValueError(value)
        dt.date.fromisoformat(value)
    except ValueError:
        raise AddError(f"{option}: expected a date YYYY-MM-DD, got {value[:80]!r}") from None


def family_pattern(family_from: str | None) -> BudgetedPattern:
    """--family-from compiled (the default: the file name without its last extension); each
    search of a path runs under the pattern budget (`bounds.compile_budgeted`), an `AddError`
    over it."""
    return compile_budgeted(family_from or DEFAULT_FAMILY_FROM, "--family-from", AddError)


def check_options(
    jurisdiction: str,
    family_prefix: str,
    official: bool | None,
    since: str | None,
    until: str | None,
    globs: Sequence[str],
    at_head: bool = False,
) -> None:
    """Every problem of the options, in one AddError (module docstring); None when there is none."""
    problems = []
    if at_head and (ranged := [o for o, v in (("--since", since), ("--until", until)) if v]):
        problems.append(f"--at-head reads HEAD's tree alone; do not also give {', '.join(ranged)}")
    if problem := name_problem(jurisdiction):
        problems.append(
            f"--jurisdiction: expected a name a version id can carry, got {jurisdiction[:80]!r} "
            f"({problem})"
        )
    if family_prefix and (problem := name_problem(family_prefix + "x")):
        problems.append(
            f"--family-prefix: {family_prefix[:80]!r} cannot open a family name ({problem})"
        )
    if official is None:
        problems.append("--official/--transcription: missing (no default: say which)")
    if not globs:
        problems.append("--paths: missing (a glob of the repository's files to add)")
    for option, value in (("--since", since), ("--until", until)):
        try:
            _check_date(option, value)
        except AddError as exc:
            problems.append(str(exc))
    if since and until and since > until and not problems:
        problems.append(f"--since {since} is after --until {until}")
    if problems:
        raise AddError(
            problems[0]
            if len(problems) == 1
            else f"{len(problems)} problems: " + "; ".join(problems)
        )
