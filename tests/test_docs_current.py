"""The generated references in docs/ match the code that defines them (`make docs`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from core.config import SETTINGS
from relaybay_site import docgen
from tests.support.server import clean_env

DOCS = Path(__file__).resolve().parent.parent / "docs"
STALE = "{name} is out of date with the code: run `make docs` and commit the result."


def test_configuration_reference_is_current():
    current = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert current == docgen.render_configuration(), STALE.format(name="docs/configuration.md")


def test_mcp_tools_reference_is_current():
    current = (DOCS / "mcp-tools.md").read_text(encoding="utf-8")
    assert current == docgen.render_mcp_tools(), STALE.format(name="docs/mcp-tools.md")


def test_commands_reference_is_current():
    current = (DOCS / "commands.md").read_text(encoding="utf-8")
    assert current == docgen.render_commands(), STALE.format(name="docs/commands.md")


def test_agents_reference_is_current():
    current = (DOCS / "agents.md").read_text()
    assert current == docgen.render_agents(), STALE.format(name="docs/agents.md")


def test_architecture_generated_blocks_are_current():
    current = (DOCS / "architecture.md").read_text(encoding="utf-8")
    assert current == docgen.render_architecture(current), STALE.format(name="docs/architecture.md")


def test_effort_reference_is_current():
    current = (DOCS / "effort.md").read_text(encoding="utf-8")
    assert current == docgen.render_effort(), STALE.format(name="docs/effort.md")


def test_the_effort_page_shows_the_shipped_prices_with_their_date():
    from effort import readers

    text = docgen.render_effort()
    assert f"## Prices (shipped defaults, as of {readers.prices_date()})" in text
    for model in readers.shipped_prices():
        assert f"| `{model}` |" in text


def test_the_agents_page_names_every_adapter_and_what_codex_cannot_do():
    text = docgen.render_agents()
    assert "| Hook route | `POST /hooks/claude-code` | `POST /hooks/codex` |" in text
    assert "| PermissionRequest | `approval` | `approval` |" in text
    assert "Codex has no wake-up hook" in text


def test_policy_reference_is_current():
    current = (DOCS / "policy.md").read_text(encoding="utf-8")
    assert current == docgen.render_policy(), STALE.format(name="docs/policy.md")


def test_the_commands_reference_shows_each_commands_own_options():
    from relaybay.cli import COMMANDS

    text = docgen.render_commands()
    for name in COMMANDS:
        assert f"## relaybay {name}\n" in text
        assert f"usage: relaybay {name} " in text
    setup = text.split("## relaybay setup\n", 1)[1].split("\n## ", 1)[0]
    for option in ("--apply", "--remove", "--expect HASH", "--mode {command,http}", "--check"):
        assert option in setup
    # The settings' flags and Django's own options live elsewhere or nowhere.
    assert "--home" not in setup
    assert "--pythonpath" not in text


def test_the_configuration_reference_has_a_row_per_setting():
    text = docgen.render_configuration()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == len(SETTINGS)
    for setting, row in zip(SETTINGS, rows, strict=True):
        assert row.startswith(f"| `{setting.name}` |")
        assert (f"`{setting.env_name}`" if setting.env_name else "—") in row
        assert (f"`{setting.flag_name}`" if setting.flag_name else "—") in row
        assert docgen.DOC_LINK_RE.sub(r"[\1](\1)", " ".join(setting.help.split())) in row
    assert "exit code 2" in text


def sample_server() -> MCPServer:
    server = MCPServer(name="sample")

    @server.tool(
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
        structured_output=False,
    )
    async def task_get(
        task: Annotated[str, Field(description="Task key, e.g. acme-shop-12.", max_length=80)],
        limit: Annotated[int, Field(description="How many reports.", ge=1, le=50)] = 5,
        stage: Literal["plan", "dev"] | None = None,
    ) -> str:
        """Get one task with its latest reports.

        Returns:
            The task card as markdown.
        Errors:
            - Unknown task: the message tells you to call task_list.
            - Limit out of range.
        """
        return ""

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    async def note_add(text: str) -> str:
        """Add a note."""
        return text

    @server.resource("relaybay://project/{slug}", description="One project as markdown.")
    async def project(slug: str) -> str:
        return slug

    return server


def test_the_tools_reference_renders_any_tool_it_is_given():
    text = docgen.render_mcp_tools(sample_server())
    assert "[`note_add`](#note_add) | write | Add a note." in text
    assert "### `task_get`" in text
    assert "Get one task with its latest reports." in text
    assert "read-only (`readOnlyHint: true`, `openWorldHint: false`)" in text
    assert "writes (`readOnlyHint: false`, `destructiveHint: false`)" in text
    assert (
        "| `task` | string (at most 80 characters) | required | — | Task key, e.g. acme-shop-12. |"
        in text
    )
    assert "| `limit` | integer (≥ 1; ≤ 50) | optional | `5` | How many reports. |" in text
    assert '| `stage` | one of "plan", "dev" or null | optional | `null` |  |' in text
    assert "short markdown text (one text block) — The task card as markdown." in text
    assert "- Unknown task: the message tells you to call task_list." in text
    assert "Errors:" not in text.split("### `task_get`")[1].split("**Errors:**")[0]
    assert docgen.GENERIC_ERRORS in text.split("### `note_add`")[1].split("### ")[0]
    assert (
        "| `relaybay://project/{slug}` | project | text/plain | One project as markdown. |" in text
    )


def test_the_tools_reference_renders_a_server_without_tools():
    text = docgen.render_mcp_tools(MCPServer(name="empty"))
    assert "No tools are registered yet." in text
    assert "No resources are registered yet." in text


def test_make_docs_renders_from_defaults_whatever_the_machine_has_configured(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('port = 1\n[rules]\nguidance = "Local guidance."\n')
    result = subprocess.run(
        [sys.executable, "-m", "relaybay_site.docgen", "--out", str(tmp_path / "docs")],
        env=clean_env(RELAYBAY_HOME=str(home), RELAYBAY_PORT="not-a-port"),
        cwd=DOCS.parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    written = tmp_path / "docs"
    assert (written / "configuration.md").read_text() == docgen.render_configuration()
    assert (written / "mcp-tools.md").read_text() == docgen.render_mcp_tools()
    assert (written / "policy.md").read_text() == docgen.render_policy()


# --- policy.md -----------------------------------------------------------------------------


def _schema_paths(props: dict, prefix: str, defs: dict) -> list[str]:
    """Every key path of policy/schema.json, read independently of the renderer."""
    paths = []
    for name, node in props.items():
        path = f"{prefix}.{name}" if prefix else name
        paths.append(path)
        ref = node.get("$ref", "")
        target = defs[ref.rsplit("/", 1)[1]] if ref else node
        if "properties" in target:
            paths += _schema_paths(target["properties"], path, defs)
        items = target.get("items") or {}
        if items.get("$ref", "").endswith("/pattern") and not name.endswith("+"):
            paths += _schema_paths(defs["pattern"]["properties"], f"{path}[]", defs)
    return paths


def test_the_policy_reference_has_a_row_for_every_key_of_the_schema():
    from policy import validate

    schema = validate.schema()
    rows = [
        line.split(" | ")[0].removeprefix("| `").removesuffix("`")
        for line in docgen.render_policy().split("## Keys", 1)[1].split("\n## ", 1)[0].splitlines()
        if line.startswith("| `")
    ]
    assert rows == _schema_paths(schema["properties"], "", schema["$defs"])
    for variant in ("guard.disable+", "guard.patterns-", "secrets.allow+", "secrets.disable-"):
        assert variant in rows
    assert "guard.patterns[].change" in rows


def test_the_policy_reference_lists_every_id_preset_and_limit():
    from policy import catalog, safe_regex
    from policy.presets import SUMMARY

    text = docgen.render_policy()
    for rule in catalog.GUARD_RULES:
        assert f"| `{rule.id}` | {rule.capability or 'any'} | {rule.title}: " in text
    for detector in catalog.SECRET_DETECTORS:
        assert f"| `{detector.id}` | {detector.title} | " in text
    for name, (levels, guard, secrets) in SUMMARY.items():
        assert f"| `{name}` | {levels} | {guard} | {secrets} |" in text
    for source in ("preset:<name>", "`config`", "`global`", "project:<slug>", "<slug>/<name>"):
        assert source in text
    validation = " ".join(text.split("## Validation", 1)[1].split("## ", 1)[0].split())
    for limit in (
        f"at most {safe_regex.MAX_LENGTH} characters",
        f"at most {safe_regex.MAX_UNBOUNDED} unbounded quantifiers",
        f"within {safe_regex.PROBE_BUDGET * 1000:g} ms together",
        f"takes over {safe_regex.RUN_LIMIT * 1000:g} ms fails closed",
        f"the first {safe_regex.MAX_INPUT} characters",
    ):
        assert limit in validation, limit
    assert "implemented once, in `environments/secret_spots.py`" in text
    assert "- `environments/secret_door.py` (`refuse`), the door of every write" in text
    assert "- `mask`: " in text
    assert "## Which writes the detectors guard" in text
    for write in ("environment_propose, policy_propose", "task_create", "block_set"):
        assert write in text, write
    assert "policy.json: guard.mode: 'loud' is not one of ['off', 'log', 'warn', 'block']" in text
    assert "### [`policy_get`](mcp-tools.md#policy_get) (read-only)" in text
    assert "### [`policy_propose`](mcp-tools.md#policy_propose) (write)" in text


def test_the_example_policy_json_validates_and_is_the_one_shown():
    from policy import validate
    from relaybay_site.docgen import policy as docgen_policy

    example = docgen_policy.EXAMPLE
    validate.check(example, label="policy.json", scope="global")
    text = docgen.render_policy()
    assert json.dumps(example, indent=2, ensure_ascii=False) in text
    assert '- guard.mode = "block" (global)' in text
    assert "Layers, a later one winning: preset:default → global" in text
