"""environments_get, environment_propose and the environments resource through the real
client and a real `relaybay serve` (§3, §7 Environment, Access map, Test secrets,
Proposals, MCP): the listing, the map an agent reads before touching a server, proposals
that change nothing, and a secret in a proposal refused without being kept anywhere — not
in the answer, the database file, the event log or the server's log."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.integration.mcp_agent import Agent, new_project, run
from tests.support.server import RelaybayServer, read_only_db, run_django

pytestmark = pytest.mark.integration

STANDS = (
    "environments_environment",
    "environments_environmentaccess",
    "environments_environmentproposal",
)
TEST_SECRET = "sandbox-key-4711"  # a harmless test value the owner entered (§7 Test secrets)


def seed_stands(server: RelaybayServer, slug: str) -> None:
    """The owner's Stands & access writes, through the services in a process of their own
    on the server's data folder (there is no owner write over MCP)."""
    run_django(
        server.home,
        f"""
        import json
        from environments.services import Change, access_add, environment_save
        from policy.services import policy_layer_save
        from tasks.services import project_upsert

        slug = {slug!r}
        project_upsert(slug=slug, actor="owner")
        layer = {{
            "guard": {{"mode": "block"}},
            "levels": {{"test": {{"deploy": "ask"}}}},
            "secrets": {{"test_secrets": {{"test": True}}}},
        }}
        policy_layer_save(scope=slug, text=json.dumps(layer), actor="owner")

        def save(**values):
            environment_save(project=slug, change=Change(**values), actor="owner", confirmed=True)

        save(environment="local", kind="local", base_url="http://localhost:8000")
        save(
            environment="test",
            kind="test",
            base_url=f"https://test.{{slug}}.example",
            login_state_path="~/.relaybay/test-login.json",
            notes="Reset nightly at 03:00.",
            overrides={{"db": "ask"}},
            access=[{{"kind": "db", "fields": {{
                "type": "postgres", "host": "db.test.internal", "user": "shop",
                "password_ref": "$SHOP_TEST_DB_PASSWORD",
            }}}}],
        )
        access_add(
            project=slug, environment="test", kind="other",
            fields={{"name": "payment sandbox"}}, test_secrets={{"api_key": {TEST_SECRET!r}}},
            actor="owner",
        )
        save(
            environment="live",
            kind="live",
            base_url=f"https://{{slug}}.example",
            access=[{{"kind": "ssh", "fields": {{
                "alias": "prod-alias", "host": "203.0.113.10", "user": "deploy",
                "key_path_ref": "~/.ssh/shop_live",
            }}}}],
        )
        """,
    )


def expose_test_secrets(server: RelaybayServer, slug: str) -> None:
    """The owner lets agents see the test values: secrets.expose_test_secrets_to_agents."""
    run_django(
        server.home,
        f"""
        import json
        from policy.services import policy_layer_save

        layer = {{
            "guard": {{"mode": "block"}},
            "levels": {{"test": {{"deploy": "ask"}}}},
            "secrets": {{"test_secrets": {{"test": True}}, "expose_test_secrets_to_agents": True}},
        }}
        policy_layer_save(scope={slug!r}, text=json.dumps(layer), actor="owner")
        """,
    )


def database_text(home: Path) -> str:
    """Every table's rows as SQL text (sqlite3's dump)."""
    with read_only_db(home) as db:
        return "\n".join(db.iterdump())


def stand_rows(server: RelaybayServer) -> dict[str, list[tuple[object, ...]]]:
    with read_only_db(server.home) as db:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in STANDS}


def proposals(server: RelaybayServer) -> list[tuple[object, ...]]:
    with read_only_db(server.home) as db:
        found = db.execute(
            "SELECT id, change, reason, proposed_by, status "
            "FROM environments_environmentproposal ORDER BY id"
        ).fetchall()
    return [(n, json.loads(change), *rest) for n, change, *rest in found]


def proposal_number(answer: str, where: str) -> int:
    found = re.match(
        rf"Proposed environment change #(\d+) for {where}; nothing changed yet\.", answer
    )
    assert found, answer
    return int(found.group(1))


def test_the_environment_tools_are_listed_and_environments_get_is_read_only(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> None:
        tools = {t.name: t for t in (await agent.client.list_tools()).tools}
        assert tools["environments_get"].annotations.read_only_hint is True
        assert tools["environment_propose"].annotations.read_only_hint is False
        assert set(tools["environment_propose"].input_schema["required"]) == {
            "project",
            "change",
            "reason",
        }
        assert not [n for n in tools if n.startswith("environment") and n.endswith("_save")]
        templates = (await agent.client.list_resource_templates()).resource_templates
        assert "relaybay://project/{slug}/environments" in {t.uri_template for t in templates}

    run(server, scenario)


def test_a_project_without_stands_says_how_to_propose_one(server: RelaybayServer) -> None:
    async def scenario(agent: Agent) -> None:
        await new_project(agent, "bare-shop")
        text = await agent.ok("environments_get", project="bare-shop")
        assert text.startswith(
            "# Environments of bare-shop\n\nPolicy: preset default · guard warn."
        )
        assert "No environments yet. Propose one with environment_propose(project, " in text
        assert await agent.read("relaybay://project/bare-shop/environments") == text
        snapshot = await agent.ok("project_snapshot", project="bare-shop")
        assert "Environments" not in snapshot
        text = await agent.err("environments_get", project="nope")
        assert "Unknown project nope." in text
        assert "project_list" in text

    run(server, scenario)


def test_the_map_shows_every_stand_with_its_level_source_access_and_notes(
    fresh_server: RelaybayServer,
) -> None:
    server = fresh_server  # its own, so the access entries are #1, #2, #3
    seed_stands(server, "map-shop")

    async def before(agent: Agent) -> None:
        text = await agent.ok("environments_get", project="map-shop")
        assert text.startswith(
            "# Environments of map-shop\n\nPolicy: preset default · guard block."
        )
        sections = text.split("\n\n## ")[1:]
        assert [s.split("\n", 1)[0] for s in sections] == [
            "local (local)",
            "test (test)",
            "live (live)",
        ]
        local, test, live = (s.splitlines() for s in sections)
        assert local[1:4] == [
            "- base URL: http://localhost:8000",
            "- agents: full (default)",
            "- per capability: sign_in full (default), ssh full (default), kubectl full "
            "(default), db full (default), deploy full (default)",
        ]
        assert "- sign-in allowed: yes" in local
        assert test[1:-1] == [
            "- base URL: https://test.map-shop.example",
            "- agents: full (default)",
            "- per capability: sign_in full (default), ssh full (default), kubectl full "
            "(default), db ask, deploy ask (policy: project:map-shop)",
            "- overrides: db ask",
            "- sign-in allowed: yes",
            "- login state: ~/.relaybay/test-login.json",
            "- access #1 db: type=postgres, host=db.test.internal, user=shop, "
            "password_ref=$SHOP_TEST_DB_PASSWORD",
            "- access #2 other: name=payment sandbox; test secrets: api_key",
            "- notes: Reset nightly at 03:00.",
        ]
        assert re.fullmatch(r"- changed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC by owner", test[-1])
        assert live[1:3] == ["- base URL: https://map-shop.example", "- agents: read (default)"]
        assert "- sign-in allowed: no" in live
        assert (
            "- access #3 ssh: alias=prod-alias, host=203.0.113.10, user=deploy, "
            "key_path_ref=~/.ssh/shop_live"
        ) in live
        assert TEST_SECRET not in text, "a test secret's value shown without the policy's yes"
        assert await agent.read("relaybay://project/map-shop/environments") == text

        snapshot = await agent.ok("project_snapshot", project="map-shop")
        assert (
            "Environments (read environments_get before touching a server):\n"
            "- local — local · agents: full (default) · http://localhost:8000\n"
            "- test — test · agents: full (default) · https://test.map-shop.example\n"
            "- live — live · agents: read (default) · https://map-shop.example\n"
        ) in snapshot
        assert TEST_SECRET not in snapshot

    run(server, before)
    expose_test_secrets(server, "map-shop")

    async def exposed(agent: Agent) -> None:
        text = await agent.ok("environments_get", project="map-shop")
        shown = f"- access #2 other: name=payment sandbox; test secrets: api_key={TEST_SECRET}"
        assert shown in text.splitlines()
        assert await agent.read("relaybay://project/map-shop/environments") == text
        assert TEST_SECRET not in await agent.ok("project_snapshot", project="map-shop")

    run(server, exposed)


def test_a_proposal_is_recorded_pending_and_changes_nothing(server: RelaybayServer) -> None:
    seed_stands(server, "propose-shop")

    async def scenario(agent: Agent) -> None:
        before = await agent.ok("environments_get", project="propose-shop")
        stands = stand_rows(server)
        raise_db = {"environment": "test", "overrides": {"db": "full"}}
        answer = await agent.ok(
            "environment_propose",
            project="propose-shop",
            change=raise_db,
            reason="migrations need it",
            session="worker",
        )
        first = proposal_number(answer, "propose-shop/test")
        assert "The owner accepts or rejects it on the Stands & access page." in answer
        # Models sometimes send the change as a JSON string.
        monitoring = {
            "environment": "live",
            "access": [{"kind": "monitoring", "fields": {"url": "https://grafana.example"}}],
        }
        answer = await agent.ok(
            "environment_propose",
            project="propose-shop",
            change=json.dumps(monitoring),
            reason="the dashboards help with incidents",
            session="worker",
        )
        assert proposal_number(answer, "propose-shop/live") == first + 1

        assert await agent.ok("environments_get", project="propose-shop") == before
        after = stand_rows(server)
        assert after["environments_environment"] == stands["environments_environment"]
        assert after["environments_environmentaccess"] == stands["environments_environmentaccess"]
        recorded = proposals(server)[-2:]
        assert recorded == [
            (first, raise_db, "migrations need it", "worker", "pending"),
            (first + 1, monitoring, "the dashboards help with incidents", "worker", "pending"),
        ]
        events = await agent.ok("events_since", project="propose-shop")
        assert f"environment proposal #{first} for test: migrations need it" in events

    run(server, scenario)


def test_malformed_proposals_are_refused_and_change_nothing(server: RelaybayServer) -> None:
    seed_stands(server, "refuse-shop")
    refused = [
        (
            {"project": "refuse-shop", "change": {"environment": "live", "colour": "red"}},
            "change has 1 unknown key; its keys are environment, kind,",
        ),
        (
            {"project": "refuse-shop", "change": {"environment": "staging", "notes": "new"}},
            "A new environment (staging) needs a kind.",
        ),
        (
            {
                "project": "refuse-shop",
                "change": {
                    "environment": "test",
                    "access": [
                        {"kind": "other", "fields": {"token": {"value": "x1", "test": True}}}
                    ],
                },
            },
            "Test secrets are entered by the owner on the board, never proposed.",
        ),
        ({"project": "refuse-shop", "change": {"level": "full"}}, "change.environment names"),
        (
            {"project": "nope", "change": {"environment": "live"}},
            "Unknown project nope. Call project_list",
        ),
    ]

    async def scenario(agent: Agent) -> None:
        before = database_text(server.home)
        for n, (args, says) in enumerate(refused):
            who = {"session": f"newcomer-{n}", "hook_session": f"cc-{n}"}
            text = await agent.err("environment_propose", reason="try", **args, **who)
            assert says in text, text
            assert database_text(server.home) == before, f"{args} changed the database"

    run(server, scenario)


# One made-up password per place a proposal can carry one; each is refused naming the
# field and the detector, and is kept nowhere.
PASSWORDS = {
    "notes": (
        {"environment": "live", "notes": "db password: Qv7notesPW31"},
        "notes looks like it contains a secret value (secret-prose)",
        "Qv7notesPW31",
    ),
    "password_ref": (
        {
            "environment": "test",
            "access": [{"kind": "db", "fields": {"host": "db", "password_ref": "Qv7refPW32"}}],
        },
        "Refused: change.access[0].fields.password_ref must be a reference",
        "Qv7refPW32",
    ),
    "base_url": (
        {"environment": "test", "base_url": "https://deploy:Qv7urlPW33@test.example"},
        "base_url looks like it contains a secret value (url-credentials)",
        "Qv7urlPW33",
    ),
    "--password": (
        {"environment": "live", "notes": "connect with psql --password=Qv7optPW34"},
        "notes looks like it contains a secret value (password-option)",
        "Qv7optPW34",
    ),
    "a new stand's access, as a JSON string": (
        json.dumps(
            {
                "environment": "qa",
                "kind": "test",
                "access": [{"kind": "other", "fields": {"api_token": "Qv7jsonPW35"}}],
            }
        ),
        "Refused: change.access[0].fields.api_token must be a reference",
        "Qv7jsonPW35",
    ),
}


def test_a_password_in_a_proposal_is_refused_and_kept_nowhere(
    fresh_server: RelaybayServer,
) -> None:
    server = fresh_server
    seed_stands(server, "secret-shop")
    secrets = [password for _, _, password in PASSWORDS.values()] + ["Qv7whyPW36"]

    async def scenario(agent: Agent) -> None:
        before = database_text(server.home)
        cases = [({"change": c}, says) for c, says, _ in PASSWORDS.values()]
        cases.append(
            (
                {
                    "change": {"environment": "live", "level": "none"},
                    "reason": "password: Qv7whyPW36",
                },
                "reason looks like it contains a secret value (secret-prose)",
            )
        )
        for n, (args, says) in enumerate(cases):
            text = await agent.err(
                "environment_propose",
                project="secret-shop",
                **{"reason": "keep it handy", **args},
                session=f"leaky-{n}",
            )
            assert says in text, text
            assert not [s for s in secrets if s in text], text
            assert database_text(server.home) == before, f"{args} changed the database"
        events = await agent.ok("events_since", project="secret-shop")
        assert "environment live (live) added" in events
        assert not [s for s in secrets if s in events]

    run(server, scenario)
    server.stop()  # its log is complete, the database at rest
    dumped = database_text(server.home)
    assert "$SHOP_TEST_DB_PASSWORD" in dumped  # the dump does hold the stands' text
    stored = b"".join(p.read_bytes() for p in server.home.glob("relaybay.sqlite*"))
    log = server.log()
    assert "POST /mcp 200" in log  # the calls were logged, and the log read
    for secret in secrets:
        assert secret not in dumped, f"{secret} is in the database"
        assert secret.encode() not in stored, f"{secret} is in the database files"
        assert secret not in log, f"{secret} is in the server's log"
