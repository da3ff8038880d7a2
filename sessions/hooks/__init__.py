"""The hook room (§4): what agent CLIs' hooks report, and what relaybay answers them.

Every agent CLI reaches it through its adapter (its package's hooks.py, agents/<agent>/,
registered in `registry`), which turns the agent's hook input into a neutral
`event.HookEvent` and the neutral `answer.HookAnswer` back into the agent's JSON;
`endpoint.door(adapter)` is its route. The pipeline behind the door sees only neutral
events: `service.hook_event` lets the deciders (the guard, `guard`) answer first, keeps
what it observed masked (`observed`), links the event to a session (`linking`), stores the
agent's todo (`todos`), writes the status (through sessions.services.hooks), and composes
the answer from the steps plugged into `answer` — owner comments (`comments`), the
turn-end check (`turn_end`), waiting (`waiting`), possibly stuck (`stuck`), plan reminders
(the plans app). `activity` holds the 5 s activity window, `sweep` the minute's time-based
signals (`stuck`, `forgotten`), `wake` the wake-up wait of an agent that wakes;
`routes.routes()` is the table of the doors. docs/architecture.md §11 says what an agent
package provides.
"""
