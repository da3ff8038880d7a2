"""The one markdown renderer for agent text (§9.8): raw HTML off, only safe link targets."""

from __future__ import annotations

from functools import lru_cache

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from core.caches import kept

_SAFE_SCHEMES = ("http:", "https:", "mailto:")


def _validate_link(url: str) -> bool:
    target = url.strip().lower()
    if target.startswith(("#", "/")) and not target.startswith("//"):
        return True
    return target.startswith(_SAFE_SCHEMES)


_md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_md.enable("table").enable("strikethrough")
_md.validateLink = _validate_link


# The same texts are rendered again on every request (a page's notes, decisions, reports
# and comments, ~100 of them on Docs & rules: a third of its time at a year of data, issue
# 33), and a text's HTML depends on the text alone. Short texts are kept, a bounded number:
# at most CACHED × CACHED_CHARS of source, their HTML a little more.
CACHED = 1024
CACHED_CHARS = 1000


@kept("a markdown text of at most CACHED_CHARS characters")
@lru_cache(maxsize=CACHED)
def _rendered(text: str) -> str:
    return _md.render(text)


def render_markdown(text: str) -> SafeString:
    """HTML of untrusted markdown: raw HTML is shown as text, unsafe links are not links."""
    html = _rendered(text) if len(text) <= CACHED_CHARS else _md.render(text)
    return mark_safe(html)  # noqa: S308 - markdown-it escapes; html is off


def render_markdown_anchored(
    text: str, anchors: list[str] | tuple[str, ...] = (), *, shift: int = 0
) -> SafeString:
    """render_markdown, with the top-level ATX headings given these ids in document order
    (the caller's section anchors, e.g. memory.sections) and every heading `shift` levels
    lower (at most h6), so it sits under the page's own headings; raw HTML stays off."""
    tokens = _md.parse(text)
    wanted = iter(anchors)
    for token in tokens:
        if token.type in ("heading_open", "heading_close") and shift:
            token.tag = f"h{min(6, int(token.tag[1]) + shift)}"
        if token.type == "heading_open" and token.level == 0 and token.markup.startswith("#"):
            anchor = next(wanted, None)
            if anchor is not None:
                token.attrSet("id", anchor)
    return mark_safe(_md.renderer.render(tokens, _md.options, {}))  # noqa: S308 - html is off
