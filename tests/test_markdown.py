"""core.markdown: the one renderer of agent text (§9.8), and its bounded cache (issue 33)."""

from __future__ import annotations

from unittest import mock

from core import markdown


def test_untrusted_markdown_stays_safe() -> None:
    html = markdown.render_markdown("<script>x</script> [a](javascript:alert(1)) [b](/t/x-1)")
    assert "<script>" not in html
    assert "javascript:" not in html.split('href="')[-1]
    assert '<a href="/t/x-1">b</a>' in html


def test_a_short_text_is_rendered_once_however_often_a_page_shows_it() -> None:
    markdown._rendered.cache_clear()
    text = "Deploy through **CI**, never by hand."
    with mock.patch.object(markdown._md, "render", wraps=markdown._md.render) as render:
        first = markdown.render_markdown(text)
        again = markdown.render_markdown(text)
    assert first == again == "<p>Deploy through <strong>CI</strong>, never by hand.</p>\n"
    assert render.call_count == 1


def test_a_long_text_is_not_kept() -> None:
    markdown._rendered.cache_clear()
    text = "word " * (markdown.CACHED_CHARS // 5 + 1)
    with mock.patch.object(markdown._md, "render", wraps=markdown._md.render) as render:
        markdown.render_markdown(text)
        markdown.render_markdown(text)
    assert render.call_count == 2
    assert markdown._rendered.cache_info().currsize == 0
