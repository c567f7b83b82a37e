"""Debian's LibreOffice, headless, as the second implementation that reads a Word redline (C23).

`convert_all` runs a batch in one soffice process: a Basic macro in a throw-away user profile
opens each .docx hidden once, accepts every tracked change (Writer's own
`.uno:AcceptAllTrackedChanges`) and stores the result as UTF-8 text, undoes that, rejects every
one (`.uno:RejectAllTrackedChanges`) and stores that text; or stores the document as PDF. Where
the process dies, the jobs not yet written run again in a fresh one. Nothing of the workbench is
imported here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from xml.sax.saxutils import escape

import pytest

SOFFICE = Path("/usr/bin/soffice")
PACKAGE = "libreoffice-writer"
# A file of Writer's windows (its comment window's): soffice builds such windows even for a hidden
# document, and the -nogui package leaves their .ui files out, so soffice aborted (status 134)
# where it built one, partway through a batch or at a change undone.
WRITER_UI = Path("/usr/lib/libreoffice/share/config/soffice.cfg/modules/swriter/ui/annotation.ui")

MACRO = """Sub ConvertAll(listFile As String)
    Dim iFile As Integer
    Dim sLine As String
    iFile = FreeFile
    Open listFile For Input As #iFile
    Do While Not EOF(iFile)
        Line Input #iFile, sLine
        If Len(sLine) > 0 Then
            Dim parts
            parts = Split(sLine, Chr(9))
            Convert(parts)
        End If
    Loop
    Close #iFile
    StarDesktop.terminate()
End Sub

Sub Convert(parts)
    Dim args(0) As New com.sun.star.beans.PropertyValue
    args(0).Name = "Hidden"
    args(0).Value = True
    oDoc = StarDesktop.loadComponentFromURL(ConvertToURL(parts(1)), "_blank", 0, args())
    Dim sargs(1) As New com.sun.star.beans.PropertyValue
    sargs(0).Name = "FilterName"
    If parts(0) = "pdf" Then
        sargs(0).Value = "writer_pdf_Export"
        sargs(1).Name = "Overwrite"
        sargs(1).Value = True
        oDoc.storeToURL(ConvertToURL(parts(2)), sargs())
    Else
        sargs(0).Value = "Text (encoded)"
        sargs(1).Name = "FilterOptions"
        sargs(1).Value = "UTF8,LF,,"
        oFrame = oDoc.getCurrentController().getFrame()
        oDisp = createUnoService("com.sun.star.frame.DispatchHelper")
        oDisp.executeDispatch(oFrame, ".uno:AcceptAllTrackedChanges", "", 0, Array())
        oDoc.storeToURL(ConvertToURL(parts(2)), sargs())
        oUndo = oDoc.getUndoManager()
        Do While oUndo.isUndoPossible()
            oUndo.undo()
        Loop
        oDisp.executeDispatch(oFrame, ".uno:RejectAllTrackedChanges", "", 0, Array())
        oDoc.storeToURL(ConvertToURL(parts(3)), sargs())
    End If
    oDoc.close(True)
End Sub
"""

Mode = Literal["redline", "pdf"]


@dataclass(frozen=True, slots=True)
class Job:
    """One document read once: its accept-all and reject-all texts (`redline`, two targets in
    that order) or its pages (`pdf`, one target)."""

    mode: Mode
    source: Path
    targets: tuple[Path, ...]

    @property
    def written(self) -> bool:
        return all(target.is_file() for target in self.targets)


def soffice() -> Path:
    """Debian's soffice with Writer's windows (`WRITER_UI`); installed with apt-get when missing
    and we are root, else a failure."""
    if not WRITER_UI.exists() and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, capture_output=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", PACKAGE],
            check=True,
            env=env,
            capture_output=True,
        )
    if not SOFFICE.exists() or not WRITER_UI.exists():
        pytest.fail(
            f"{SOFFICE} or Writer's {WRITER_UI.name} is missing: run 'make libreoffice'",
            pytrace=False,
        )
    return SOFFICE


def _run(binary: Path, profile: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(binary),
            "--headless",
            "--norestore",
            f"-env:UserInstallation={profile.as_uri()}",
            *arguments,
        ],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=1800,
    )


def _profile(binary: Path, work: Path) -> Path:
    """A new profile holding the batch macro (after one short start that makes the profile:
    LibreOffice writes its default Basic library over any it finds in a new profile)."""
    profile = work / "profile"
    _run(binary, profile, "--terminate_after_init").check_returncode()
    module = profile / "user" / "basic" / "Standard" / "Module1.xba"
    module.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" '
        '"module.dtd">\n<script:module xmlns:script="http://openoffice.org/2000/script" '
        f'script:name="Module1" script:language="StarBasic">{escape(MACRO)}</script:module>\n',
        encoding="utf-8",
    )
    return profile


def convert_all(jobs: list[Job], work: Path) -> list[str]:
    """Run every job, in order, in as few soffice processes as it takes; returns one line per
    process (its exit status, how many jobs it wrote, the last one, the end of its stderr, which
    is kept whole in `work`).

    A process that exits with jobs unwritten is followed by a fresh one for those jobs; when two
    processes in a row write none, the test fails naming the job both died on (a document
    LibreOffice cannot take), with every process's line."""
    binary = soffice()
    profile = _profile(binary, work)
    listing = work / "jobs.tsv"
    pending, stalled = list(jobs), 0
    runs: list[str] = []
    while pending:
        # CAUTION: a process that dies leaves its lock file (`.~lock.NAME#`) beside the document
        # it had open, and a process of another profile that opens that document waits for good
        # on a "document in use" dialog nobody answers: the documents are ours, so are the locks.
        for job in pending:
            (job.source.parent / f".~lock.{job.source.name}#").unlink(missing_ok=True)
        listing.write_text(
            "".join(
                "\t".join(map(str, (job.mode, job.source, *job.targets))) + "\n" for job in pending
            ),
            encoding="utf-8",
        )
        # CAUTION: the exit status alone decides nothing: after a PDF export, soffice 7.4 can
        # abort while shutting down (status 134) with every file written. Each job's outputs count.
        done = _run(binary, profile, f'macro:///Standard.Module1.ConvertAll("{listing}")')
        left = [job for job in pending if not job.written]
        written = len(pending) - len(left)
        last = next((j.source.name for j in reversed(pending) if j.written), "none")
        stderr = work / f"soffice-{len(runs) + 1}.stderr"
        stderr.write_text(done.stderr, encoding="utf-8")
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        runs.append(
            f"soffice exit status {done.returncode}: {written} of {len(pending)} jobs written, "
            f"the last {last}; stderr ({stderr}): {tail or '(empty)'}"
        )
        stalled = 0 if written else stalled + 1
        if stalled == 2:
            pytest.fail(
                f"LibreOffice wrote nothing from {left[0].source} on: " + "; ".join(runs),
                pytrace=False,
            )
        pending = left
    return runs
