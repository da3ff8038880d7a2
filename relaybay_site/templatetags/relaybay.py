"""Template helpers every page uses: hashed static URLs, safe markdown, the Settings tabs."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from core import display
from core.markdown import render_markdown
from core.static import static_url
from relaybay_site.settings_pages import settings_sections

register = template.Library()


@register.simple_tag(name="static")
def static_tag(path: str) -> str:
    return static_url(path)


@register.filter(name="markdown")
def markdown_filter(text: str | None) -> SafeString:
    return render_markdown(text or "")


# A stage's display label from the stage_labels setting; keys stay English (§2).
register.filter("stage_label", display.stage_label)


@register.simple_tag(name="settings_sections")
def settings_sections_tag(current: str) -> list[tuple[str, str, bool]]:
    """The Settings tabs for a page of an app, which may not import the roof:
    `{% settings_sections "policy" as sections %}` before the tabs include."""
    return settings_sections(current)
