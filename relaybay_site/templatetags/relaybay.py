"""Template helpers every page uses: hashed static URLs and safe markdown."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from relaybay_site.markdown import render_markdown
from relaybay_site.static import static_url

register = template.Library()


@register.simple_tag(name="static")
def static_tag(path: str) -> str:
    return static_url(path)


@register.filter(name="markdown")
def markdown_filter(text: str | None) -> SafeString:
    return render_markdown(text or "")


@register.filter(name="stage_label")
def stage_label(stage: str) -> str:
    """Display label of a stage from the stage_labels setting; keys stay English (§2)."""
    from django.conf import settings

    return settings.RELAYBAY.stage_labels.get(stage) or stage.capitalize()
