"""Merging policy layers, remembering which layer set every value (§7 Policy).

Pure functions over plain JSON values, so the merge rules are tested as tables and the
same code serves the effective policy, the editor's preview and proposals:

- objects merge key by key; scalars and lists replace;
- guard.disable, guard.patterns, secrets.disable and secrets.allow may also be written
  `key+` (add; a pattern with an existing id replaces it) and `key-` (remove by value, or
  a pattern by id), applied after `key`;
- `preset` counts only in the global layer; `$schema` and `description` are ignored.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from policy.presets import preset

EDITABLE_LISTS = frozenset(
    {("guard", "disable"), ("guard", "patterns"), ("secrets", "disable"), ("secrets", "allow")}
)
IGNORED_KEYS = frozenset({"$schema", "description", "preset"})


@dataclass(frozen=True)
class Layer:
    """One layer as the merge sees it: where it comes from and its JSON object."""

    source: str  # preset:<name>, config, global, project:<slug>, environment:<slug>/<name>
    body: dict[str, Any]


@dataclass(frozen=True)
class Merged:
    """The merged policy and, for every leaf (a scalar or a whole list), its source."""

    values: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)

    def get(self, path: str, default: Any = None) -> Any:
        node: Any = self.values
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def lines(self) -> list[tuple[str, Any, str]]:
        """(path, value, source) of every leaf, in the order the layers wrote the keys."""
        return [(path, self.get(path), source) for path, source in self.sources.items()]


def merge(layers: Iterable[Layer]) -> Merged:
    """Apply the layers in order, a later one winning (§7)."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for layer in layers:
        _apply(values, sources, layer.body, (), layer.source, top=True)
    ordered = dict(sorted(sources.items(), key=lambda item: _order(values, item[0])))
    return Merged(values=values, sources=ordered)


def preset_layer(name: str) -> Layer:
    return Layer(source=f"preset:{name}", body=preset(name))


def merge_patch(body: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """RFC 7386: objects merge key by key, any other value replaces, null removes a key."""
    result = copy.deepcopy(body)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merge_patch(result[key], value)
        elif isinstance(value, dict):
            result[key] = merge_patch({}, value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def show(value: Any) -> str:
    """A value as one line of JSON (what policy_get and the page print)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


# --- the steps ------------------------------------------------------------------------------


def _apply(
    target: dict[str, Any],
    sources: dict[str, str],
    body: dict[str, Any],
    path: tuple[str, ...],
    source: str,
    *,
    top: bool = False,
) -> None:
    plain = [k for k in body if not k.endswith(("+", "-")) or (*path, k[:-1]) not in EDITABLE_LISTS]
    for key in plain:
        if top and key in IGNORED_KEYS:
            continue
        value = body[key]
        here = (*path, key)
        if isinstance(value, dict):
            if not isinstance(target.get(key), dict):
                _forget(sources, here)
                target[key] = {}
            _apply(target[key], sources, value, here, source)
        else:
            _forget(sources, here)
            target[key] = copy.deepcopy(value)
            sources[".".join(here)] = source
    for suffix in ("+", "-"):
        for key in body:
            base = key[:-1]
            if key.endswith(suffix) and (*path, base) in EDITABLE_LISTS:
                edit = _add if suffix == "+" else _remove
                target[base] = edit(list(target.get(base) or []), body[key])
                sources[".".join((*path, base))] = source


def _forget(sources: dict[str, str], path: tuple[str, ...]) -> None:
    """A value replaced whole takes the sources of whatever was under it with it."""
    prefix = ".".join(path)
    for known in [p for p in sources if p == prefix or p.startswith(prefix + ".")]:
        del sources[known]


def _add(items: list[Any], added: list[Any]) -> list[Any]:
    for item in added:
        ident = _pattern_id(item)
        if ident is not None:
            items = [i for i in items if _pattern_id(i) != ident]
            items.append(copy.deepcopy(item))
        elif item not in items:
            items.append(copy.deepcopy(item))
    return items


def _remove(items: list[Any], removed: list[Any]) -> list[Any]:
    """By value, or a pattern by its id (the schema makes every removed item a string)."""
    return [i for i in items if i not in removed and _pattern_id(i) not in removed]


def _pattern_id(item: Any) -> str | None:
    return item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str) else None


_TOP_ORDER = ("levels", "guard", "secrets")


def _order(values: dict[str, Any], path: str) -> tuple[Any, ...]:
    """Stable reading order: levels, guard, secrets; kinds local → live; then by name."""
    parts = path.split(".")
    head = _TOP_ORDER.index(parts[0]) if parts[0] in _TOP_ORDER else len(_TOP_ORDER)
    kinds = ("local", "test", "live")
    second = kinds.index(parts[1]) if len(parts) > 1 and parts[1] in kinds else len(kinds)
    leaf = 0 if parts[-1] in ("default", "mode") else 1
    return (head, parts[0], second, parts[1:-1], leaf, parts[-1])
