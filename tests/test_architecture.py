"""The house rules of docs/architecture.md that a reader would otherwise have to check by eye."""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import textwrap
from importlib import import_module
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("tasks", "plans", "reviews", "sessions", "environments", "policy", "memory")
ADAPTER_FILES = ("views.py", "hooks.py", "forms.py")
ORM_WRITE = re.compile(
    r"\.(save|delete)\(|objects\.(create|update|get_or_create|update_or_create|bulk_create)\("
    r"|\.filter\([^)]*\)\.(update|delete)\("
)


def _source_files() -> list[Path]:
    files = []
    for top in ("relaybay", "relaybay_site", *APPS):
        files += [p for p in (ROOT / top).rglob("*.py") if "migrations" not in p.parts]
    return files


def test_adapters_never_write_to_the_database_themselves() -> None:
    offenders = []
    for path in _source_files():
        if path.name in ADAPTER_FILES or path.name.startswith("mcp_"):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if ORM_WRITE.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == [], "move these writes into a service:\n" + "\n".join(offenders)


def test_modules_stay_under_the_hard_size_cap() -> None:
    too_big = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for p in _source_files()
        if (n := len(p.read_text().splitlines())) > 600
    ]
    assert too_big == [], "split these modules into a package:\n" + "\n".join(too_big)


def test_the_tasks_app_imports_no_other_app() -> None:
    others = set(APPS) - {"tasks"}
    offenders = []
    for path in (ROOT / "tasks").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [
                f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in others
            ]
    assert offenders == [], "tasks must not import other apps:\n" + "\n".join(offenders)


def test_no_module_uses_django_signals() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in _source_files()
        if "django.db.models.signals" in p.read_text() or "django.dispatch" in p.read_text()
    ]
    assert offenders == []


@pytest.mark.django_db
def test_every_write_tool_has_a_service_of_the_same_name() -> None:
    from relaybay_site.mcp_server import build_server

    tools = asyncio.run(build_server().list_tools())
    missing = []
    for tool in tools:
        annotations = tool.annotations
        if annotations is not None and annotations.read_only_hint:
            continue
        found = False
        for app in APPS:
            try:
                services = import_module(f"{app}.services")
            except ModuleNotFoundError:
                continue
            if callable(getattr(services, tool.name, None)):
                found = True
                break
        if not found:
            missing.append(tool.name)
    assert missing == [], f"write tools without a same-named service: {missing}"


@pytest.mark.django_db
def test_every_write_tool_calls_its_service_by_name() -> None:
    """§1: `git grep task_set_stage` finds the tool calling the service, not a value passed
    through a helper; the answer is then built from what that service returned."""
    from relaybay_site.mcp_server import build_server

    offenders = []
    for tool in build_server()._tool_manager.list_tools():
        if tool.annotations is not None and tool.annotations.read_only_hint:
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(tool.fn)))
        named = {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "services"
        }
        if tool.name not in named:
            offenders.append(tool.name)
    assert offenders == [], f"write tools that do not call services.<their name>: {offenders}"


# Resolving `session` / `hook_session` may create or mark a session: only a service, inside
# its own transaction, may do it (a refused write then leaves no "session seen" behind).
CALLER_RESOLVERS = {"caller_in", "caller_of", "resolve_caller", "_resolve_caller", "session_touch"}


def test_mcp_tools_never_resolve_their_caller_themselves() -> None:
    offenders = []
    for path in _source_files():
        if not (path.name.startswith("mcp_") or path.parent.name == "mcp"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
            if isinstance(node, ast.alias):
                name = node.name
            if name in CALLER_RESOLVERS:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert offenders == [], "pass a CallerRef to the service instead:\n" + "\n".join(offenders)
