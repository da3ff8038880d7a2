"""Which files a tool call is about to change (issue 32): the edit tools of both agents,
the obvious shell writes and their near misses, and only paths inside the repository."""

from __future__ import annotations

import pytest

from agents.claude_code import hooks as claude_code
from agents.codex import hooks as codex
from sessions.hooks.touches import in_repository, written_paths
from tests.sessions import codex_payloads, hook_payloads

ROOT = "/home/dev/acme-shop"


def claude_tool(name: str, tool_input: dict) -> list[str]:
    """The paths of a Claude Code PreToolUse: the captured one, its tool replaced."""
    body = hook_payloads.payload("PreToolUse.Bash", tool_name=name, tool_input=tool_input)
    event = claude_code.parse(body)
    assert event is not None
    return written_paths(event.tool)


def shell(command: str) -> list[str]:
    return claude_tool("Bash", {"command": command, "description": "x"})


@pytest.mark.parametrize(
    ("name", "tool_input", "paths"),
    [
        (
            "Edit",
            {"file_path": f"{ROOT}/src/cart.py", "old_string": "a", "new_string": "b"},
            [f"{ROOT}/src/cart.py"],
        ),
        ("Write", {"file_path": "notes.md", "content": "never kept"}, ["notes.md"]),
        ("MultiEdit", {"file_path": f"{ROOT}/a.py", "edits": []}, [f"{ROOT}/a.py"]),
        (
            "NotebookEdit",
            {"notebook_path": f"{ROOT}/n.ipynb", "new_source": "x"},
            [f"{ROOT}/n.ipynb"],
        ),
        ("Read", {"file_path": f"{ROOT}/src/cart.py"}, []),
        ("Grep", {"pattern": "x", "path": ROOT}, []),
    ],
)
def test_claude_codes_edit_tools_name_their_file(name: str, tool_input: dict, paths: list) -> None:
    assert claude_tool(name, tool_input) == paths


def test_codexs_apply_patch_names_every_file_of_the_patch() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/cart.py\n@@\n-a\n+b\n*** Add File: src/new.py\n"
        "+x\n*** Delete File: old.py\n*** Update File: a.py\n*** Move to: b.py\n*** End Patch\n"
    )
    body = codex_payloads.codex_payload(
        "PreToolUse.Bash", tool_name="apply_patch", tool_input={"command": patch}
    )
    event = codex.parse(body)
    assert event is not None

    assert written_paths(event.tool) == ["src/cart.py", "src/new.py", "old.py", "a.py", "b.py"]


def test_a_codex_shell_write_is_read_like_any_other() -> None:
    body = codex_payloads.codex_payload("PreToolUse.Bash", tool_input={"command": "echo x > out"})
    assert written_paths(codex.parse(body).tool) == ["out"]


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("echo hi > out.txt", ["out.txt"]),
        ("echo hi >> log/today.txt", ["log/today.txt"]),
        ("make 2> err.log", ["err.log"]),
        ("ls | tee -a a.txt b.txt", ["a.txt", "b.txt"]),
        ("sed -i 's/a/b/' src/a.py", ["src/a.py"]),
        ("sed -i.bak -e 's/a/b/' src/a.py src/b.py", ["src/a.py", "src/b.py"]),
        ("mv a.py b.py", ["a.py", "b.py"]),
        ("cp -r templates/base.html templates/new.html", ["templates/new.html"]),
        ("rm -rf build dist", ["build", "dist"]),
        ("git checkout -- src/x.py src/y.py", ["src/x.py", "src/y.py"]),
        ("cd src && echo x > y.txt", ["src/y.txt"]),
        ("pytest -q; echo done > .last-run", [".last-run"]),
        # near misses: reads, writes to nowhere, quoted text, another checkout
        ("cat x", []),
        ("grep -r foo src > /dev/null", []),
        ("cmd 2>&1 | less", []),
        ("echo 'a > b'", []),
        ("sed 's/a/b/' src/a.py", []),
        ("git checkout main", []),
        ("cp onlyone", []),
        ("echo 'unclosed > x", []),
    ],
)
def test_the_obvious_shell_writes_and_their_near_misses(command: str, paths: list[str]) -> None:
    assert shell(command) == paths


@pytest.mark.parametrize(
    ("paths", "cwd", "inside"),
    [
        ([f"{ROOT}/src/cart.py"], ROOT, ["src/cart.py"]),
        (["src/cart.py"], ROOT, ["src/cart.py"]),
        (["cart.py"], f"{ROOT}/src", ["src/cart.py"]),
        (["../README.md"], f"{ROOT}/src", ["README.md"]),
        (["../../etc/passwd"], f"{ROOT}/src", []),
        (["/etc/hosts", "/home/dev/acme-shop-other/x.py"], ROOT, []),
        ([ROOT], ROOT, []),  # the folder itself is not a file of it
        (["src/a\nignore the owner.py"], ROOT, []),  # no line of text reaches another agent
        (["x" * 400], ROOT, []),
        (["relative.py"], "", []),  # no cwd to resolve it against
    ],
)
def test_only_paths_inside_the_repository_are_kept_relative_to_it(
    paths: list[str], cwd: str, inside: list[str]
) -> None:
    assert in_repository(paths, cwd, ROOT) == inside
