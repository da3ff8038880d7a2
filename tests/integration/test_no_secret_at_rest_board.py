"""Generated from the board itself: every form of every page of `relaybay demo`'s workspace,
each text field in turn holding a made-up secret (and, where it holds JSON or name: value
lines, at every depth), posted as the owner's browser posts it; then the whole data folder
searched for each secret, lowercased too, and every refusal read for an echo (issue 28)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin

import httpx2
import pytest

from core import tokens
from core.security import COOKIE_NAME
from tests.integration.secret_probes import found_in_folder, new_secret, placements
from tests.support.server import RelaybayServer, run_cli

pytestmark = pytest.mark.integration

TEXT_TYPES = {"text", "url", "search", "email", ""}


@dataclass
class Form:
    action: str
    fields: list[tuple[str, str, str]] = field(default_factory=list)  # (name, type, value)

    def text_fields(self) -> list[str]:
        return [n for n, t, _ in self.fields if t in TEXT_TYPES | {"textarea"} and n]

    def values(self) -> dict[str, str]:
        return {n: v for n, t, v in self.fields if n and t != "unchecked"}


class Forms(HTMLParser):
    """Every <form method=post> of a page with its fields and their rendered values."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._textarea: tuple[str, list[str]] | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "").lower() == "post":
            self._form = Form(a.get("action", ""))
            self.forms.append(self._form)
        if self._form is None:
            return
        if tag == "input":
            kind = a.get("type", "").lower()
            if kind in ("checkbox", "radio") and "checked" not in a:
                kind = "unchecked"
            if kind not in ("submit", "button", "file"):
                self._form.fields.append((a.get("name", ""), kind, a.get("value", "")))
        elif tag == "textarea":
            self._textarea = (a.get("name", ""), [])
        elif tag == "select":
            self._select = a.get("name", "")
        elif tag == "option" and self._select is not None and "selected" in a:
            self._form.fields.append((self._select, "select", a.get("value", "")))
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._textarea[1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea" and self._form is not None and self._textarea is not None:
            name, parts = self._textarea
            self._form.fields.append((name, "textarea", "".join(parts).removeprefix("\n")))
            self._textarea = None
        elif tag == "select":
            self._select = None
        elif tag == "form":
            self._form = None


def text_placements(value: str) -> list[tuple[str, str, str]]:
    """(where, the field's text with a secret placed there, the secret)."""
    secret, line, key = new_secret(), new_secret(), new_secret()
    found = [
        ("", f"see {secret} here", secret),
        ("+line", f"{value}\nnote: {line}", line),
        ("+name", f"{value}\n{key}: x", key),
    ]
    try:
        parsed = json.loads(value)
    except ValueError:
        return found
    if isinstance(parsed, dict):
        found += [(where, json.dumps(placed), s) for where, placed, s in placements(parsed)]
    return found


def pages(home: Any) -> list[str]:
    from tests.support.server import read_only_db

    with read_only_db(home) as db:
        slugs = [r[0] for r in db.execute("SELECT slug FROM tasks_project")]
        keys = [r[0] for r in db.execute("SELECT key FROM tasks_task")]
        docs = db.execute(
            "SELECT p.slug, d.name FROM memory_document d "
            "JOIN tasks_project p ON p.id = d.project_id"
        )
        doc_pages = [f"/p/{slug}/docs/{name}" for slug, name in docs]
    found = ["/", "/inbox", "/activity", "/sessions", "/settings/integrations"]
    found += ["/settings/notifications", "/settings/policy"]
    for slug in slugs:
        found += [f"/p/{slug}", f"/p/{slug}/sessions", f"/p/{slug}/environments"]
        found += [f"/p/{slug}/docs", f"/settings/policy?scope={slug}"]
    for key in keys:
        found += [f"/t/{key}", f"/t/{key}?tab=review", f"/t/{key}?tab=plan"]
    return found + doc_pages


@pytest.fixture
def demo(tmp_path: Any) -> Any:
    home = tmp_path / "demo"
    done = run_cli("demo", "--home", str(home))
    assert done.returncode == 0, done.stderr
    server = RelaybayServer(home=home).start()
    yield server
    server.stop()


def test_no_board_form_stores_a_secret_typed_into_any_field(demo: RelaybayServer) -> None:
    token = demo.token
    headers = {
        "Cookie": f"{COOKIE_NAME}={tokens.cookie_value(token)}",
        "Origin": demo.base_url,
        "Sec-Fetch-Site": "same-origin",
    }
    placed: list[tuple[str, str, str]] = []  # (form, where, secret)
    echoed: list[str] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    with httpx2.Client(base_url=demo.base_url, headers=headers, timeout=30) as web:
        forms: list[Form] = []
        for path in pages(demo.home):
            page = web.get(path, follow_redirects=True)
            assert page.status_code == 200, (path, page.status_code)
            parser = Forms()
            parser.feed(page.text)
            for form in parser.forms:
                shape = (re.sub(r"\d+", "N", form.action), tuple(form.text_fields()))
                if form.action and form.text_fields() and shape not in seen:
                    seen.add(shape)
                    forms.append(form)
        assert len(forms) >= 10, [f.action for f in forms]
        for form in forms:
            for name in form.text_fields():
                for where, value, secret in text_placements(form.values().get(name, "")):
                    answer = web.post(
                        urljoin(demo.base_url, form.action), data=form.values() | {name: value}
                    )
                    assert answer.status_code < 500, (form.action, name, answer.text[:300])
                    placed.append((form.action, f"{name}{where}", secret))
                    if secret in answer.text or secret.lower() in answer.text:
                        echoed.append(f"{form.action} {name}{where}")
    demo.stop()  # the log complete, the database at rest
    found = found_in_folder(demo.home, [secret for _, _, secret in placed])
    leaks = [f"{action} {where}: {found[s]}" for action, where, s in placed if s in found]
    assert leaks == []
    assert echoed == [], "\n".join(echoed)
    assert len(placed) > 60
