"""The built-in ids a policy may name: guard rules and secret detectors (§7).

The guard (environments) and the secret checks implement these ids; this table is what the
policy knows about them — the id, what it looks for, the capability a guard rule counts
for — so validation can refuse a custom pattern that reuses a built-in id and
docs/policy.md can list every id without importing the code that runs them.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("local", "test", "live")
LEVELS = ("none", "read", "ask", "full")  # weakest to strongest access
CAPABILITIES = ("sign_in", "ssh", "kubectl", "db", "deploy")
GUARD_MODES = ("off", "log", "warn", "block")  # least to most protective
PRESETS = ("default", "strict", "trusted")


@dataclass(frozen=True)
class GuardRule:
    id: str
    capability: str  # "" = any capability (MCP tool names)
    title: str
    looks_for: str


@dataclass(frozen=True)
class SecretDetector:
    id: str
    title: str
    looks_for: str


GUARD_RULES: tuple[GuardRule, ...] = (
    GuardRule(
        "kubectl-change",
        "kubectl",
        "kubectl change",
        "kubectl … apply / create / delete / edit / patch / replace / scale / set / label / "
        "annotate / drain / cordon / uncordon / taint / exec / cp / rollout restart / undo / "
        "pause / resume",
    ),
    GuardRule(
        "helm-change",
        "deploy",
        "helm change",
        "helm … upgrade / install / uninstall / delete / rollback",
    ),
    GuardRule(
        "ssh-remote-change",
        "ssh",
        "remote change over ssh",
        "ssh … with rm, mv, cp, dd, tee, truncate, kill, reboot, shutdown, chmod, chown, "
        "package managers, sudo, crontab, systemctl start/stop/restart/reload/enable/disable/"
        "kill/mask, service … start/stop/restart/reload, docker rm/stop/restart/run/kill/exec/"
        "compose/pull, sed -i",
    ),
    GuardRule(
        "scp-to-host",
        "ssh",
        "file copy to a host",
        "scp / rsync whose last argument is remote (host:path); copying from a host is a read",
    ),
    GuardRule("sftp-session", "ssh", "file transfer session", "sftp"),
    GuardRule(
        "sql-change",
        "db",
        "SQL change",
        "after a database client (psql, mysql, mariadb, sqlite3, sqlcmd, mongosh, redis-cli, "
        "clickhouse-client, cqlsh, …; in MCP tool input also without one): insert into, "
        "update … set, delete from, drop, alter, truncate, create table/database/index/user/"
        "role, grant, revoke, flushall, flushdb",
    ),
    GuardRule("git-push", "deploy", "git push", "git … push"),
    GuardRule(
        "terraform-change", "deploy", "terraform change", "terraform apply / destroy / import"
    ),
    GuardRule(
        "mcp-tool-name",
        "",
        "MCP tool by name",
        "an MCP tool whose name has a word such as create, update, delete, apply, deploy, "
        "exec, run, restart, scale, push",
    ),
)

SECRET_DETECTORS: tuple[SecretDetector, ...] = (
    SecretDetector(
        "secret-field",
        "secret field holds a value",
        "a field whose name contains pass, pwd, token, secret, key, credential or private "
        "that is not a reference (a path, an environment variable name or a vault path)",
    ),
    SecretDetector(
        "user-password",
        "user field holds user:password",
        "a field whose name contains user or login holding user:password",
    ),
    SecretDetector("private-key", "private key block", "-----BEGIN … PRIVATE KEY-----"),
    SecretDetector("github-token", "GitHub token", "ghp_…, gho_…, ghs_…, github_pat_…"),
    SecretDetector("gitlab-token", "GitLab token", "glpat-…"),
    SecretDetector("slack-token", "Slack token", "xoxb-…, xoxp-…, xapp-…"),
    SecretDetector("openai-key", "OpenAI-style key", "sk-…"),
    SecretDetector("aws-access-key", "AWS access key", "AKIA… / ASIA… (20 characters)"),
    SecretDetector("jwt", "JSON Web Token", "eyJ….eyJ….<signature>"),
    SecretDetector("url-credentials", "credentials in a URL", "scheme://user:pw@host, also :pw@"),
    SecretDetector(
        "password-option",
        "password option",
        "--password, --passwd, --pass, --token, --secret, --api-key with = or a space",
    ),
    SecretDetector("user-option", "user:password option", "-u / --user user:password"),
    SecretDetector(
        "auth-header",
        "authorization credential",
        "a Bearer, Basic or Digest credential; Authorization: Token …",
    ),
    SecretDetector("sshpass", "sshpass password", "sshpass -p <password>"),
    SecretDetector(
        "client-password",
        "database or registry client password",
        "-p<password> with mysql / mariadb; -p <password> with docker login; "
        "-a <password> with redis-cli",
    ),
    SecretDetector(
        "secret-assignment",
        "secret assignment",
        "an assignment whose name contains pass, pwd, token, secret or key "
        "(PGPASSWORD=…, API_KEY='…', --from-literal=password=…)",
    ),
    SecretDetector(
        "secret-prose",
        "secret written as name: value",
        "pass / pwd / token / secret / api_key: <value of 6 characters or more>",
    ),
)

GUARD_RULE_IDS = tuple(rule.id for rule in GUARD_RULES)
SECRET_DETECTOR_IDS = tuple(detector.id for detector in SECRET_DETECTORS)

# The shapes that cannot be prose: a secret in any text an agent or the owner writes — a
# task's title, a report, a comment, a plan — not only in the stands and the memory.
TOKEN_DETECTOR_IDS = (
    "private-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "openai-key",
    "aws-access-key",
    "jwt",
)
