"""Debian's LibreOffice, headless, as the second implementation that reads a Word redline (C23).

`convert_all` runs a batch in one soffice process: a Basic macro in a throw-away user profile
opens each .docx hidden, accepts every tracked change or rejects every one (Writer's own
`.uno:AcceptAllTrackedChanges` / `.uno:RejectAllTrackedChanges`), and stores the result as UTF-8
text, or stores the document as PDF. Where the process dies, the jobs not yet written run again in
a fresh one. Nothing of the workbench is imported here.
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
PACKAGE = "libreoffice-writer-nogui"

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
            Convert(parts(0), parts(1), parts(2))
        End If
    Loop
    Close #iFile
    StarDesktop.terminate()
End Sub

Sub Convert(sMode As String, sIn As String, sOut As String)
    Dim args(0) As New com.sun.star.beans.PropertyValue
    args(0).Name = "Hidden"
    args(0).Value = True
    oDoc = StarDesktop.loadComponentFromURL(ConvertToURL(sIn), "_blank", 0, args())
    oFrame = oDoc.getCurrentController().getFrame()
    oDisp = createUnoService("com.sun.star.frame.DispatchHelper")
    If sMode = "accept" Then oDisp.executeDispatch(oFrame, ".uno:AcceptAllTrackedChanges", "", 0, Array())
    If sMode = "reject" Then oDisp.executeDispatch(oFrame, ".uno:RejectAllTrackedChanges", "", 0, Array())
    Dim sargs(1) As New com.sun.star.beans.PropertyValue
    sargs(0).Name = "FilterName"
    If sMode = "pdf" Then
        sargs(0).Value = "writer_pdf_Export"
        sargs(1).Name = "Overwrite"
        sargs(1).Value = True
    Else
        sargs(0).Value = "Text (encoded)"
        sargs(1).Name = "FilterOptions"
        sargs(1).Value = "UTF8,LF,,"
    End If
    oDoc.storeToURL(ConvertToURL(sOut), sargs())
    oDoc.close(True)
End Sub
"""

Mode = Literal["accept", "reject", "pdf"]


@dataclass(frozen=True, slots=True)
class Job:
    mode: Mode
    source: Path
    target: Path


def soffice() -> Path:
    """Debian's soffice; installed with apt-get when missing and we are root, else a failure."""
    if not SOFFICE.exists() and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, capture_output=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", PACKAGE],
            check=True,
            env=env,
            capture_output=True,
        )
    if not SOFFICE.exists():
        pytest.fail(f"{SOFFICE} is missing: run 'make libreoffice'", pytrace=False)
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
            "".join(f"{job.mode}\t{job.source}\t{job.target}\n" for job in pending),
            encoding="utf-8",
        )
        # CAUTION: the exit status alone decides nothing: after a PDF export, soffice 7.4 can
        # abort while shutting down (status 134) with every file written. Each job's outputs count.
        done = _run(binary, profile, f'macro:///Standard.Module1.ConvertAll("{listing}")')
        left = [job for job in pending if not job.target.is_file()]
        written = len(pending) - len(left)
        last = next((j.target.name for j in reversed(pending) if j.target.is_file()), "none")
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
