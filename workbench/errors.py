"""Typed errors for every bad input the workbench can meet (C14): one root, `WorkbenchError`, and
leaves that also subclass the built-in a caller would expect, each message naming the file, field or
offset at fault."""

from __future__ import annotations


class WorkbenchError(Exception):
    """Root of every error the workbench raises on purpose."""

    def __str__(self) -> str:
        # CAUTION: the CLI prints this as one line; a newline in a message would split it. Format
        # from BaseException, not super(): KeyError.__str__ (next in a leaf's MRO) quotes its message.
        return " ".join(BaseException.__str__(self).split())


class ProvenanceError(WorkbenchError, ValueError):
    """A provenance record is missing, malformed, or names something we refuse to admit."""


class ChecksumMismatch(WorkbenchError, ValueError):
    """Bytes on disk do not hash to the SHA-256 (or byte count) their record promises."""


class CatalogueError(WorkbenchError, ValueError):
    """The catalogue file is malformed, or its own checksum does not match."""


class UnsafePath(WorkbenchError, ValueError):
    """A path escapes the folder it must stay in (`..`, absolute, or a symlink out)."""


class TextDecodeError(WorkbenchError, ValueError):
    """A document's bytes are not text the workbench can index (bad UTF-8, NUL, empty, ...)."""


class ExtractionError(WorkbenchError, ValueError):
    """An extractor could not turn an artefact into text (malformed XML, unknown media type)."""


class OcrUnavailable(ExtractionError):
    """A page needs OCR and the engine, or its data for the document's language, is missing."""


class OcrEngineMismatch(ExtractionError):
    """This machine's OCR engine build is not the one the run requires (a Dask worker's)."""


class CorpusChanged(WorkbenchError, ValueError):
    """A version id already held reappeared with different bytes or a different text hash."""


class VersionNotFound(WorkbenchError, KeyError):
    """No version with that id is held in the workspace."""


class FamilyNotFound(WorkbenchError, KeyError):
    """No family with that name is held in the workspace."""


class AppendOnlyViolation(WorkbenchError, PermissionError):
    """Something tried to update or delete a row of an append-only table."""


class WorkspaceError(WorkbenchError, OSError):
    """The workspace database cannot be opened or is not a workbench workspace."""


class FetchError(WorkbenchError, OSError):
    """A catalogued file could not be brought into the store (missing in mirror, download failed)."""


class VerdictError(WorkbenchError, ValueError):
    """A reviewer's answer does not fit the verdict log (unknown answer, not doubtful, no reversal)."""


class AuditError(WorkbenchError, ValueError):
    """A confident audit refused: a bad sample request, or a bound the answers cannot support."""


class ChangeNotFound(WorkbenchError, KeyError):
    """No change with that id in the diffs of the held versions."""


class SearchQueryError(WorkbenchError, ValueError):
    """A search query is empty, too long, has nothing to search for, or asks for no candidates."""


class JurisdictionNotFound(WorkbenchError, KeyError):
    """No held version belongs to that jurisdiction."""


class CitationError(WorkbenchError, ValueError):
    """A citation, a citations file or one of its lines is malformed (a field missing or mistyped)."""


class EngineOptionError(WorkbenchError, ValueError):
    """`--workers` or `--scheduler` is malformed, or both were given."""


class ClusterError(WorkbenchError, OSError):
    """The Dask cluster cannot be reached, lost every worker, or runs different workbench code."""


class FamilyTaskFailed(WorkbenchError, RuntimeError):
    """A family's task of corpus-wide work failed; the message names the family and the file."""


class NoteError(WorkbenchError, ValueError):
    """A note's front matter or quoted claims are malformed (names the note, field or line)."""


class CheckerError(WorkbenchError, RuntimeError):
    """The out-of-process quote check could not run or returned something other than its result."""


class LedgerError(WorkbenchError, OSError):
    """The run ledger cannot be opened or is not a workbench run ledger."""


class QuotesRegisterError(WorkbenchError, ValueError):
    """A source report's quotes register is malformed, or an extract is not in its snapshot."""


class ExtractNotFound(QuotesRegisterError):
    """An extract the exact search does not find in the report's snapshot: a refusal (exit 1),
    not an unusable argument."""


class EvalManifestError(WorkbenchError, ValueError):
    """The demo corpus's manifest is missing, malformed, or does not match the demo files' bytes."""


class AddError(WorkbenchError, ValueError):
    """Files to add, or what was said about them (an option, a manifest cell), cannot be used."""


class ProfileError(WorkbenchError, ValueError):
    """A numbering profile file that cannot be read: bad TOML, an unknown key, a bad regex."""


class BundleError(WorkbenchError, ValueError):
    """A bundle that cannot be written or read: not a zip, an unsafe member name, a bad descriptor."""


class RedlineError(WorkbenchError, ValueError):
    """A redline or change table cannot be made as asked: an unknown change kind or export
    format, or an output path that is a folder, not a regular file, or in a missing folder."""


class RedlineRefused(WorkbenchError, ValueError):
    """A Word redline that does not read back as the held versions it names, or names none."""


class ExportFormatError(WorkbenchError, ValueError):
    """An export format the workbench does not write (it writes csv and parquet)."""


class ChartError(WorkbenchError, ValueError):
    """A chart cannot be drawn offline: its data names a URL, or vl-convert rejects its spec."""


class TruthFileError(WorkbenchError, ValueError):
    """A truth file cannot be read: missing, not strict JSON, or not its script's shape."""


class AmendmentError(WorkbenchError, ValueError):
    """A law cannot be read for amendment instructions (not a held law, no effective date, no
    drafting style for its jurisdiction), or a drafting style file is malformed."""


class AsOfError(WorkbenchError, ValueError):
    """A text cannot be given as of a date: the date is not a calendar date, no release of the
    family was published on or before it, or the version is named both by id and by date."""


class ShowError(WorkbenchError, ValueError):
    """A span that cannot be shown as a page image: a version that is not a PDF, a span out of
    range or with no character on a page, an artefact whose re-extraction is not the held text."""


class LabError(WorkbenchError, ValueError):
    """Notebook copies cannot be made: no template, a template without a parameters cell, a
    destination inside the templates' folder, or no JupyterLab to start."""
