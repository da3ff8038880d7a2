"""URLs have one source (issue 13 §3): the route tables in the urls.py files.

Templates link with `{% url %}` (or a variable a view computed, or `{% static %}`), Python
builds links with `reverse()` (core/links.py for pages that link hundreds of rows), and the
browser scripts read URLs from the `data-*-url` attributes the templates fill. A path
written by hand elsewhere silently breaks when a route moves; these checks find one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from django.urls import URLPattern, URLResolver, get_resolver, reverse

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "relaybay", "relaybay_site", "tasks", "plans", "reviews", "sessions")
PACKAGES += ("environments", "policy", "memory")

# A template attribute or a string inside a template tag ({% with %}, {% if … == %}) whose
# value starts with "/": href="/p/{{ slug }}", action="/login", hx-get="/inbox/groups",
# data-dialog-url="/p/…", {% if current_path == "/inbox" %}.
TEMPLATE_ATTR = re.compile(r"""\s([\w:.@-]+)\s*=\s*(["'])(/[^"']*)\2""")
TEMPLATE_TAG = re.compile(r"\{%.*?%\}", re.DOTALL)
TAG_STRING = re.compile(r"""(["'])(/[^"']*)\1""")
# A JavaScript string literal (', " or `) that starts with "/".
JS_STRING = re.compile(r"""(["'`])(/[^"'`\n]*)\1""")
# What board links begin with; the public paths (/login, /healthz) and the machine paths
# (/mcp, /hooks) are matched by the middleware, not linked, and are left out on purpose.
PY_PREFIXES = ("/p/", "/t/", "/inbox", "/activity", "/settings", "/sessions", "/projects")
PY_PREFIXES += ("/files/", "/events", "/session-check")


def _first_segments() -> set[str]:
    """The first path segment of every route: p, t, inbox, activity, settings, events …"""
    segments: set[str] = set()

    def walk(patterns: list[URLPattern | URLResolver], prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif route.split("/")[0]:
                segments.add(route.split("/")[0].split("<")[0])

    walk(get_resolver().url_patterns, "")
    return {s for s in segments if s}


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def template_offenders(root: Path = ROOT) -> list[str]:
    found = []
    for path in sorted((root / "templates").rglob("*.html")):
        text = path.read_text()
        name = path.relative_to(root)
        # Attributes outside template tags; a tag's strings are checked on their own.
        markup = TEMPLATE_TAG.sub(lambda tag: " " * len(tag.group()), text)
        for m in TEMPLATE_ATTR.finditer(markup):
            found.append(f"{name}:{_line(text, m.start())}: {m.group(1)}={m.group(3)!r}")
        for tag in TEMPLATE_TAG.finditer(text):
            for m in TAG_STRING.finditer(tag.group()):
                line = _line(text, tag.start() + m.start())
                found.append(f"{name}:{line}: {m.group(2)!r} in a template tag")
    return found


def script_offenders(root: Path = ROOT) -> list[str]:
    segments = _first_segments()
    found = []
    for path in sorted((root / "static" / "relaybay").glob("*.js")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.lstrip().startswith("//"):
                continue
            for m in JS_STRING.finditer(line):
                first = re.split(r"[/?#]", m.group(2)[1:], maxsplit=1)[0]
                if first in segments:
                    found.append(f"{path.relative_to(root)}:{number}: {m.group(2)!r}")
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def python_offenders(root: Path = ROOT) -> list[str]:
    found = []
    for top in PACKAGES:
        for path in sorted((root / top).rglob("*.py")):
            if path.name == "urls.py" or "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text())
            skip = _docstrings(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.JoinedStr) and node.values:
                    for part in node.values[1:]:
                        skip.add(id(part))  # only an f-string's start counts
                if not isinstance(node, ast.Constant) or id(node) in skip:
                    continue
                if isinstance(node.value, str) and node.value.startswith(PY_PREFIXES):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
    return found


def test_the_route_tables_name_the_paths_these_checks_look_for() -> None:
    assert {"p", "t", "inbox", "activity", "settings", "sessions", "events"} <= _first_segments()
    assert reverse("task_dialog", args=["acme", "acme-1"]) == "/p/acme/t/acme-1/dialog"


def test_templates_write_no_internal_path_by_hand() -> None:
    offenders = template_offenders()
    assert offenders == [], "use {% url 'name' … %} (or a URL the view computed):\n" + "\n".join(
        offenders
    )


def test_scripts_take_internal_urls_from_data_attributes() -> None:
    offenders = script_offenders()
    assert offenders == [], (
        "read the URL from a data-*-url attribute a template fills with {% url %}:\n"
        + "\n".join(offenders)
    )


def test_python_builds_board_links_with_reverse() -> None:
    offenders = python_offenders()
    assert offenders == [], "use reverse() (or core.links.link_pattern):\n" + "\n".join(offenders)


def test_the_checks_find_a_hand_written_path(tmp_path: Path) -> None:
    """Each check fails on the kind of line this issue removed (about sixty of them)."""
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "x.html").write_text(
        '<a href="/p/{{ p.slug }}">x</a>\n{% with href="/p/"|add:p.slug %}{% endwith %}\n'
        "<a href=\"{% url 'inbox' %}\">ok</a><img src=\"{% static 'a.svg' %}\">\n"
    )
    (tmp_path / "static" / "relaybay").mkdir(parents=True)
    (tmp_path / "static" / "relaybay" / "x.js").write_text(
        'fetch("/session-check");\nvar u = "/p/" + slug;\n'
        '// the /events stream\ns.replace(/%2F/g, "/");\n'
    )
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "x.py").write_text(
        '"""Links to `/p/<slug>`."""\nhref = f"/p/{slug}?task={key}"\nok = f"{base}/p/"\n'
    )
    assert len(template_offenders(tmp_path)) == 2
    assert len(script_offenders(tmp_path)) == 2
    assert python_offenders(tmp_path) == ["tasks/x.py:2: '/p/'"]
