"""The XML vocabularies the XML extractor reads (C4): which element names open a passage, are
labels, margin furniture, metadata or front matter, and which root namespaces are read by name; part
of the extractor's rule, so changing one changes its version."""

from __future__ import annotations

# Local names (any namespace) of the elements that open a passage: USLM levels and text blocks,
# Federal Register notice parts and tables, D.C. Code paragraphs, texts and history annotations.
BLOCK_ELEMENTS = frozenset(
    {
        "title",
        "subtitle",
        "chapter",
        "subchapter",
        "part",
        "subpart",
        "division",
        "subdivision",
        "article",
        "section",
        "subsection",
        "paragraph",
        "subparagraph",
        "clause",
        "subclause",
        "item",
        "subitem",
        "subsubitem",
        "level",
        "appropriations",
        "heading",
        "subheading",
        "chapeau",
        "content",
        "continuation",
        "p",
        "elided",
        "longTitle",
        "docTitle",
        "officialTitle",
        "enactingFormula",
        "resolvingClause",
        "preamble",
        "recital",
        "action",
        "actionDescription",
        "legislativeHistory",
        "note",
        "notes",
        "statement",
        "authority",
        "wordsOfIssuance",
        "signatures",
        "signature",
        "attestation",
        "endorsement",
        "endMarker",
        "toc",
        "groupItem",
        "referenceItem",
        "headingItem",
        "table",
        "caption",
        "tr",
        "list",
        "listItem",
        "footnote",
        "figure",
        "para",
        "text",
        "annotations",
        "annotation",
        "reason",
    }
)
# Every child of these is a block too (cover-page lines, signature lines), except SPACED_ELEMENTS.
BLOCK_PARENTS = frozenset({"preface", "endorsement", "signature", "notes"})
# Inline elements kept apart from the text before them by one space ("H. R." "255", table cells).
SPACED_ELEMENTS = frozenset({"type", "docNumber", "td", "th", "br"})
# Blocks that never continue a number's line: a table is not the text of the number before it.
UNJOINABLE_ELEMENTS = frozenset({"table", "toc"})
# Publication furniture that interrupts running text (Statutes at Large margin notes and page
# numbers, Federal Register thumb-index ears).
MARGINAL_ELEMENTS = frozenset({"sidenote", "page", "ear"})
METADATA_ELEMENTS = frozenset({"meta"})
HIDDEN_DISPLAY = frozenset({"no", "false"})

# Root namespaces the vocabulary above was written for (USLM, the D.C. Council's code). A document in
# one of them is read by the vocabulary alone, exactly as version 1 read it: there an unlisted
# element is inline, and a USLM `label` is a table-of-contents caption, not a number.
VOCABULARY_NAMESPACES = frozenset(
    {
        "http://schemas.gpo.gov/xml/uslm",
        "http://xml.house.gov/schemas/uslm/1.0",
        "https://code.dccouncil.us/schemas/dc-library",
    }
)
# Every other document is read from its own structure. These names are case-folded local names.
LABEL_ELEMENTS = frozenset({"num", "label"})
# Blocks that hold running text: every element inside one that the vocabulary does not name is
# inline, even with no text between (`<Text><DefinedTermEn>NAFTA</DefinedTermEn><Repealed>`).
TEXT_BLOCKS = frozenset({"text", "p", "content", "chapeau", "continuation", "caption"})
# CALS (OASIS exchange) table rows and cells, as Justice Canada writes them: a row is a line,
# its cells kept apart by one space (as `tr` and `td` are).
TABLE_ROWS = frozenset({"row"})
TABLE_CELLS = frozenset({"entry"})
# Front matter of which only the title block is read (Justice Canada's `Identification`): the
# rest of it is catalogue data in fields (bill history dates as YYYY, MM, DD; parliament, session
# and regnal year; chapter and order numbers; the running head) that the publisher's stylesheet
# composes into words, not words a reader cites.
FRONT_MATTER_ELEMENTS = frozenset({"identification"})
FRONT_MATTER_READ = frozenset(
    {"longtitle", "shorttitle", "instrumentnumber", "enablingauthority", "readernote"}
)
