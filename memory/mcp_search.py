"""memory_search (§3, §8 Search): one search over documents, decisions, memory notes,
reports and comments, with the line that names each hit."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.mcp import call_service
from memory import search
from memory.search_text import SEARCH_QUERY_MAX
from tasks.mcp_params import READ, chars
from tasks.selectors import get_project


def _search(
    query: str, project: str | None, kinds: list[str], include_superseded: bool, limit: int
) -> str:
    slug = get_project(project).slug if project else None
    hits = search.search(
        query, project=slug, kinds=kinds, include_superseded=include_superseded, limit=limit
    )
    where = f" in {slug}" if slug else ""
    lines = [f"# Search '{query}'{where}: {len(hits)} hit(s)"]
    if not hits:
        lines.append("Nothing found. Try fewer or shorter words (each word is a prefix).")
    for hit in hits:
        place = hit.project or "global"
        mark = " (superseded)" if hit.state == "superseded" else ""
        title = f" {hit.title}" if hit.title else ""
        lines.append(f"- {hit.kind} {hit.ref} [{place}]{title}{mark}: {hit.line}")
    return "\n".join(lines)


async def memory_search(
    query: Annotated[
        str,
        Field(
            description="Words to find; every word is required.",
            json_schema_extra=chars(SEARCH_QUERY_MAX),
        ),
    ],
    project: Annotated[
        str | None,
        Field(description="Project slug: its items plus global and role notes. Left out: all."),
    ] = None,
    kinds: Annotated[
        list[str] | None,
        Field(description="Only these: document, decision, memory, report, comment."),
    ] = None,
    include_superseded: Annotated[
        bool, Field(description="Also superseded notes and decisions.")
    ] = False,
    limit: Annotated[int, Field(description="At most this many hits (1-50).")] = 20,
) -> str:
    """Search the project memory: documents, decisions, memory notes, reports and comments.

    Words match their other forms (English and Russian stems: "deploying" finds
    "deployment") and as prefixes; every word is required; a title hit ranks first.

    Returns:
        "# Search '<query>': <n> hit(s)" and one line per hit: kind, id or name, project,
        title and the line holding the most query words.
    Errors:
        - Unknown project: call project_list.
    """
    return await call_service(_search, query, project, list(kinds or []), include_superseded, limit)


SEARCH_TOOLS = [(memory_search, READ)]
