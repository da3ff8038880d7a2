from django.apps import AppConfig


class AgentSessionsConfig(AppConfig):
    """Label agent_sessions: `sessions` would collide with django.contrib.sessions."""

    name = "sessions"
    label = "agent_sessions"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The caller resolver, the task_get section and the task-line suffix (tasks never
        # imports sessions; it calls what is registered in tasks.extensions).
        from sessions.extensions import register

        register()

        # The board's seams: the cards' session dot and link, the dialog's Session panel.
        from sessions import panels

        panels.register()

        # Owner comments through hooks (§4), the wake-up lines and the board's comment seams.
        from sessions.hooks import comments as comment_delivery

        comment_delivery.register()

        # The Inbox group of hook sessions the linking could not place.
        from sessions import inbox

        inbox.register()

        # Requests waiting for the owner's Approve or Deny: the Inbox's first group, the cards.
        from sessions.approvals import board as approvals

        approvals.register()

        # The PreToolUse guard and the journal of actions on live (§7).
        from sessions.hooks import guard as guard_step

        guard_step.register()

        # The turn-end status check: a turn that worked in a task but wrote nothing to it.
        from sessions.hooks import turn_end

        turn_end.register()

        # Possibly stuck: the same tool call again and again (hashes only).
        from sessions.hooks import stuck

        stuck.register()

        # Collision warnings: live sessions changing the same files (paths only).
        from sessions.hooks import collisions

        collisions.register()

        # The resume brief: where its tasks stand, when a bound session starts again.
        from sessions.hooks import resume

        resume.register()
