"""The markdown of environments_get, its resource and the project_snapshot lines (§7)."""

from __future__ import annotations

from core.display import utc_text
from environments.selectors import (
    StandsMap,
    StandView,
    test_secret_names,
    test_secret_values,
    text_fields,
)
from policy.catalog import CAPABILITIES


def snapshot_line(view: StandView) -> str:
    """- live — live · agents: read (default) · https://…"""
    env = view.environment
    parts = [env.kind, f"agents: {view.levels['default'].shown()}"]
    if env.base_url:
        parts.append(env.base_url)
    return f"- {env.name} — " + " · ".join(parts)


def stands_md(data: StandsMap) -> str:
    project = data.project
    lines = [
        f"# Environments of {project.slug}",
        "",
        f"Policy: preset {data.preset} · guard {data.guard_mode}. Levels: none (do not touch), "
        "read (look only), ask (the owner approves each action), full (act as needed).",
    ]
    if not data.stands:
        lines += [
            "",
            "No environments yet. Propose one with environment_propose(project, "
            '{"environment": "live", "kind": "live", …}, reason).',
        ]
    for view in data.stands:
        lines += ["", *_environment_lines(view)]
    return "\n".join(lines)


def _environment_lines(view: StandView) -> list[str]:
    env = view.environment
    lines = [f"## {env.name} ({env.kind})"]
    if env.base_url:
        lines.append(f"- base URL: {env.base_url}")
    lines.append(f"- agents: {view.levels['default'].shown()}")
    per_capability = ", ".join(f"{c} {view.levels[c].shown()}" for c in CAPABILITIES)
    lines.append(f"- per capability: {per_capability}")
    if env.overrides:
        lines.append(
            "- overrides: " + ", ".join(f"{k} {v}" for k, v in sorted(env.overrides.items()))
        )
    if view.guard_differs:
        lines.append(f"- guard: {view.guard_mode} (its own policy)")
    lines.append(f"- sign-in allowed: {'yes' if env.sign_in_allowed else 'no'}")
    if env.login_state_path:
        lines.append(f"- login state: {env.login_state_path}")
    for entry in view.entries:
        fields = ", ".join(f"{k}={v}" for k, v in text_fields(entry).items())
        line = f"- access #{entry.id} {entry.kind}: {fields or '(no fields)'}"
        if view.expose_test_secrets:
            secrets = ", ".join(f"{k}={v}" for k, v in test_secret_values(entry).items())
        else:
            secrets = ", ".join(test_secret_names(entry))
        if secrets:
            line += f"; test secrets: {secrets}"
        lines.append(line)
    if env.notes:
        lines.append("- notes: " + " ".join(env.notes.split()))
    who = f" by {env.changed_by}" if env.changed_by else ""
    lines.append(f"- changed {utc_text(env.changed_at)}{who}")
    return lines
