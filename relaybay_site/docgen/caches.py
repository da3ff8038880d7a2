"""docs/architecture.md §13's table of every cache and in-process store, from core.caches.

A store registers where it is made (core/caches.py), so the registry is full only once every
module that makes one is imported; `load()` imports them — every product module that names
core.caches — and `sites()` finds, by reading the code, every `Memo(`, `lru_cache` and
`cache` a module makes, for tests/test_caches.py to hold each one registered.
"""

from __future__ import annotations

import ast
from importlib import import_module
from pathlib import Path
from typing import NamedTuple

from relaybay_site.docgen.common import cell

ROOT = Path(__file__).resolve().parent.parent.parent
CACHE_CALLS = {"cache", "lru_cache", "Memo"}  # functools' two, core.memo's


def product_files() -> list[Path]:
    """Every module of the product: the repository's top-level packages but tests, without
    migrations."""
    return sorted(
        path
        for init in ROOT.glob("*/__init__.py")
        if init.parent.name != "tests"
        for path in init.parent.rglob("*.py")
        if "migrations" not in path.parts and "__pycache__" not in path.parts
    )


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def load() -> None:
    """Import every product module that registers a store, so the registry holds them all."""
    for path in product_files():
        text = path.read_text(encoding="utf-8")
        if "core.caches" in text or "from core import caches" in text:
            import_module(module_name(path))


class Site(NamedTuple):
    """Where the code makes a cache: its module and the name it is kept under — a function
    (`module.fn`, `module.Class.fn`), a module's attribute (`module._x`), or an instance's
    (`.attr`: registered under any path that ends so)."""

    module: str
    name: str
    line: int


def _called(node: ast.expr) -> str | None:
    """`cache`, `functools.lru_cache(…)`, `Memo[…](…)` → its name; anything else None."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr if node.attr in CACHE_CALLS else None
    if isinstance(node, ast.Name):
        return node.id if node.id in CACHE_CALLS else None
    return None


def _sites_in(tree: ast.Module, module: str) -> list[Site]:
    found: set[Site] = set()

    def owner(scope: list[tuple[str, bool]]) -> str:
        """A cache made inside a function (a decorator factory's cache(build)) is registered
        under the outermost function: the classes down to it, then it."""
        names: list[str] = []
        for name, is_function in scope:
            names.append(name)
            if is_function:
                break
        return ".".join([module, *names])

    def walk(nodes: list[ast.AST], scope: list[tuple[str, bool]]) -> None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if any(_called(d) for d in node.decorator_list):
                    found.add(Site(module, owner([*scope, (node.name, True)]), node.lineno))
                walk(node.body, [*scope, (node.name, True)])
            elif isinstance(node, ast.ClassDef):
                walk(node.body, [*scope, (node.name, False)])
            elif (name := _stored_as(node, module, scope)) is not None:
                found.add(Site(module, name, node.lineno))
            elif isinstance(node, ast.Call) and _called(node) and scope:
                found.add(Site(module, owner(scope), node.lineno))
            else:
                walk(list(ast.iter_child_nodes(node)), scope)

    walk(list(tree.body), [])
    return sorted(found, key=lambda s: s.line)


def _stored_as(node: ast.AST, module: str, scope: list[tuple[str, bool]]) -> str | None:
    """`_x = Memo(…)` at module level → `module._x`; `self._x = Memo(…)` → `._x`."""
    if not isinstance(node, ast.Assign | ast.AnnAssign):
        return None
    if not (isinstance(node.value, ast.Call) and _called(node.value)):
        return None
    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
    if isinstance(target, ast.Name) and not scope:
        return f"{module}.{target.id}"
    if isinstance(target, ast.Attribute):
        return f".{target.attr}"
    return None


def sites() -> list[Site]:
    """Every cache the product code makes, read from its source."""
    found: list[Site] = []
    for path in product_files():
        source = path.read_text(encoding="utf-8")
        if not any(word in source for word in CACHE_CALLS):
            continue
        found += _sites_in(ast.parse(source), module_name(path))
    return found


def table() -> list[str]:
    """The table's lines, one row per registered store, by name."""
    from core import caches

    load()
    rows = [
        f"| `{k.name}` | {cell(k.key)} | {cell(k.bound)} | {cell(k.invalidation)} "
        f"| {cell(k.reset)} |"
        for k in caches.registered()
    ]
    return [
        "| Store | Key | Bound | Forgets when | A test starts clean by |",
        "| --- | --- | --- | --- | --- |",
        *rows,
    ]
