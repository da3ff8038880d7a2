"""§7 Guard beyond the table: the reason sentences, several environments and capabilities,
guard.disable and guard.patterns, the 50-identifier cap, what a call reads and what the
journal keeps, and stand_rules() over real stands."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import replace

import pytest

from environments import services
from environments.guard import (
    Identifier,
    Verdict,
    decide,
    read_call,
    stand_rules,
)
from environments.guard.rules import RULES
from environments.selectors import stands_map
from policy import safe_regex
from policy import selectors as policy_selectors
from policy import services as policy_services
from policy.catalog import GUARD_RULES
from tests.environments.factories import OWNER
from tests.environments.guard.stands import as_call, bash, levels, live, other
from tests.tasks.factories import make_project

READ_ONLY = (
    "relaybay guard: acme-shop live (live) is read-only for agents; this looks like a "
    "remote change over ssh (matched 'prod-alias'). Ask the owner, or propose a change "
    "with environment_propose."
)


# --- the rule table -----------------------------------------------------------------------


def test_the_rule_table_is_the_catalogs_ids_capabilities_and_titles() -> None:
    assert [r.id for r in RULES] == [r.id for r in GUARD_RULES]
    assert {(r.id, r.capability, r.title) for r in RULES} == {
        (r.id, r.capability, r.title) for r in GUARD_RULES
    }


# --- reasons ----------------------------------------------------------------------------------


def test_block_denies_a_read_only_environment_with_the_spec_sentence() -> None:
    verdict = bash("ssh -p 22 prod-alias sudo systemctl restart x", live("block"))
    assert (verdict.decision, verdict.reason) == ("deny", READ_ONLY)
    (touch,) = verdict.touches
    assert (touch.project, touch.environment, touch.kind) == ("acme-shop", "live", "live")
    assert (touch.level, touch.rule, touch.identifier) == (
        "read",
        "ssh-remote-change",
        "prod-alias",
    )


def test_warn_lets_the_call_go_on_with_the_same_reason_and_its_ending() -> None:
    verdict = bash("ssh prod-alias sudo reboot", live("warn"))
    assert verdict.decision == "warn"
    assert verdict.reason == READ_ONLY + " (warn mode: not blocked)"


def test_log_journals_only_and_carries_no_reason_to_show() -> None:
    verdict = bash("ssh prod-alias sudo reboot", live("log"))
    assert (verdict.decision, verdict.reason) == ("log", "")
    assert verdict.touches[0].reason == READ_ONLY  # kept on the touch for the journal


def test_level_none_is_off_limits_with_or_without_a_rule() -> None:
    plain = bash("ssh prod-alias uptime", live("block", "none"))
    assert plain.reason == (
        "relaybay guard: acme-shop live (live) is off limits for agents (matched "
        "'prod-alias'). Ask the owner, or propose a change with environment_propose."
    )
    ruled = bash("ssh prod-alias sudo reboot", live("warn", "none"))
    assert ruled.reason == (
        "relaybay guard: acme-shop live (live) is off limits for agents; this looks like a "
        "remote change over ssh (matched 'prod-alias'). Ask the owner, or propose a change "
        "with environment_propose. (warn mode: not blocked)"
    )


def test_ask_asks_the_owner_and_names_the_rule_when_one_matched() -> None:
    ruled = bash('psql -h db.live.example -c "drop table x"', live("block", "ask"))
    assert (ruled.decision, ruled.reason) == (
        "ask",
        "relaybay guard: acme-shop live (live) needs the owner's approval for every action; "
        "this looks like a SQL change (matched 'db.live.example').",
    )
    plain = bash("ssh prod-alias uptime", live("warn", "ask"))
    assert plain.reason == (
        "relaybay guard: acme-shop live (live) needs the owner's approval for every action "
        "(matched 'prod-alias')."
    )


def test_a_read_is_allowed_but_still_a_touch_for_the_journal() -> None:
    verdict = bash("ssh prod-alias uptime", live("block"))
    assert (verdict.decision, verdict.reason) == ("allow", "")
    (touch,) = verdict.touches
    assert (touch.decision, touch.level, touch.rule, touch.reason) == ("allow", "read", "", "")


def test_nothing_touched_allows_and_keeps_the_command() -> None:
    assert bash("ls -la", live("block")) == Verdict((), "allow", "", "ls -la")


# --- several environments and capabilities -------------------------------------------------


def test_the_strongest_environment_wins_and_every_touched_one_is_listed() -> None:
    staging = other("staging", (Identifier("stage-alias", "ssh", "ssh alias"),))
    verdict = bash(
        "ssh stage-alias sudo reboot; ssh prod-alias uptime", staging, live("block", "ask")
    )
    assert [(t.environment, t.decision) for t in verdict.touches] == [
        ("staging", "allow"),
        ("live", "ask"),
    ]
    assert verdict.decision == "ask"
    assert verdict.reason.startswith("relaybay guard: acme-shop live (live) needs")


def test_a_guard_that_is_off_neither_checks_nor_journals() -> None:
    staging = other("staging", (Identifier("stage-alias", "ssh", "ssh alias"),), mode="log")
    verdict = bash("ssh stage-alias rm x; ssh prod-alias rm x", staging, live("off", "none"))
    assert [t.environment for t in verdict.touches] == ["staging"]
    assert verdict.decision == "allow"  # staging is full


def test_each_capability_has_its_own_level() -> None:
    stand = live("block", levels=levels("read", ssh="full", db="none"))
    assert bash("ssh prod-alias sudo reboot", stand).decision == "allow"
    assert bash('psql -h db.live.example -c "select 1"', stand).decision == "deny"
    kube = bash("kubectl --context prod-ctx delete pod x", stand)
    assert (kube.decision, kube.touches[0].level) == ("deny", "read")


def test_of_all_identifiers_in_one_environment_the_strongest_decision_counts() -> None:
    stand = live("warn", levels=levels("read", ssh="full", db="ask"))
    verdict = bash('ssh prod-alias sudo reboot; psql -h db.live.example -c "select 1"', stand)
    (touch,) = verdict.touches
    assert (touch.decision, touch.identifier, touch.level) == ("ask", "db.live.example", "ask")


def test_the_base_url_host_takes_any_rule_at_the_strictest_of_their_levels() -> None:
    stand = live("block", levels=levels("read", ssh="full", deploy="full", db="none"))
    verdict = bash(
        "ssh acme-shop.example sudo reboot; git push https://acme-shop.example/x.git", stand
    )
    assert (verdict.touches[0].rule, verdict.touches[0].level) == ("ssh-remote-change", "full")
    assert verdict.decision == "allow"  # ssh and deploy are full: the strictest is still full
    sql = decide(
        as_call("mcp__pg__query", {"sql": "delete from t", "url": "https://acme-shop.example"}),
        [stand],
    )
    assert (sql.decision, sql.touches[0].rule, sql.touches[0].level) == (
        "deny",
        "sql-change",
        "none",
    )


def test_a_rule_counts_only_where_its_capability_agrees() -> None:
    stand = live("block", levels=levels("read", deploy="none"))
    # helm deploys into the kubectl context it names: deploy's level decides
    helm = bash("helm upgrade web ./chart --kube-context prod-ctx", stand)
    assert (helm.decision, helm.touches[0].level, helm.touches[0].rule) == (
        "deny",
        "none",
        "helm-change",
    )
    # a db host is not deployed to: terraform does not count for it
    assert bash("terraform destroy -var db_host=db.live.example", stand).decision == "allow"


def test_an_mcp_tool_name_counts_at_the_level_of_what_it_names() -> None:
    stand = live("block", levels=levels("full", kubectl="read"))
    verdict = decide(as_call("mcp__k8s__restart_deployment", {"context": "prod-ctx"}), [stand])
    assert (verdict.decision, verdict.touches[0].level) == ("deny", "read")
    assert "this looks like a MCP tool by name (matched 'prod-ctx')" in verdict.reason


def test_only_the_first_50_identifiers_of_an_environment_are_used() -> None:
    many = tuple(Identifier(f"host-{n}.example", "ssh", "ssh host") for n in range(60))
    stand = replace(live("block"), identifiers=many)
    assert bash("ssh host-49.example sudo reboot", stand).decision == "deny"
    assert bash("ssh host-50.example sudo reboot", stand).touches == ()


def test_an_unknown_level_counts_as_none() -> None:
    stand = live("block", levels={"default": "maybe"})
    assert bash("ssh prod-alias uptime", stand).touches[0].level == "none"


# --- guard.disable and guard.patterns --------------------------------------------------------


def test_guard_disable_switches_a_built_in_rule_off() -> None:
    stand = live("block", disabled=frozenset({"ssh-remote-change"}))
    verdict = bash("ssh prod-alias sudo reboot", stand)
    assert (verdict.decision, verdict.touches[0].rule) == ("allow", "")
    scp = bash("scp x prod-alias:/tmp", stand)
    assert scp.decision == "deny"  # the other ssh rules stay on


RELEASE = {
    "id": "acme-release",
    "capability": "deploy",
    "command": r"\brelease\.sh\b",
    "change": r"\b(publish|promote)\b",
    "description": "release script that publishes a build",
}


def test_a_custom_pattern_counts_when_its_change_follows_its_command() -> None:
    stand = live("block", patterns=(RELEASE,))
    verdict = bash("./release.sh promote github.com/acme/shop-gitops", stand)
    assert verdict.decision == "deny"
    assert verdict.touches[0].rule == "acme-release"
    assert "this looks like a release script that publishes a build (matched" in verdict.reason
    # the change before the command, or in another segment, is no match
    assert bash("promote; ./release.sh github.com/acme/shop-gitops", stand).decision == "allow"
    assert bash("echo promote ./release.sh github.com/acme/shop-gitops", stand).decision == "allow"


def test_a_custom_pattern_without_command_is_its_change_alone_and_named_by_its_id() -> None:
    pattern = {"id": "http-delete", "change": r"-X\s*DELETE"}
    stand = live("warn", patterns=(pattern,))
    verdict = bash("curl https://acme-shop.example/admin -X DELETE", stand)
    assert verdict.decision == "warn"
    assert "this looks like a http-delete (matched 'acme-shop.example')" in verdict.reason
    assert bash("curl https://acme-shop.example/admin", stand).decision == "allow"


def test_a_custom_pattern_counts_only_for_its_capability() -> None:
    stand = live("block", patterns=(RELEASE,))  # deploy: not for an ssh alias
    assert bash("ssh prod-alias ./release.sh publish", stand).decision == "allow"
    anchored = {"id": "anchored", "capability": "ssh", "change": r"^ssh .* publish$"}
    stand = live("block", patterns=(anchored,))
    assert bash("ls; ssh prod-alias publish", stand).decision == "deny"  # ^ is the segment's


def test_malformed_custom_patterns_are_skipped() -> None:
    stand = live("block", patterns=({"id": "x"}, {"change": "reboot"}, "reboot"))  # type: ignore[arg-type]
    assert bash("ssh prod-alias uptime", stand).decision == "allow"


def test_a_slow_custom_pattern_counts_as_matched(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(safe_regex, "RUN_LIMIT", 1e-7)
    safe_regex._last_logged.clear()
    slow = {"id": "slow-one", "change": r"x\d+y"}
    stand = live("block", patterns=(slow,))
    with caplog.at_level(logging.WARNING, logger="relaybay.policy"):
        verdict = bash("ssh prod-alias uptime " + "x1" * 3000, stand)
    assert (verdict.decision, verdict.touches[0].rule) == ("deny", "slow-one")
    assert "slow-one" in caplog.text


HOSTILE = {
    "substitutions": "$(" * 4000,
    "backticks": "`a " * 3000,
    "shells": "bash -c " * 1000,
    "ssh chains": "ssh prod-alias " * 500,
    "quotes": "'" * 8000,
    "escaped quotes": '"a\\"' * 2000,
    "separators": "a;" * 4000,
    "here-documents": "<<EOF\n" * 1300,
    "here-document words": "<<E1 <<E2 <<E3 " * 500,
    "evals": "eval \"eval 'eval ssh prod-alias rm x'\" " * 100,
    "one word": "a" * 8000,
    "options": "-o " * 2600,
    "urls": "https://acme-shop.example/x " * 300,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_8_kb_inputs_cost_little(text: str) -> None:
    """Linear, not quadratic: CPU time (not wall time, which a busy machine stretches) well
    under what one quadratic slip (a slice per word) cost."""
    began = time.thread_time()
    verdict = bash("ssh prod-alias " + text, live("block"))
    assert time.thread_time() - began < 0.1
    assert verdict.touches


# --- what a call reads -------------------------------------------------------------------------


def test_read_call_reads_bash_commands_and_every_string_of_an_mcp_input() -> None:
    assert read_call(as_call("Bash", {"command": "ls -la", "description": "list"})) == "ls -la"
    assert read_call(as_call("Bash", {"command": 3})) is None
    tool_input = {"a": "one", "b": [2, "two", {"c": "three", "d": None}], "e": True}
    assert read_call(as_call("mcp__pg__query", tool_input)) == "one\ntwo\nthree"
    assert read_call(as_call("mcp__relaybay__task_get", {"key": "x"})) is None
    assert read_call(as_call("mcp__rb__task_get", {"key": "x"}), own_server="rb") is None
    assert read_call(as_call("mcp__rb__task_get", {"key": "x"})) == "x"
    for tool in ("Read", "Write", "Edit", "WebFetch", "Task"):
        assert read_call(as_call(tool, {"command": "ssh prod-alias sudo reboot"})) is None


def test_only_the_first_8_kb_are_read_never_half_a_character() -> None:
    assert len(read_call(as_call("Bash", {"command": "a" * 9000}))) == 8192
    text = read_call(as_call("Bash", {"command": "é" * 5000}))  # two bytes each
    assert text == "é" * 4096
    late = "ls " * 2800 + "; ssh prod-alias sudo reboot"  # past 8 KB: fails closed
    assert bash(late, live("block")).decision == "ask"  # (test_guard_input.py)
    assert len(bash(late, live("block")).command) == 8192


def test_deep_and_wide_mcp_inputs_are_read_without_recursion() -> None:
    deep: object = "ssh prod-alias sudo reboot"
    for _ in range(5000):
        deep = [deep]
    assert read_call(as_call("mcp__x__y", {"a": deep})) == "ssh prod-alias sudo reboot"


def test_the_journal_command_is_collapsed_masked_and_cut() -> None:
    command = "PGPASSWORD='s3cr3t-value'   psql  -h db.live.example\n -c 'select 1' # pw-for-tests"
    verdict = bash(command, live("block"))
    assert verdict.command == command  # the verdict keeps what it read
    journal = verdict.journal_command(["pw-for-tests"])
    assert journal == "PGPASSWORD='***' psql -h db.live.example -c 'select 1' # ***"
    assert len(bash("ssh prod-alias " + "x " * 500, live()).journal_command()) <= 200


# --- stand_rules over real stands ------------------------------------------------------------


@pytest.mark.django_db
def test_stand_rules_reads_an_environment_its_entries_and_its_policy() -> None:
    project = make_project("acme-shop")
    policy_services.policy_layer_save(
        scope="acme-shop",
        text=json.dumps(
            {
                "guard": {"mode": "block", "disable": ["sftp-session"], "patterns": [RELEASE]},
                "levels": {"live": {"db": "ask"}},
                "secrets": {"test_secrets": {"test": True}},
            }
        ),
        actor=OWNER,
        confirmed=True,
    )
    services.environment_save(
        project="acme-shop",
        change=services.Change(
            environment="live",
            kind="live",
            base_url="https://Acme-Shop.example/app",
            access=[
                {"kind": "ssh", "fields": {"alias": "prod-alias", "host": "deploy@app:22"}},
                {"kind": "kubectl", "fields": {"context": "Prod-Ctx", "namespace": "shop"}},
                {"kind": "db", "fields": {"host": "db.live.example", "database": "shop"}},
                {"kind": "gitops", "fields": {"repo": "git@github.com:Acme/shop-gitops.git"}},
                {"kind": "logs", "fields": {"url": "https://logs.example/acme"}},
            ],
        ),
        actor=OWNER,
        confirmed=True,
    )
    services.environment_save(
        project="acme-shop", change=services.Change(environment="staging", kind="test"), actor=OWNER
    )
    services.access_add(
        project="acme-shop",
        environment="staging",
        kind="db",
        fields={"host": "db.staging.example"},
        test_secrets={"password": "pw-for-tests"},
        actor=OWNER,
    )
    live_view, staging_view = stands_map(project).stands
    rules = stand_rules(
        live_view,
        policy_selectors.effective_for(project, live_view.environment).merged,
        "acme-shop",
    )
    assert [(i.text, i.capability, i.source) for i in rules.identifiers] == [
        ("acme-shop.example", "", "base_url"),
        ("prod-alias", "ssh", "ssh alias"),
        ("app", "ssh", "ssh host"),
        ("prod-ctx", "kubectl", "kubectl context"),
        ("db.live.example", "db", "db host"),
        ("github.com/acme/shop-gitops", "deploy", "gitops repo"),
    ]
    assert (rules.project, rules.environment, rules.kind, rules.mode) == (
        "acme-shop",
        "live",
        "live",
        "block",
    )
    assert (rules.levels["default"], rules.levels["db"]) == ("read", "ask")
    assert rules.disabled == frozenset({"sftp-session"})
    assert [p["id"] for p in rules.patterns] == ["acme-release"]
    staging = stand_rules(
        staging_view,
        policy_selectors.effective_for(project, staging_view.environment).merged,
        "acme-shop",
    )
    assert staging.test_values == ("pw-for-tests",)
    assert bash("ssh prod-alias sudo reboot", rules, staging).decision == "deny"
