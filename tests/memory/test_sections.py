"""The section rules of §8 Documents as tables, and a property over random documents."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.sections import (
    Section,
    anchor_of,
    find_section,
    replace_section,
    section_text,
    sections,
    unified_diff,
)

ANCHOR_OF = [
    ("Gift cards", "gift-cards"),
    ("C++ & Go: a *quick* tour!", "c-go-a-quick-tour"),
    ("  spaced   out  ", "spaced-out"),
    ("dash -- and - spaces", "dash-and-spaces"),
    ("--leading and trailing--", "leading-and-trailing"),
    ("snake_case stays", "snake_case-stays"),
    ("Version 2.1", "version-21"),
    ("Подарочные карты", "подарочные-карты"),
    ("Größe ändern", "größe-ändern"),
    ("हिन्दी शीर्षक", "हिन्दी-शीर्षक"),  # combining vowel signs stay with their letters
    ("", "section"),
    ("!!! ???", "section"),
    ("---", "section"),
]


@pytest.mark.parametrize(("title", "anchor"), ANCHOR_OF)
def test_anchor_of(title: str, anchor: str) -> None:
    assert anchor_of(title) == anchor


def anchors(markdown: str) -> list[str]:
    return [s.anchor for s in sections(markdown)]


ANCHORS = [
    ("repeats are numbered", "# Intro\n## Intro\n## Intro\n", ["intro", "intro-2", "intro-3"]),
    ("empty titles", "#\n## \n### ###\n", ["section", "section-2", "section-3"]),
    (
        "a later literal anchor never takes an earlier generated one",
        "## A\n## A\n## A-2\n",
        ["a", "a-2", "a-2-2"],
    ),
    ("an earlier literal anchor is skipped", "## A-2\n## A\n## A\n", ["a-2", "a", "a-3"]),
    (
        "more repeats before a literal one",
        "## A\n## A\n## A\n## A-2\n",
        ["a", "a-2", "a-3", "a-2-2"],
    ),
    ("anchors by punctuation collide too", "## Q&A\n## QA\n", ["qa", "qa-2"]),
]


@pytest.mark.parametrize(
    ("markdown", "expected"), [c[1:] for c in ANCHORS], ids=[c[0] for c in ANCHORS]
)
def test_anchors(markdown: str, expected: list[str]) -> None:
    assert anchors(markdown) == expected


HEADINGS = [
    ("a hashtag is not a heading", "#hashtag\n# Real\n", [(1, "Real")]),
    ("seven hashes are not a heading", "####### x\n###### six\n", [(6, "six")]),
    ("up to three spaces of indentation", "   ## three\n    ## four\n", [(2, "three")]),
    ("a tab after the hashes", "#\tTabbed\n", [(1, "Tabbed")]),
    ("closing hashes removed", "## Title ##\n### Other #####   \n", [(2, "Title"), (3, "Other")]),
    ("a hash glued to the text stays", "## C#\n## Title#\n", [(2, "C#"), (2, "Title#")]),
    ("only closing hashes", "## ###\n", [(2, "")]),
    ("a heading with no text", "##\n", [(2, "")]),
    ("inside ``` code", "```\n# not\n```\n# yes\n", [(1, "yes")]),
    ("inside ~~~ code", "~~~ python\n# not\n~~~\n# yes\n", [(1, "yes")]),
    ("a shorter fence does not close", "````\n```\n# not\n````\n# yes\n", [(1, "yes")]),
    ("a longer fence closes", "```\n# not\n`````\n# yes\n", [(1, "yes")]),
    ("the other character does not close", "```\n~~~\n# not\n```\n# yes\n", [(1, "yes")]),
    ("a closing fence takes no info string", "```\n```x\n# not\n```\n# yes\n", [(1, "yes")]),
    ("an unclosed fence runs to the end", "# yes\n```\n# not\n## not\n", [(1, "yes")]),
    ("two backticks are no fence", "``\n# yes\n", [(1, "yes")]),
    ("a backtick in the info string is no fence", "``` a`b\n# yes\n", [(1, "yes")]),
    ("an indented fence", "   ~~~\n# not\n   ~~~\n# yes\n", [(1, "yes")]),
    ("CRLF lines", "# One\r\ntext\r\n## Two ##\r\n", [(1, "One"), (2, "Two")]),
]


@pytest.mark.parametrize(
    ("markdown", "expected"), [c[1:] for c in HEADINGS], ids=[c[0] for c in HEADINGS]
)
def test_headings(markdown: str, expected: list[tuple[int, str]]) -> None:
    assert [(s.level, s.title) for s in sections(markdown)] == expected


NESTED = """\
preamble
# Guide
intro
## Install
steps
### Linux
apt
## Use
run
###### Deep
end"""


def test_ranges_nest_and_the_deepest_level_ends_the_document() -> None:
    assert sections(NESTED) == [
        Section("guide", "Guide", 1, 1, 11),
        Section("install", "Install", 2, 3, 7),
        Section("linux", "Linux", 3, 5, 7),
        Section("use", "Use", 2, 7, 11),
        Section("deep", "Deep", 6, 9, 11),
    ]


def test_a_higher_level_ends_a_deeper_section() -> None:
    assert [(s.anchor, s.start, s.end) for s in sections("### a\nx\n# b\ny\n")] == [
        ("a", 0, 2),
        ("b", 2, 4),
    ]


def test_text_before_the_first_heading_belongs_to_no_section() -> None:
    assert sections("just text\n") == []
    assert sections("") == []


def test_section_text_and_find_section() -> None:
    assert section_text(NESTED, "install") == "## Install\nsteps\n### Linux\napt\n"
    assert section_text(NESTED, "deep") == "###### Deep\nend"
    assert find_section(NESTED, "linux") == Section("linux", "Linux", 3, 5, 7)
    assert find_section(NESTED, "nowhere") is None


@pytest.mark.parametrize("call", [section_text, lambda md, a: replace_section(md, a, "x")])
def test_an_unknown_anchor_is_a_key_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(KeyError):
        call(NESTED, "nowhere")


DOC = "top\n# A\na body\n## A1\nchild\n# B\nb body\n"

REPLACE = [
    (
        "body only: the heading stays",
        DOC,
        "b",
        "new b",
        "top\n# A\na body\n## A1\nchild\n# B\nnew b\n",
    ),
    (
        "a leading heading replaces the heading too",
        DOC,
        "b",
        "# Bee\nnew b\n",
        "top\n# A\na body\n## A1\nchild\n# Bee\nnew b\n",
    ),
    (
        "a parent's body holds its children",
        DOC,
        "a",
        "only this\n",
        "top\n# A\nonly this\n# B\nb body\n",
    ),
    (
        "a parent with its heading",
        DOC,
        "a",
        "## Demoted\nx",
        "top\n## Demoted\nx\n# B\nb body\n",
    ),
    ("a child only", DOC, "a1", "kid", "top\n# A\na body\n## A1\nkid\n# B\nb body\n"),
    ("an empty body", DOC, "a1", "", "top\n# A\na body\n## A1\n# B\nb body\n"),
    (
        "the last section keeps the missing final newline",
        "# A\na\n# B\nb",
        "b",
        "new\n",
        "# A\na\n# B\nnew",
    ),
    ("a heading with no newline gets one", "# A", "a", "body", "# A\nbody"),
    ("a hashtag is body text", "# A\nx\n", "a", "#tag\n", "# A\n#tag\n"),
    ("CRLF outside the section is kept", "# A\r\nx\r\n# B\r\n", "a", "y", "# A\r\ny\n# B\r\n"),
]


@pytest.mark.parametrize(
    ("markdown", "anchor", "new_text", "expected"),
    [c[1:] for c in REPLACE],
    ids=[c[0] for c in REPLACE],
)
def test_replace_section(markdown: str, anchor: str, new_text: str, expected: str) -> None:
    assert replace_section(markdown, anchor, new_text) == expected


def test_unified_diff() -> None:
    assert unified_diff(DOC, DOC, from_label="v1", to_label="v2") == []
    assert unified_diff("a\nb\n", "a\nc\n", from_label="v1", to_label="v2") == [
        "--- v1",
        "+++ v2",
        "@@ -1,2 +1,2 @@",
        " a",
        "-b",
        "+c",
    ]


LINES = st.one_of(
    st.sampled_from(["```", "````", "~~~", "~~~~", "``` py", "   ```", "", "text", "#tag"]),
    st.builds(
        lambda indent, hashes, title: f"{indent}{'#' * hashes} {title}",
        st.sampled_from(["", " ", "   ", "    "]),
        st.integers(1, 7),
        st.sampled_from(["A", "A-2", "", "Ünï cödé", "#", "x ##"]),
    ),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=12),
)


@given(st.lists(LINES, max_size=30), st.booleans())
def test_sections_hold_for_any_document(lines: list[str], trailing: bool) -> None:
    markdown = "\n".join(lines) + ("\n" if trailing else "")
    found = sections(markdown)
    total = len(markdown.split("\n")) - (1 if markdown.endswith("\n") or not markdown else 0)
    assert len({s.anchor for s in found}) == len(found)
    for s in found:
        assert 0 <= s.start < s.end <= total
        assert 1 <= s.level <= 6
        assert replace_section(markdown, s.anchor, section_text(markdown, s.anchor)) == markdown
    for a in found:
        for b in found:
            if a is not b and a.level == b.level:
                assert a.end <= b.start or b.end <= a.start
