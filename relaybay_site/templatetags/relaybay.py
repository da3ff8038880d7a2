"""Template helpers every page uses: hashed static URLs and safe markdown."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from core import display
from core.markdown import render_markdown
from core.static import static_url

register = template.Library()


@register.simple_tag(name="static")
def static_tag(path: str) -> str:
    return static_url(path)


@register.filter(name="markdown")
def markdown_filter(text: str | None) -> SafeString:
    return render_markdown(text or "")


# A stage's display label from the stage_labels setting; keys stay English (§2).
register.filter("stage_label", display.stage_label)
