"""The house rules of docs/architecture.md that a reader would otherwise have to check by eye."""

from __future__ import annotations

import ast
import asyncio
import inspect
import textwrap
from importlib import import_module
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Found, not listed, so a new app is checked without editing this file: every top-level
# package of the repository, the apps being those with an AppConfig (docs/architecture.md §2).
PACKAGES = tuple(
    sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests")
)
FOUNDATION = "core"
ROOF = "relaybay_site"
APPS = tuple(sorted(p.parent.name for p in ROOT.glob("*/apps.py") if p.parent.name != ROOF))

# The adapters of docs/architecture.md §1: views, MCP tools, hook handlers, forms, the
# wake-up wait, the Integrations and Settings pages, the page frame, template tags,
# management commands and the ASGI glue. Patterns, so a new app's adapters are covered.
ADAPTER_PATTERNS = (
    "*/views.py",
    "*/views/*.py",
    "*/*_views.py",
    "*/mcp*.py",
    "*/hooks.py",
    "*/asgi.py",
    "*/asgi_io.py",
    "*/wake.py",
    "*/integrations.py",
    "*/settings_pages.py",
    "*/context.py",
    "*/forms.py",
    "*/urls.py",
    "*/templatetags/*.py",
    "*/management/commands/*.py",
)

# Calls that write through the ORM whatever they are called on.
ALWAYS_WRITES = {"save", "create", "get_or_create", "update_or_create"}
# update / delete are also dict and set methods: they count when called on a query
# (`X.objects…`, `….filter(…)`, a name assigned from one) or, for delete, on an instance.
QUERY_WRITES = {"update", "delete"}
QUERY_MARKERS = ("objects", "filter(", "exclude(", "all(", "_set.", "select_related(")
SQL_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def _source_files() -> list[Path]:
    files = []
    for top in PACKAGES:
        files += [p for p in (ROOT / top).rglob("*.py") if "migrations" not in p.parts]
    return files


def _adapter_modules() -> list[Path]:
    found = {p for pattern in ADAPTER_PATTERNS for p in ROOT.glob(pattern)}
    return sorted(p for p in found if p.relative_to(ROOT).parts[0] in PACKAGES)


def _sync_name(method: str) -> str:
    """`asave` → `save`: the async twins Django added write just the same."""
    plain = method.removeprefix("a")
    writes = plain in ALWAYS_WRITES | QUERY_WRITES or plain.startswith("bulk_")
    return plain if method.startswith("a") and writes else method


def _orm_writes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    # Names bound to a query anywhere in the module (`rows = Task.objects.filter(…)`).
    queries = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and any(m in ast.unparse(node.value) for m in QUERY_MARKERS)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name = _sync_name(node.func.attr)
        receiver = node.func.value
        text = ast.unparse(receiver)
        if name in ALWAYS_WRITES or name.startswith("bulk_"):
            hit = True
        elif name in QUERY_WRITES:
            hit = (
                any(m in text for m in QUERY_MARKERS)
                or (isinstance(receiver, ast.Name) and receiver.id in queries)
                or (name == "delete" and not node.args)
            )
        elif name == "execute" and node.args and isinstance(node.args[0], ast.Constant):
            hit = str(node.args[0].value).lstrip().upper().startswith(SQL_WRITES)
        else:
            hit = False
        if hit:
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:90]}")
    return found


def _imports(path: Path) -> list[str]:
    """Every absolute module a file imports, at the top or inside a function."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) in ("import_module", "importlib.import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.append(str(node.args[0].value))
    return names


def _imports_of(top: str, forbidden: set[str]) -> set[tuple[str, str]]:
    return {
        (str(path.relative_to(ROOT)), name)
        for path in (ROOT / top).rglob("*.py")
        for name in _imports(path)
        if name.split(".")[0] in forbidden
    }


def test_the_adapter_patterns_find_every_adapter_module() -> None:
    """Each pattern still matches a file, and the modules issue 13 §4 found unchecked are in."""
    adapters = {str(p.relative_to(ROOT)) for p in _adapter_modules()}
    empty = [pat for pat in ADAPTER_PATTERNS if not any(ROOT.glob(pat))]
    assert empty == [], f"adapter patterns that match nothing (renamed?): {empty}"
    named = {
        "tasks/views/board.py",
        "tasks/views/task.py",
        "tasks/mcp_comments.py",
        "reviews/mcp_files.py",
        "reviews/file_views.py",
        "sessions/hooks.py",
        "sessions/wake.py",
        "relaybay_site/integrations.py",
        "relaybay_site/mcp_server.py",
    }
    assert named <= adapters, f"not checked: {sorted(named - adapters)}"
    assert {"tasks", "plans", "reviews", "sessions"} <= set(APPS)


def test_the_write_detector_sees_writes_and_not_dict_updates(tmp_path: Path) -> None:
    sample = tmp_path / "views.py"
    sample.write_text(
        "async def v(task, context, rows):\n"
        "    context.update(page=1)\n"
        "    {}.update(a=1)\n"
        "    seen = set(); seen.update(rows)\n"
        "    task.save(update_fields=['x'])\n"
        "    Task.objects.create(title='x')\n"
        "    Task.objects.filter(id=1).update(title='y')\n"
        "    qs = Task.objects.filter(id=1)\n"
        "    qs.update(title='z')\n"
        "    task.delete()\n"
        "    task.comments.create(body='b')\n"
        "    Comment.objects.bulk_create([])\n"
        "    Session.objects.get_or_create(name='n')\n"
        "    await task.asave()\n"
        "    connection.cursor().execute('UPDATE tasks_task SET title = 1')\n"
        "    connection.cursor().execute('SELECT 1')\n"
    )
    lines = [int(hit.split(":")[1]) for hit in _orm_writes(sample)]
    assert sorted(lines) == [5, 6, 7, 9, 10, 11, 12, 13, 14, 15]


def test_adapters_never_write_to_the_database_themselves() -> None:
    offenders = [hit for path in _adapter_modules() for hit in _orm_writes(path)]
    assert offenders == [], "move these writes into a service:\n" + "\n".join(offenders)


def test_modules_stay_under_the_hard_size_cap() -> None:
    too_big = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for p in _source_files()
        if (n := len(p.read_text().splitlines())) > 600
    ]
    assert too_big == [], "split these modules into a package:\n" + "\n".join(too_big)


def test_the_tasks_app_imports_no_other_app() -> None:
    """tasks is the base: it may use the foundation (core: errors, display, links, live,
    mcp, security, tokens, actor) and itself, nothing else. Today it needs nothing of
    relaybay_site; the other apps plug into it through tasks/extensions.py."""
    forbidden = set(PACKAGES) - {"tasks", FOUNDATION}
    offenders = sorted(_imports_of("tasks", forbidden))
    assert offenders == [], "tasks must not import other apps:\n" + "\n".join(map(str, offenders))


def test_the_policy_app_imports_only_the_base() -> None:
    """policy sits under environments, the guard and the memory's secret scan, which all
    import it (effective policies, safe_regex, the widening rule): it reaches environments
    only through its foreign keys, so those imports never close a circle."""
    forbidden = set(PACKAGES) - {"policy", "tasks", FOUNDATION}
    offenders = sorted(_imports_of("policy", forbidden))
    assert offenders == [], "policy may import tasks and core only:\n" + "\n".join(
        map(str, offenders)
    )


def test_the_environments_app_imports_only_policy_and_the_base() -> None:
    """environments sits on policy (effective policies, safe_regex, the widening rule) and
    the base; the calling session comes through tasks.extensions' caller seam, and the guard
    and the memory will import environments.secrets, never the other way round."""
    forbidden = set(PACKAGES) - {"environments", "policy", "tasks", FOUNDATION}
    offenders = sorted(_imports_of("environments", forbidden))
    assert offenders == [], "environments may import policy, tasks and core only:\n" + "\n".join(
        map(str, offenders)
    )


# Known exceptions to "core imports no app", each to be removed, never added to.
# Issue 13 §3: the `[rules]` setting is validated by the working-rules module when the
# settings load, before Django starts (docs/architecture.md §2 names this one exception).
FOUNDATION_IMPORTS_ALLOWED = {("core/config.py", "tasks.rules")}


def test_the_foundation_imports_no_app() -> None:
    """core (config, errors, actor, tokens, security, live bus, flash, markdown, display,
    static, links, mcp helpers) is imported by everyone and imports no app, the roof or the
    console package."""
    forbidden = set(PACKAGES) - {FOUNDATION}
    found = _imports_of(FOUNDATION, forbidden)
    new = sorted(found - FOUNDATION_IMPORTS_ALLOWED)
    assert new == [], "core must not import apps:\n" + "\n".join(map(str, new))
    stale = sorted(FOUNDATION_IMPORTS_ALLOWED - found)
    assert stale == [], f"allowed imports that are gone, remove them from the list: {stale}"


def test_only_the_entry_points_import_the_roof() -> None:
    """relaybay_site assembles the apps; an app or core importing it would close a circle."""
    offenders = sorted(hit for top in (FOUNDATION, *APPS) for hit in _imports_of(top, {ROOF}))
    assert offenders == [], "import relaybay_site only from entry points:\n" + "\n".join(
        map(str, offenders)
    )


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
