"""Machine-readable reports shared by every puzzle: JUnit XML for CI systems.

The JUnit dialect is the one most CI servers read (Jenkins, GitLab, GitHub
actions' test reporters): one <testsuite> with <testcase> elements that may
hold a <failure>, <error> or <skipped> child, and <properties>.

Messages and details can hold a solver's own text. ElementTree escapes
markup, but writes characters that XML 1.0 does not allow at all (a NUL,
an escape sequence) as they are, which makes the whole report unreadable
to a CI server; every text goes through untrusted.xml_text first.
"""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from plpuzzle.untrusted import xml_text

Outcome = Literal["passed", "failure", "error", "skipped"]


@dataclass
class JUnitCase:
    """One test case of a JUnit report."""

    name: str
    classname: str
    seconds: float
    outcome: Outcome = "passed"
    message: str = ""
    details: str = ""
    properties: dict[str, str] = field(default_factory=dict)


def junit_xml(suite: str, cases: list[JUnitCase], seconds: float) -> str:
    """The report as an XML document (a string, with declaration)."""
    counts = {o: sum(1 for c in cases if c.outcome == o) for o in ("failure", "error", "skipped")}
    root = ET.Element("testsuites")
    node = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(cases)),
        failures=str(counts["failure"]),
        errors=str(counts["error"]),
        skipped=str(counts["skipped"]),
        time=f"{seconds:.3f}",
        timestamp=datetime.now(UTC).isoformat(timespec="seconds"),
        hostname=socket.gethostname(),
    )
    for case in cases:
        element = ET.SubElement(
            node,
            "testcase",
            name=xml_text(case.name),
            classname=xml_text(case.classname),
            time=f"{case.seconds:.3f}",
        )
        if case.properties:
            props = ET.SubElement(element, "properties")
            for key, value in case.properties.items():
                ET.SubElement(props, "property", name=xml_text(key), value=xml_text(value))
        if case.outcome != "passed":
            child = ET.SubElement(element, case.outcome, message=xml_text(case.message))
            child.text = xml_text(case.details) or None
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
