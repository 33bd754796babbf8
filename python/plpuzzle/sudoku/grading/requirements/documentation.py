"""Documentation: a file beside the program that documents it.

The assignment asks for a documentation file (HTML, PDF or plain text)
handed in with the program. Any file of the hand-in whose name ends so
counts, at any depth, except what archivers leave (__MACOSX, ._ files);
one that intake refused (too large) is named with why it was not taken.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from plpuzzle.sandbox.workspace import SubmissionFiles

#: How a documentation file's name ends (compared in lower case).
SUFFIXES = (".html", ".htm", ".pdf", ".txt", ".md", ".markdown", ".rst", ".odt", ".docx")


@dataclass
class Documentation:
    """The documentation files of a hand-in: (name, bytes), and those refused."""

    files: list[tuple[str, int]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    @property
    def present(self) -> bool:
        return bool(self.files)


def _litter(name: str) -> bool:
    return any(part == "__MACOSX" or part.startswith("._") for part in name.split("/"))


def is_documentation(name: str) -> bool:
    return name.lower().endswith(SUFFIXES) and not _litter(name)


def documentation(files: SubmissionFiles) -> Documentation:
    """The hand-in's documentation files, largest share of evidence first
    (by name)."""
    found = sorted((n, len(data)) for n, data in files.files if is_documentation(n))
    refused = [r for r in files.refused if is_documentation(r.split(": ", 1)[0])]
    return Documentation(found, refused)
