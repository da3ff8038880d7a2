"""The Stands & access forms read into service arguments (environments/views.py).

Parsing only: every rule lives in environments/fields.py and the services, which refuse what
breaks one, so nothing here is checked twice. `name: value` lines go through
fields.parse_lines, their one reader.
"""

from __future__ import annotations

from django.http import QueryDict

from environments import fields as f
from environments.services import Change
from policy.catalog import CAPABILITIES

OVERRIDE = "override_"  # override_<capability>: one select per capability


def environment_change(post: QueryDict) -> tuple[Change, bool]:
    """The environment form as a Change, and whether it adds a new environment.

    `environment` is the name the panel was rendered for ("" on the Add form), `name` the
    name typed, so a rename is an ordinary change. The sign-in box is a checkbox: absent is
    off (the service forces it off on live anyway). A missing override select keeps it.
    """
    original = post.get("environment", "").strip()
    name = post.get("name", "")
    overrides = {c: post[OVERRIDE + c] for c in CAPABILITIES if OVERRIDE + c in post}
    change = Change(
        environment=original or name,
        new_name=name if original else None,
        kind=post.get("kind"),
        base_url=post.get("base_url"),
        sign_in_allowed="sign_in_allowed" in post,
        login_state_path=post.get("login_state_path"),
        notes=post.get("notes"),
        level=post.get("level"),
        overrides=overrides or None,
    )
    return change, not original


def entry_fields(post: QueryDict) -> dict[str, str]:
    """The fields box: one `name: value` per line."""
    return f.parse_lines(post.get("fields", ""), field="fields")


def entry_test_secrets(post: QueryDict) -> dict[str, str] | None:
    """The Test secrets box, or None when the form had none (the stored ones stay)."""
    if "test_secrets" not in post:
        return None
    return f.parse_lines(post["test_secrets"], field="test_secrets")
