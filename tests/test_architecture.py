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
    "*/hooks/endpoint.py",
    "agents/*/hooks.py",
    "*/asgi.py",
    "*/hooks/asgi_io.py",
    "*/hooks/wake.py",
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
SQL_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER")
# The calls that run a statement: a cursor's, and core.rows' helpers (fetch_one runs an
# INSERT … RETURNING as well as a SELECT).
SQL_RUNNERS = {"execute", "executemany", "executescript", "fetch_one", "fetch_all", "fetch_related"}
# What a hand-written statement starts with (in capitals: prose saying "Create a task" is none).
SQL_START = re.compile(r"\s*\(?\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|CREATE|DROP|ALTER)\s")


def _source_files() -> list[Path]:
    files = []
    for top in PACKAGES:
        files += [p for p in (ROOT / top).rglob("*.py") if "migrations" not in p.parts]
    return files


def _adapter_modules() -> list[Path]:
    """The modules the patterns name, and every module found by what it provides."""
    found = {p for pattern in ADAPTER_PATTERNS for p in ROOT.glob(pattern)}
    found |= set(_providing_adapters())
    return sorted(p for p in found if p.relative_to(ROOT).parts[0] in PACKAGES)


def _providing_adapters() -> list[Path]:
    """Modules that are adapters by what they define, whatever their file is called: a view
    (a function whose first parameter is `request`), a raw ASGI app (scope, receive, send),
    an agent's hook adapter (its SPEC, or parse and render side by side) or an app's MCP
    tool list (`register(server)`)."""
    return [path for path in _source_files() if _provides_adapter(ast.parse(path.read_text()))]


def _provides_adapter(tree: ast.Module) -> bool:
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    params = [[a.arg for a in f.args.args] for f in functions]
    top = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    spec = any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "SPEC" for t in n.targets)
        for n in tree.body
    )
    return (
        spec
        or {"parse", "render"} <= top
        or any(p[:1] == ["request"] or p[:3] == ["scope", "receive", "send"] for p in params)
        or any(
            f.name == "register" and [a.arg for a in f.args.args] == ["server"] for f in functions
        )
    )


def _sync_name(method: str) -> str:
    """`asave` → `save`: the async twins Django added write just the same."""
    plain = method.removeprefix("a")
    writes = plain in ALWAYS_WRITES | QUERY_WRITES or plain.startswith("bulk_")
    return plain if method.startswith("a") and writes else method


def _sql_head(node: ast.AST) -> str | None:
    """The text a string constant or an f-string (`ast.JoinedStr`) starts with, when it is a
    statement's start; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        head = node.value
    elif isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        head = first.value if isinstance(first, ast.Constant) else ""
    else:
        return None
    return head if SQL_START.match(head) else None


def _ledger(path: Path) -> dict[str, bool]:
    """{name: whether it writes} of the statements and shapes of an sql.py."""
    found: dict[str, bool] = {}
    for node in ast.parse(path.read_text()).body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func) == "Statement"
        ):
            texts = node.value.args[:1]
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.FunctionDef) and any(
            ast.unparse(d).startswith("shape(") for d in node.decorator_list
        ):
            texts, names = [node], [node.name]
        else:
            continue
        heads = [h for t in texts for n in ast.walk(t) if (h := _sql_head(n)) is not None]
        for name in names:
            found[name] = any(h.lstrip(" (").upper().startswith(SQL_WRITES) for h in heads)
    return found


def _ledgers_imported(tree: ast.Module) -> dict[str, dict[str, bool]]:
    """{local name: its ledger} for each `from <package> import sql [as name]`."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                path = ROOT / Path(*node.module.split(".")) / "sql.py"
                if alias.name == "sql" and path.exists():
                    found[alias.asname or alias.name] = _ledger(path)
    return found


def _writes_sql(arg: ast.AST, ledgers: dict[str, dict[str, bool]]) -> bool:
    """Whether a statement run is a write: its text here (a constant or an f-string), or a
    statement of an app's sql.py (`sql.NAME.text`, `sql.shape(…)`)."""
    head = _sql_head(arg)
    if head is not None:
        return head.lstrip(" (").upper().startswith(SQL_WRITES)
    if isinstance(arg, ast.Call):
        arg = arg.func
    if isinstance(arg, ast.Attribute) and arg.attr == "text":
        arg = arg.value
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):
        return ledgers.get(arg.value.id, {}).get(arg.attr, False)
    return False


def _orm_writes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    ledgers = _ledgers_imported(tree)
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
        elif name in SQL_RUNNERS and node.args:
            hit = _writes_sql(node.args[0], ledgers)
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
        "sessions/hooks/endpoint.py",
        "agents/claude_code/hooks.py",
        "agents/codex/hooks.py",
        "sessions/hooks/wake.py",
        "relaybay_site/integrations.py",
        "relaybay_site/mcp_server.py",
    }
    assert named <= adapters, f"not checked: {sorted(named - adapters)}"
    provided = {str(p.relative_to(ROOT)) for p in _providing_adapters()}
    # found by what they provide, not by a file name (the agents' adapters, a raw door)
    assert {"agents/codex/hooks.py", "sessions/hooks/endpoint.py"} <= provided, provided
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
        "    cursor.execute(f'DELETE FROM {TABLE} WHERE rowid IN (%s, %s)', [1, 2])\n"
        "    cursor.execute(f'SELECT rowid FROM {TABLE}')\n"
        "    cursor.execute(sql.INSERT_ITEM.text, [])\n"
        "    cursor.execute(sql.TABLE_SQL.text, [])\n"
        "    cursor.execute(sql.indexed_count(True))\n"
        "    fetch_one(sql.TASK_BY_KEY.text, [])\n"
        "from memory import sql\n"
    )
    lines = [int(hit.split(":")[1]) for hit in _orm_writes(sample)]
    assert sorted(lines) == [5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 17, 19]


def test_adapters_never_write_to_the_database_themselves() -> None:
    offenders = [hit for path in _adapter_modules() for hit in _orm_writes(path)]
    assert offenders == [], "move these writes into a service:\n" + "\n".join(offenders)


# Every product module stays under MODULE_MAX lines (the regex shape scanner too: a package).
MODULE_MAX = 450
FUNCTION_MAX = 100


def test_modules_stay_under_the_size_cap() -> None:
    too_big = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for p in _source_files()
        if (n := len(p.read_text().splitlines())) > MODULE_MAX
    ]
    assert too_big == [], "split these modules by concept:\n" + "\n".join(too_big)


def test_functions_stay_under_the_size_cap() -> None:
    too_long = [
        f"{p.relative_to(ROOT)}:{node.lineno} {node.name}: {n} lines"
        for p in _source_files()
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (n := node.end_lineno - node.lineno + 1) > FUNCTION_MAX  # type: ignore[operator]
    ]
    assert too_long == [], "split these functions into steps:\n" + "\n".join(too_long)


# Which apps each app may import besides itself and core (docs/architecture.md §2): the base
# imports none; policy sits on the base; environments on policy; the memory and the
# sessions (the hook room calls the guard) on environments; plans on sessions (it reminds
# through the hook answer); reviews on the base. A new app fails until it has its line.
ALLOWED_IMPORTS = {
    "tasks": set(),
    "policy": {"tasks"},
    "environments": {"policy", "tasks"},
    "memory": {"environments", "policy", "tasks"},
    "sessions": {"environments", "policy", "tasks"},
    "plans": {"sessions", "tasks"},
    "effort": {"environments", "sessions", "tasks"},
    "reviews": {"tasks"},
    # agents write the hook command that runs relaybay.hook_client (its env names)
    "agents": {"effort", "relaybay", "sessions", "tasks"},
}


def test_every_app_has_its_allowed_imports() -> None:
    assert set(APPS) == set(ALLOWED_IMPORTS), "give a new app its line in ALLOWED_IMPORTS"


@pytest.mark.parametrize("app", sorted(ALLOWED_IMPORTS))
def test_an_app_imports_only_the_apps_beneath_it(app: str) -> None:
    forbidden = set(PACKAGES) - {app, FOUNDATION, *ALLOWED_IMPORTS[app]}
    offenders = sorted(_imports_of(app, forbidden))
    allowed = ", ".join(sorted(ALLOWED_IMPORTS[app] | {FOUNDATION}))
    assert offenders == [], f"{app} may import {allowed} only:\n" + "\n".join(map(str, offenders))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _private_imports(path: Path) -> list[str]:
    """Private modules or names (a leading _) this module imports from another package."""
    importer = _module_name(path)
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            continue
        if node.module.split(".")[0] not in PACKAGES:
            continue
        parts = node.module.split(".")
        private = [i for i, part in enumerate(parts) if part.startswith("_")]
        if private:  # a private module: its package is everything before it
            owner = ".".join(parts[: private[0]])
        elif any(a.name.startswith("_") and not a.name.startswith("__") for a in node.names):
            owner = ".".join(parts[:-1]) if len(parts) > 1 else parts[0]
            if (ROOT / Path(*parts) / "__init__.py").exists():
                owner = node.module  # a name of a package's face belongs to that package
        else:
            continue
        if not (importer == owner or importer.startswith(owner + ".")):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import …")
    return found


def test_no_private_module_or_name_is_imported_from_outside_its_package() -> None:
    offenders = [hit for path in _source_files() for hit in _private_imports(path)]
    assert offenders == [], "give these a public name:\n" + "\n".join(offenders)


def test_the_private_import_check_sees_a_fence_crossed(tmp_path: Path) -> None:
    probe = ROOT / "plans" / "_probe_private_import.py"
    probe.write_text(
        "from tasks.services._taskwrite import dev_hint\n"
        "from sessions.fields import _AGENT_ID\n"
        "from plans.services import clean_steps\n"
    )
    try:
        assert [hit.split(": ", 1)[1] for hit in _private_imports(probe)] == [
            "from tasks.services._taskwrite import …",
            "from sessions.fields import …",
        ]
    finally:
        probe.unlink()


def _is_service_module(path: Path) -> bool:
    parts = path.relative_to(ROOT).parts
    return "services" in parts or path.name == "services.py"


def _event_writes(path: Path) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{node.lineno}: record_event(…)"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) == "record_event"
    ]


# Modules besides the services that write, each a derived store no event of its own names:
# memory/search.py keeps the search index in step inside each covered write's transaction
# (through the tasks.events observer seam) and rebuilds it at start (docs/architecture.md §2).
DERIVED_STORE_WRITERS = {"memory/search.py"}


def test_nothing_but_services_writes_a_row_or_records_an_event() -> None:
    """§1 "nothing else writes": every module of every app and of the roof, not only the
    adapters — a save, create, delete, queryset update, bulk write, writing SQL (a constant,
    an f-string or a statement of an sql.py) or record_event outside a services module
    (migrations are not product modules)."""
    offenders = [
        hit
        for path in _source_files()
        if not _is_service_module(path) and str(path.relative_to(ROOT)) not in DERIVED_STORE_WRITERS
        for hit in (*_orm_writes(path), *_event_writes(path))
    ]
    assert offenders == [], "move these writes into a service:\n" + "\n".join(offenders)


def test_the_derived_store_writers_still_write() -> None:
    """Each exception above is still needed: the detector sees its writes (the search index's
    are f-strings and statements of memory/sql.py, which it once could not see)."""
    for name in DERIVED_STORE_WRITERS:
        assert len(_orm_writes(ROOT / name)) >= 5, f"{name} writes nothing: drop the exception"


# Hand-written SQL lives in a ledger, an sql.py (docs/architecture.md §6), with its row type
# and its twin test. core/rows.py is the machinery that writes the generic statements from a
# model's metadata (has_rows, rows_where, count_where, insert, update).
SQL_MACHINERY = {"core/rows.py"}
# Statements per sql.py: the largest today holds 15 (tasks), then 14 (memory). A ledger that
# outgrows this is two concepts, or reads that the ORM should make (§6: SQL only where a
# profile shows it).
SQL_LEDGER_MAX = 18


def _hand_written_sql(path: Path) -> list[str]:
    """Statement texts (constants and f-strings) and *_SQL names outside a ledger."""
    tree = ast.parse(path.read_text())
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in ast.walk(n)} - {
        id(n) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)
    }
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = [
        f"{where}:{node.lineno}: {_sql_head(node)!r:.60}"
        for node in ast.walk(tree)
        if id(node) not in inner and _sql_head(node) is not None
    ]
    found += [
        f"{where}:{node.lineno}: {target.id}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id.endswith("_SQL")
    ]
    return found


def test_hand_written_sql_lives_in_an_sql_py() -> None:
    offenders = [
        hit
        for path in _source_files()
        if path.name != "sql.py" and str(path.relative_to(ROOT)) not in SQL_MACHINERY
        for hit in _hand_written_sql(path)
    ]
    assert offenders == [], "move these statements to the app's sql.py:\n" + "\n".join(offenders)


def test_the_sql_detector_sees_constants_f_strings_and_names(tmp_path: Path) -> None:
    sample = tmp_path / "selectors.py"
    sample.write_text(
        '"""Create a task, select one (prose is no statement)."""\n'
        "_ONE_SQL = 'x'\n"
        "def f(cursor, table):\n"
        "    cursor.execute('SELECT 1')\n"
        "    cursor.execute(f'DELETE FROM {table}')\n"
        "    return f'{table} WHERE 1', 'select'\n"
    )
    found = [hit.split(":")[1] for hit in _hand_written_sql(sample)]
    assert sorted(found) == ["2", "4", "5"]


def test_every_sql_py_keeps_to_its_statement_budget() -> None:
    over = []
    for path in _source_files():
        if path.name != "sql.py":
            continue
        count = len(_ledger(path))
        if count > SQL_LEDGER_MAX:
            over.append(f"{path.relative_to(ROOT)}: {count} statements")
    assert over == [], f"at most {SQL_LEDGER_MAX} statements an sql.py:\n" + "\n".join(over)


def test_every_register_of_a_seam_is_plugged_in_once() -> None:
    """An app's register() (no arguments: it fills the seams from ready()) is decorated
    @plug_in_once; register(server) adds MCP tools to a new server each time."""
    offenders = []
    for path in _source_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.FunctionDef) and node.name == "register"):
                continue
            if node.args.args:
                continue
            if not any(ast.unparse(d).endswith("plug_in_once") for d in node.decorator_list):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == [], "decorate these with @plug_in_once:\n" + "\n".join(offenders)


# Known exceptions to "core imports no app", each to be removed, never added to.
# Issue 13 §3: the `[rules]` setting is validated by the working-rules module when the
# settings load, before Django starts (docs/architecture.md §2 names this one exception).
FOUNDATION_IMPORTS_ALLOWED = {("core/config.py", "tasks.rules.schema")}


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
