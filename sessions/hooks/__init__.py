"""The hook room (§4): what agent CLIs' hooks report, and what relaybay answers them.

Every agent CLI reaches it through its adapter (one module per agent: `claude_code.py`),
which turns the agent's hook input into a neutral `event.HookEvent` and the neutral
`answer.HookAnswer` back into the agent's JSON; `endpoint.door(adapter)` is its route. The
pipeline behind the door sees only neutral events: `service.hook_event` links the event to
a session (`linking`), stores the agent's todo (`todos`), writes the status (through
sessions.services.hooks), and composes the answer from the steps plugged into
`answer` — owner comments (`comments`), the guard (`guard`), the turn-end check
(`turn_end`), waiting (`waiting`), possibly stuck (`stuck`), plan reminders (the plans app).
`activity` holds the 5 s activity window, `sweep` the minute's time-based signals
(`stuck`, `forgotten`), `wake` Claude Code's wake-up wait; `routes.ROUTES` is the table of
the doors. docs/architecture.md §9 says what an adapter must provide.
"""
