"""The documentation's links hold, and the README stays short.

Every relative link and image in README.md and docs/**/*.md must point to a file or folder of this
checkout, and its ``#anchor``, where it has one, to a heading of the target markdown file (GitHub's
slugs) or to an ``<a id=...>`` there.  markdown-it-py parses the files, so links inside code are
text, as on GitHub; web addresses are not checked.  README.md is the five-minute read: at most 120
lines; the depth lives in docs/.
"""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 120
PARSER = MarkdownIt("commonmark").enable("table")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*?(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every link and image outside code."""
    found = []
    for block in PARSER.parse(text):
        for child in block.children or []:
            target = child.attrGet("href") if child.type == "link_open" else child.attrGet("src")
            if child.type in ("link_open", "image") and target is not None:
                found.append((block.map[0] + 1 if block.map else 0, target))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: lowercased, every character that is not a letter, digit,
    space, hyphen or underscore removed, spaces as hyphens."""
    kept = "".join(c for c in heading.strip().lower() if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def heading_text(inline) -> str:
    """A heading's text as GitHub slugs it: code and link text kept, markup dropped."""
    return "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))


def anchors(path: Path) -> set[str]:
    """The anchors a markdown file offers: its headings' slugs (repeats numbered -1, -2, ... as on
    GitHub) and its explicit HTML anchors."""
    text = path.read_text(encoding="utf-8")
    tokens = PARSER.parse(text)
    found, seen = set(), {}
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open":
            base = slug(heading_text(inline))
            found.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return found | set(HTML_ANCHOR.findall(text))


def broken(path: Path) -> list[str]:
    problems = []
    for number, target in links(path.read_text(encoding="utf-8")):
        if not target or EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / unquote(file_part)).resolve() if file_part else path
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        if not destination.exists():
            problems.append(f"{where} (no such file)")
        elif anchor and destination.is_file() and destination.suffix == ".md":
            if unquote(anchor).lower() not in anchors(destination):
                problems.append(f"{where} (no heading or anchor '#{anchor}' in {destination.name})")
    return problems


def test_slugs_follow_github(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Reproducing the paper's tables\n## Run `isarcasm` — fast\n## **Your own data**, end to end\n"
                    "## Part\n## Part\n<a id=\"here\"></a>\n")
    assert anchors(page) == {"reproducing-the-papers-tables", "run-isarcasm--fast", "your-own-data-end-to-end",
                             "part", "part-1", "here"}


def test_links_are_found_outside_code():
    text = ("[a](docs/x.md) `[b](not/a/link.md)` ![c](img.png \"title\")\n\n"
            "```\n[d](inside/fence.md)\n```\n\n[e][ref]\n\n[ref]: docs/y.md#part\n")
    assert [target for _, target in links(text)] == ["docs/x.md", "img.png", "docs/y.md#part"]


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    problems = broken(path)
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; keep it at most {README_MAX_LINES} (depth: docs/)"
