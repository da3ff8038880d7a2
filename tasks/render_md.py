"""The short markdown answers of the tasks tools (§3): what the model reads.

Pure functions over selector data and service outcomes — no queries here, so an answer costs
what its selector costs. Lines stay short and plain: the model pays for every token.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from core.display import ago
from tasks.fields import editable_fields_line

if TYPE_CHECKING:
    from tasks.models import Decision, Project, Report, Task
    from tasks.selectors import (
        EventLine,
        ProjectSummary,
        Snapshot,
        TaskDetail,
        TaskLine,
        TaskListData,
    )
    from tasks.services import Outcome

WARNING_PREFIX = "Warning (rules): "


# --- small pieces ------------------------------------------------------------------------------


def when(dt: datetime | None) -> str:
    """An exact UTC time, minute precision: 2026-05-01 14:03Z."""
    if dt is None:
        return "-"
    return dt.astimezone(UTC).strftime("%Y-%m-%d %H:%MZ")


def one_line(text: str, limit: int = 160) -> str:
    """Text squeezed onto one line and cut with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def tracker_mark(task: Task | TaskLine) -> str:
    """ "<tracker_name> <tracker_ref> ✓" when logged, "… (not logged)" otherwise; "" without."""
    if not task.tracker_ref:
        return ""
    name = f"{task.tracker_name} " if task.tracker_name else ""
    state = " ✓" if task.tracker_logged else " (not logged)"
    return f"{name}{task.tracker_ref}{state}"


def _suffix_text(parts: Iterable[str]) -> str:
    # Extensions may hand their text with or without the " · " joint.
    cleaned = [p.strip().removeprefix("·").strip() for p in parts]
    return "".join(f" · {p}" for p in cleaned if p)


def task_line(line: TaskLine, *, done: bool = False) -> str:
    """One task of a list: key, title, size, then what matters for picking it up."""
    bits = [f"- {line.key} {line.title}"]
    if line.size:
        bits.append(f" [{line.size}]")
    if not done:
        if line.waiting_on:
            bits.append(f" · waiting on {line.waiting_on}")
        if line.next_step:
            stale = " (stale)" if line.next_step_stale else ""
            bits.append(f" · next: {one_line(line.next_step, 120)}{stale}")
    mark = tracker_mark(line)
    if mark:
        bits.append(f" · {mark}")
    bits.append(_suffix_text(line.suffixes))
    return "".join(bits)


# --- projects ----------------------------------------------------------------------------------


def project_list_md(projects: Sequence[ProjectSummary]) -> str:
    if not projects:
        return "No projects yet. Create one with project_upsert(slug, name, repo_path)."
    lines = [f"# Projects ({len(projects)})", ""]
    for p in projects:
        counts = ", ".join(f"{s} {n}" for s, n in p.counts.items() if n and s != "done")
        done = p.counts.get("done", 0)
        tail = f"{p.open_count} open" + (f" ({counts})" if counts else "") + f", {done} done"
        name = f" — {p.name}" if p.name and p.name != p.slug else ""
        repo = f" · {p.repo_path}" if p.repo_path else ""
        lines.append(f"- {p.slug}{name}: {tail}{repo}")
    return "\n".join(lines)


def _decision_line(d: Decision, task_key: str = "") -> str:
    task = f"{task_key}: " if task_key else ""
    who = ", ".join(p for p in (d.decided_by, when(d.created_at)[:10]) if p)
    line = f"- {task}{one_line(d.text, 300)} ({who})"
    if d.superseded_by_id:
        line += f" — superseded by #{d.superseded_by_id}"
    return line


def decision_list_md(
    project: Project, decisions: list[tuple[Decision, str]], *, query: str = ""
) -> str:
    """decision_list: "#<id>" lines, newest first, with their source and supersede marks."""
    what = f" matching '{query}'" if query else ""
    lines = [f"# Decisions of {project.slug}{what}: {len(decisions)}"]
    if not decisions:
        lines.append("None. Record one with decision_add(project, text).")
    for d, task_key in decisions:
        line = _decision_line(d, task_key).replace("- ", f"- #{d.id} ", 1)
        source = ":".join(p for p in (d.source_kind, d.source_ref) if p)
        if source or d.source_text:
            line += f" · source: {' '.join(p for p in (source, d.source_text) if p)}"
        lines.append(line)
    return "\n".join(lines)


def snapshot_md(snap: Snapshot) -> str:
    """project_snapshot and relaybay://project/{slug}: the rules line first (§6)."""
    project: Project = snap.project
    title = project.slug if project.name == project.slug else f"{project.name} ({project.slug})"
    lines = [snap.rules_line, "", f"# {title}"]
    if project.repo_path:
        lines.append(f"Repo: {project.repo_path}")
    if project.description:
        lines += ["", project.description.strip()]
    if snap.extra_lines:
        lines += ["", *snap.extra_lines]
    counts = " · ".join(f"{s} {snap.counts.get(s, 0)}" for s, _ in snap.stages)
    lines += ["", f"Tasks: {counts}"]
    if not any(snap.counts.values()):
        lines.append(f"No tasks yet. Create one with task_create(project={project.slug}, title).")
    for stage, stage_lines in snap.stages:
        if not stage_lines:
            continue
        if stage == "done":
            head = f"## done (closed in the last {snap.done_window_days} days"
            head += f"; {snap.done_hidden} older)" if snap.done_hidden else ")"
        else:
            head = f"## {stage}"
        lines += ["", head]
        lines += [task_line(ln, done=stage == "done") for ln in stage_lines]
    if snap.decisions:
        lines += ["", "## Decisions (newest first)"]
        lines += [_decision_line(d, key) for d, key in snap.decisions]
    return "\n".join(lines)


def task_list_md(data: TaskListData) -> str:
    scope = f" in {data.stage}" if data.stage else ""
    query = f" matching '{data.query}'" if data.query else ""
    head = f"# {data.project.slug}: {len(data.tasks)} task(s){scope}{query}"
    lines = [head]
    if not data.tasks:
        lines.append("None.")
    current = None
    for ln in data.tasks:
        if data.stage is None and ln.stage != current:
            current = ln.stage
            lines += ["", f"## {current}"]
        lines.append(task_line(ln, done=ln.stage == "done"))
    if data.done_hidden:
        lines += ["", f"{data.done_hidden} done task(s) left out; pass include_done=true."]
    return "\n".join(lines)


# --- one task ----------------------------------------------------------------------------------


def _report_lines(reports: Sequence[Report], total: int) -> list[str]:
    if not reports:
        return []
    head = "## Reports" + (f" (latest {len(reports)} of {total})" if total > len(reports) else "")
    lines = ["", head]
    for r in reports:
        badges = " · ".join(b for b in (r.state, r.size) if b)
        badge = f"[{badges}] " if badges else ""
        by = f" — {r.author}" if r.author else ""
        lines.append(f"- #{r.id} {when(r.created_at)} {badge}{r.summary}{by}")
    latest = reports[-1]
    body = latest.body.strip()
    if body and body != latest.summary:
        lines += ["", f"Latest report #{latest.id} in full:", "", body]
    return lines


def _tracker_lines(detail: TaskDetail) -> list[str]:
    task = detail.task
    lines = []
    if task.tracker_ref or task.tracker_name or task.tracker_url:
        parts = [p for p in (task.tracker_name, task.tracker_ref) if p]
        url = f" {task.tracker_url}" if task.tracker_url else ""
        logged = "logged" if task.tracker_logged else "not logged"
        lines.append(f"- Tracker: {' '.join(parts) or '-'}{url} · {logged}")
    older = [e for e in detail.tracker_entries if e.ref != task.tracker_ref]
    if older:
        refs = ", ".join(e.ref for e in older)
        lines.append(f"- Earlier tracker keys: {refs}")
    return lines


def task_md(detail: TaskDetail, sections: Sequence[str]) -> str:
    """task_get: every field, description and progress in full, reports, decisions, extras."""
    t = detail.task
    stage = t.stage + (f" — {t.stage_note}" if t.stage_note else "")
    lines = [
        f"# {t.key} {t.title}",
        f"Project {t.project.slug} · version {t.version} · updated {when(t.updated_at)}",
        "",
        f"- Stage: {stage} (since {when(t.stage_changed_at)})",
        f"- Waiting on: {t.waiting_on or '-'}",
    ]
    if t.next_step:
        stale = " (stale: written before the last stage change; write it again to confirm)"
        lines.append(f"- Next step: {t.next_step}{stale if detail.next_step_stale else ''}")
    else:
        lines.append("- Next step: -")
    lines += [
        f"- Size: {t.size or '-'} · Priority: {t.priority or '-'}",
        f"- Branch: {t.branch or '-'}",
        f"- Document: {t.document_path or '-'}",
    ]
    lines += _tracker_lines(detail)
    if t.closed_at:
        lines.append(f"- Closed: {when(t.closed_at)}")
    lines += ["", "## Description", "", t.description.strip() or "-"]
    lines += ["", "## Progress", "", t.progress.strip() or "-"]
    lines += _report_lines(detail.reports, detail.report_count)
    if detail.decisions:
        lines += ["", "## Decisions"]
        lines += [_decision_line(d) for d in detail.decisions]
    for section in sections:
        lines += ["", section.strip()]
    lines += ["", editable_fields_line()]
    return "\n".join(lines)


# --- write answers -----------------------------------------------------------------------------


def with_extras(headline: str, outcome: Outcome[Any] | None, notes: Iterable[str] = ()) -> str:
    """The headline, then rule warnings, hints and notes of the outcome and the caller."""
    lines = [headline] if headline else []
    if outcome is not None:
        lines += [f"{WARNING_PREFIX}{w}" for w in outcome.warnings]
        lines += list(outcome.hints)
        lines += list(outcome.notes)
        lines += list(outcome.caller_notes)
    lines += [n for n in notes if n]
    return "\n".join(lines)


def _fields_text(names: Iterable[str]) -> str:
    return ", ".join(names)


def task_write_md(outcome: Outcome[Task], notes: Iterable[str] = ()) -> str:
    """task_create / task_update / task_patch / task_set_stage.

    "Moved a → b" comes from the service's own result (Outcome.moved), read in the write's
    transaction, never from a read made before it.
    """
    task = outcome.obj
    if outcome.created:
        head = f"Created {task.key} '{task.title}' in {task.stage} (version {task.version})."
        return with_extras(head, outcome, notes)
    if not outcome.changed:
        # The service's own note ("Nothing changed: …") says it; avoid saying it twice.
        head = "" if outcome.notes else f"Nothing changed on {task.key} (version {task.version})."
        return with_extras(head, outcome, notes)
    others = [n for n in outcome.changed if n != "stage"]
    if outcome.moved is not None:
        head = f"Moved {task.key} {outcome.moved[0]} → {outcome.moved[1]}"
        head += f"; updated {_fields_text(others)}" if others else ""
    else:
        head = f"Updated {task.key}: {_fields_text(others or outcome.changed)}"
    return with_extras(f"{head} (version {task.version}).", outcome, notes)


def report_write_md(outcome: Outcome[Report], notes: Iterable[str] = ()) -> str:
    """report_add: the report with its badges and summary, then what changed on the task."""
    report = outcome.obj
    task = report.task
    badges = " · ".join(b for b in (report.state, report.size) if b)
    badge = f" [{badges}]" if badges else ""
    head = f"Added report #{report.id} to {task.key}{badge}: {report.summary}"
    head += f" (version {task.version})."
    if outcome.changed:
        head += f"\nUpdated {task.key}: {_fields_text(outcome.changed)}."
    return with_extras(head, outcome, notes)


def project_write_md(outcome: Outcome[Project], notes: Iterable[str] = ()) -> str:
    p = outcome.obj
    if outcome.created:
        head = f"Created project {p.slug} '{p.name}'. Next: task_create(project={p.slug}, title)."
    elif outcome.changed:
        head = f"Updated project {p.slug}: {_fields_text(outcome.changed)}."
    else:
        head = "" if outcome.notes else f"Nothing changed on project {p.slug}."
    return with_extras(head, outcome, notes)


def decision_write_md(outcome: Outcome[Decision], notes: Iterable[str] = ()) -> str:
    d = outcome.obj
    scope = d.task.key if d.task_id and d.task else d.project.slug
    by = f" (decided by {d.decided_by})" if d.decided_by else ""
    head = f"Recorded decision #{d.id} for {scope}{by}: {one_line(d.text, 200)}"
    return with_extras(head, outcome, notes)


# --- events ------------------------------------------------------------------------------------


def event_line(e: EventLine, now: datetime) -> str:
    where = e.task_key or e.project_slug or "-"
    actor = f" ({e.actor})" if e.actor else ""
    return f"#{e.id} {ago(e.created_at, now)} {e.kind} {where} — {e.text}{actor}"


def events_md(events: Sequence[EventLine], after_id: int, limit: int) -> str:
    """events_since: one line per event, oldest first, then the id to pass next time."""
    if not events:
        return f"No events after #{after_id}. Next time pass after_id={after_id}."
    now = timezone.now()
    lines = [event_line(e, now) for e in events]
    newest = events[-1].id
    more = " (there may be more: call again)" if len(events) >= limit else ""
    lines += ["", f"Newest id: {newest}. Next time pass after_id={newest}{more}."]
    return "\n".join(lines)
