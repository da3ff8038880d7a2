"""docs/effort.md: what relaybay counts of each task's effort, from where, and what it keeps:
its tables (the shipped prices, the events that move the time, the files that may be read)
rendered from the code that uses them, each agent's part from its transcript reader as
effort.readers holds it (agents/<agent>/transcripts.py, prices.py)."""

from __future__ import annotations

from effort import export, page, reader, readers, transcripts
from effort.intervals import TIME_EVENTS
from effort.notify import THROTTLE
from relaybay_site.docgen.common import GENERATED
from sessions.hooks import registry


def _prices() -> list[str]:
    rows = [
        f"| `{model}` | {p.input:g} | {p.output:g} | {p.cache_write:g} | {p.cache_read:g} |"
        for model, p in readers.shipped_prices().items()
    ]
    checked = "; ".join(r.prices_doc for r in readers.every() if r.prices_doc)
    return [
        f"## Prices (shipped defaults, as of {readers.prices_date()})",
        "",
        "US dollars per million tokens. A key ending in `*` is a prefix: the longest that "
        "matches a model's name prices it, a model's own entry before any prefix. Set your "
        "own in `config.toml`; a kind you leave out keeps the shipped price (or is 0 for a "
        "model relaybay does not ship):",
        "",
        "```toml",
        '[prices."claude-opus-*"]',
        "input = 5.0",
        "output = 15.0",
        "",
        '[prices."my-local-model"]',
        "input = 0",
        "output = 0",
        "```",
        "",
        "A model with no price shows its tokens and *cost unknown* — never a guessed figure. "
        f"{checked}; the others are the makers' list prices of that date. Prices change: "
        "check yours.",
        "",
        "| Model | input | output | cache write | cache read |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
    ]


def _board() -> list[str]:
    ranges = ", ".join(words for _, _, words in page.RANGES)
    default = next(words for key, _, words in page.RANGES if key == page.DEFAULT_RANGE)
    sorts = ", ".join(words.lower() for words in page.SORTS.values())
    columns = ", ".join(f"`{name}`" for name in export.HEADER)
    return [
        "## On the board",
        "",
        "- The task dialog and the task page have an **Effort** section: the time per stage as "
        "a bar, agent, wall and waiting time, sessions and turns, the tokens by kind and the "
        "cost (Claude Code's own figure beside it where its transcript has one). It alone "
        "refreshes when the task's tokens grow.",
        "- Each project's **Effort** page (sidebar → the project → Effort) has one row per "
        f"task, sortable by {sorts}; filters by stage and time range ({ranges}; default "
        f"{default}); the totals; and two "
        "charts drawn on the server as inline SVG — the cost per day stacked by task, and the "
        "time per stage across the tasks shown. A time range limits the tokens and the cost "
        "to its days; times are each task's whole life. It refreshes live, at most once "
        "every few seconds.",
        "- **Download CSV** (`/p/<slug>/effort.csv`) gives every row of the same filters: "
        "seconds and tokens as plain integers, the cost in dollars (empty when a model has no "
        "price), times in ISO 8601 UTC; a title a spreadsheet would read as a formula is "
        f"quoted. Columns: {columns}.",
        "",
    ]


def render() -> str:
    """The whole page."""
    events = ", ".join(f"`{kind}`" for kind in sorted(TIME_EVENTS))
    files = "; ".join(f"for {registry.title(r.agent)} {r.files_doc}" for r in readers.every())
    lines = [
        GENERATED,
        "",
        "# Effort: where the hours, the tokens and the money of each task went",
        "",
        "relaybay knows which session worked on which task when (the binding history, the "
        "hooks' statuses, the stage moves), and every hook names the session's transcript. "
        "Adding those up gives each task its time, its tokens and their cost — across "
        "sessions, rebinds and both agent CLIs. The board shows it in the task's **Effort** "
        "section and on each project's **Effort** page (`/p/<slug>/effort`, with a CSV "
        "export); MCP's `task_get` has one effort line and `project_snapshot` the project's "
        "total, the same numbers.",
        "",
        "## Time",
        "",
        "Replayed from the task's own events, one step per event as it is written (the "
        f"events that move it: {events}):",
        "",
        "- **Time in each stage**, from the stage moves (the bar leaves out *done*).",
        "- **Agent time**: while a session bound to the task is *working* (its hooks' "
        "status). Two sessions on the task at once count twice here …",
        "- **Wall time**: … and once here: while at least one of them works.",
        "- **Waiting on the owner**: while the task's *waiting on* names one of "
        "`owner_names`, a bound session waits for an answer, or the task is in review or "
        "test with review steps still open.",
        "- **Sessions** ever bound, and **turns**: a bound session going to work.",
        "",
        "What is going on now (a session working, the owner awaited) goes on counting until "
        "the next event. `owner_names` is read when each event is written.",
        "",
        "## Tokens",
        "",
        "From the transcript each agent writes as it works:",
        "",
        *(f"- **{registry.title(r.agent)}**: {r.lines_doc}" for r in readers.every()),
        "",
        "Each response goes to the task or tasks bound to its session **at the response's "
        "time** (a rebind in the middle of a turn splits the turn where it happened); a "
        "response while two tasks were bound is **split evenly** between them (the remainder "
        "of a division to the oldest task) and the task says how many of its responses were "
        "shared. A response while no task was bound belongs to no task.",
        "",
        "### Which files are read",
        "",
        "Only a regular file (not a symlink) on this machine that the agent itself would "
        f"write: {files} — the folders of the user who runs `relaybay serve`. Any other "
        "`transcript_path` a hook names is ignored, and not opened: the hook body is "
        "authenticated, but a path is not a licence to read files.",
        "",
        "### When",
        "",
        "After the hook's answer is sent, on a thread of its own, never in the hook's way: "
        f"at most {reader.STEP_BYTES // 1_000_000} MB of complete lines per step, on from "
        "where the last step ended (the place is kept in the database, so a restart loses "
        "nothing and counts nothing twice). A file that shrank or was replaced is read again "
        "from the start; a half-written last line waits for the next step; line types and "
        "keys relaybay does not know are skipped. While a big file is caught up on, the "
        "reader rests twice as long as it read. The board hears of new tokens at most once "
        f"per task every {THROTTLE:g} seconds.",
        "",
        *_board(),
        "## What is kept",
        "",
        "Counts and sums only — never text from a transcript: per session, task, day and "
        "model the responses and the tokens of each kind; a 63-bit digest of each response's "
        "id (so it is counted once); Claude Code's own total per process; where the reading "
        "of each transcript stands (path, device, inode, offset). A model's name is kept "
        "only when it is a plain name (letters, digits and `.-_:@+/[]`, at most 100 "
        f"characters), else as `{transcripts.UNKNOWN_MODEL}`.",
        "",
        *_prices(),
    ]
    return "\n".join(lines)
