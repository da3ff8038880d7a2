"""MCP tools of projects (§3): list, create or change, and the snapshot agents read first."""

from typing import Annotated

from pydantic import Field

from core.mcp import call_service, resource_answer
from tasks import render_md, selectors, services
from tasks.extensions import CallerRef
from tasks.fields import PROJECT_DESCRIPTION_MAX, PROJECT_REPO_PATH_MAX
from tasks.mcp_params import (
    HookSession,
    Project,
    Session,
    SessionTitle,
    text_param,
)


def _project_list() -> str:
    return render_md.project_list_md(selectors.project_list())


def _snapshot(project: str) -> str:
    return render_md.snapshot_md(selectors.snapshot_data(project))


async def project_list() -> str:
    """List every project with its open task counts per stage.

    Use it to find a project's slug. Then read project_snapshot(project).

    Returns:
        One line per project: slug — name: open tasks (per stage), done count, repo path.
    """
    return await call_service(_project_list)


async def project_upsert(
    slug: Annotated[
        str, Field(description="Lowercase letters, digits and dashes, e.g. acme-shop.")
    ],
    name: Annotated[str | None, Field(description="Display name (default: the slug).")] = None,
    repo_path: text_param(
        "Absolute path of the project's repository.", PROJECT_REPO_PATH_MAX
    ) = None,
    description: text_param("What the project is (markdown).", PROJECT_DESCRIPTION_MAX) = None,
    session: Session = "",
    session_title: SessionTitle = "",
    hook_session: HookSession = "",
) -> str:
    """Create a project, or change the given fields of an existing one.

    Call it once per repository before creating tasks in it. Fields left out stay as
    they are.

    Returns:
        "Created project <slug> '<name>'." or "Updated project <slug>: <fields>.", or a
        note that nothing changed.
    Errors:
        - Invalid slug (capitals, spaces): the message suggests a valid slug.
        - A value over its limit: the message names the field and the limit.
    """
    return await call_service(
        services.project_upsert,
        slug=slug,
        name=name,
        repo_path=repo_path,
        description=description,
        actor=CallerRef(session, session_title, hook_session),
        answer=render_md.project_write_md,
    )


async def project_snapshot(project: Project) -> str:
    """Read this first: the project's working rules, open tasks per stage and decisions.

    Its first line names the working rules (Rules <hash>: …); read rules_get for the
    details. Each task line shows key, title, [size], waiting on, next step ("(stale)"
    when written before the last stage change) and the tracker mark.

    Returns:
        The rules line, the project name and description, task counts, tasks per stage
        (recent done ones only) and the newest decisions.
    Errors:
        - Unknown project: call project_list or create it with project_upsert.
    """
    return await call_service(_snapshot, project)


async def project_resource(slug: str) -> str:
    """The project snapshot (same markdown as project_snapshot)."""
    return await resource_answer(_snapshot, slug)
