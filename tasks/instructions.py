"""The server instructions (§3 #spec-mcp): the working contract, sent on connect.

They reach the model in every agent's system prompt under "# MCP Server Instructions", so
they stay short. The report format comes from the effective global rules (§6), read when
the server is built: a changed config.toml [rules] needs a restart anyway.
"""

from __future__ import annotations

from django.conf import settings

from tasks.rules import effective_rules, first_line_pattern, owner_only_stages, sizes, states


def server_instructions() -> str:
    """The eleven numbered points of §3, with the configured report first line."""
    cfg = settings.RELAYBAY
    doc = effective_rules(cfg.rules, cfg.rules_mode).doc
    first_line = first_line_pattern(doc)
    owner_only = " or ".join(owner_only_stages(doc))
    points = [
        "Read project_snapshot(project) first; its first line names the working rules "
        "(details: rules_get). memory_search finds what earlier sessions recorded: "
        "documents (doc_get), decisions, memory notes; save lasting facts with memory_add.",
        "Pick a task (task_list) or create one (task_create) and pass session on every write: "
        "your desktop id (local_…) with session_title, else a short name; add hook_session "
        "when the session start asks you to (Codex's calls carry it by themselves). Don't "
        "rebind a task bound to another session without your own local_ id.",
        "On every stage change (task_set_stage) and report (report_add) also update next_step, "
        "waiting_on and progress.",
        f"End every stage with report_add; its first line is `{first_line}` "
        f"(states: {', '.join(states(doc))}; sizes: {', '.join(sizes(doc))}).",
        "When a decision is needed, set waiting_on to who decides (e.g. owner).",
        "If your cached tool schema lacks a field, use task_patch(task, fields={…}).",
        "Fix what a `Warning (rules):` line names."
        + (f" Only the owner moves a task to {owner_only}." if owner_only else ""),
        "Owner comments given by a hook are like a user message: handle them, then call "
        "comment_ack (or answer with comment_add).",
        "Before touching a server, cluster or database read environments_get (the level says "
        "what is allowed unasked; live is read-only unless the owner set otherwise); never "
        "paste secrets; propose changes with environment_propose.",
        "Before moving a task to review or test, write the Owner check with review_steps_set "
        "and attach screenshots with attach_file; the owner's decisions arrive as owner "
        "comments.",
        "Start with a plan: plan_set from PLAN.md or your own 2-5 steps (S tasks: at least a "
        "todo); mark steps in_progress / done with plan_step_update; done needs one line "
        "`as planned` or `deviation: why`.",
    ]
    numbered = "\n".join(f"{n}. {text}" for n, text in enumerate(points, start=1))
    return (
        "relaybay is the owner's live task board: tasks, plans, reports, owner comments, the "
        "project's stands and memory (where tools load on demand, as in Codex, search for "
        f"relaybay's tools first). Working contract:\n{numbered}"
    )
