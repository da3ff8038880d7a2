"""The planned change to Gemini CLI's settings.json: relaybay's hooks and its MCP server
entry in, or out again; its diff, hash and backed-up write are the kit's (agents/setup/plan.py).

Everything that is not relaybay's keeps its bytes: a file that is not exactly what
`json.dumps` gives is edited member by member (agents/setup/splice.py). The notes say
plainly what the MCP entry does: the token is read from RELAYBAY_TOKEN, never written, and
`trust: true` lets Gemini call relaybay's own tools without asking each time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.gemini_cli.setup import entries
from agents.setup import document, hold
from agents.setup.plan import Plan, read_bytes
from agents.setup.target import TOKEN_ENV, Target

WINDOWS = (
    "Gemini CLI runs hooks through PowerShell on Windows, where relaybay's fail-open hook "
    "command is not written yet; a hook that cannot run there would deny every tool. "
    "Nothing was planned."
)


def make_plan(path: Path, target: Target, *, action: str = "apply") -> Plan:
    """Read the file and compute the change; SettingsError when it must not be touched."""
    if target.windows:
        raise document.SettingsError(WINDOWS)
    before = read_bytes(path)
    text = document.decode(before, path.name)
    data = document.parse(text, path.name)
    if "mcpServers" in data and not isinstance(data["mcpServers"], dict):
        raise document.SettingsError(
            f'{path.name}: "mcpServers" is not an object, which is not the shape Gemini '
            "reads; fix it, then run setup again."
        )
    if action == "remove":
        new = entries.without_relaybay(data)
    else:
        new = entries.with_relaybay(data, target)
    notes = apply_notes(data, target) if action == "apply" else ()
    if new == data:
        return Plan(path, action, before, before, notes)
    layout = document.layout_of(text, data)
    after = document.render(text, layout, data, new).encode("utf-8")
    return Plan(path, action, before, after, notes)


def apply_notes(data: dict[str, Any], target: Target) -> tuple[str, ...]:
    """What the plan does that its diff does not say, and what it leaves to the owner."""
    url = target.base_url + "/mcp"
    notes = [
        f"mcpServers.{entries.MCP_NAME}: Gemini CLI reaches relaybay's MCP tools at {url} with "
        f'the header "{entries.AUTHORIZATION}: {entries.BEARER}", which Gemini fills in from '
        f"its environment: the token itself is never written into settings.json, so "
        f"{TOKEN_ENV} must hold it where Gemini starts.",
        f"trust: true on mcpServers.{entries.MCP_NAME} lets Gemini call relaybay's own tools "
        "without asking you each time (without it, gemini -p does not even offer them to the "
        "model); your other servers keep their own setting.",
        f'Each hook ends with "{entries.FAIL_OPEN}": when relaybay, its Python or its venv is '
        "gone the hook prints {} and exits 0, so Gemini goes on instead of denying every tool.",
        "Gemini runs no hook in a folder it does not trust: relaybay setup --agent gemini "
        "--check names the project folders not trusted yet and how to trust them; setup never "
        "writes trustedFolders.json.",
        *hold.plan_notes(entries.held_events(), f"{entries.HELD_TIMEOUT_MS} ms"),
    ]
    if entries.literal_token(entries.mcp_entry(data)):
        notes.append(
            f"The token written in mcpServers.{entries.MCP_NAME}'s Authorization header is "
            f"replaced by {entries.BEARER}."
        )
    config = data.get("hooksConfig")
    if isinstance(config, dict) and config.get("enabled") is False:
        notes.append(
            "hooksConfig.enabled is false in settings.json: Gemini runs no hook at all until "
            "you remove it or set it to true (setup leaves it as it is)."
        )
    disabled = config.get("disabled") if isinstance(config, dict) else None
    if isinstance(disabled, list) and entries.HOOK_NAME in disabled:
        notes.append(
            f'hooksConfig.disabled names "{entries.HOOK_NAME}": Gemini skips relaybay\'s hooks '
            "until you take it out of that list (setup leaves it as it is)."
        )
    return tuple(notes)
