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
    source: str = ""  # the published rule a token shape follows (docs/policy.md)


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
    SecretDetector(
        "private-key",
        "private key block",
        "-----BEGIN … PRIVATE KEY----- (or … PRIVATE KEY BLOCK-----) followed by a base64 body "
        "whose first line has 40 characters or more (a PEM line has 64), with or without its "
        "END line; "
        "the header named in prose, or with a placeholder body, is none",
        "gitleaks private-key",
    ),
    SecretDetector(
        "github-token",
        "GitHub token",
        "ghp_, gho_, ghu_, ghs_ or ghr_ and 36 base62 characters whose last 6 are the CRC32 "
        "checksum of the 30 before them in base62 (GitHub's published token format); "
        "github_pat_ and 22 + _ + 59 base62 characters (no public checksum: length and "
        "alphabet)",
        "gitleaks github-pat, github-oauth, github-app-token, github-refresh-token, "
        "github-fine-grained-pat",
    ),
    SecretDetector(
        "gitlab-token",
        "GitLab token",
        "glpat-, gldt-, glrt-, glft-, glsoat-, glffct- and exactly 20 of [0-9A-Za-z_-] with "
        "both letter cases; glcbt-…_ and 20; gloas- and 64; the routable glpat- / glrt- "
        "(27 to 300, a dot, 9 of [0-9a-z]); glptt- and 40 hex digits",
        "gitleaks gitlab-pat, gitlab-pat-routable, gitlab-deploy-token, gitlab-ptt, "
        "gitlab-runner-authentication-token, gitlab-cicd-job-token, gitlab-oauth-app-secret",
    ),
    SecretDetector(
        "slack-token",
        "Slack token",
        "xoxb-<8-14 digits>-[<8-14 digits>-]<18-34 base62>; xoxp- / xoxe- with three runs of "
        "8-14 digits and 28-34 base62; xoxo- / xoxs- with three digit runs and 10+ hex; "
        "xoxa- / xoxr-<digit>-<digits>-…; xapp-<digit>-<8-14 of A-Z0-9>-<digits>-<32+ hex>",
        "gitleaks slack-bot-token, slack-legacy-bot-token, slack-user-token, "
        "slack-legacy-token, slack-legacy-workspace-token, slack-app-token",
    ),
    SecretDetector(
        "openai-key",
        "OpenAI key",
        "sk-, sk-proj-, sk-svcacct- or sk-admin- with 20-80 of [A-Za-z0-9_-] on each side of "
        'the fixed infix T3BlbkFJ (base64 of "OpenAI"); an sk-… word without it is a name',
        "gitleaks openai-api-key",
    ),
    SecretDetector(
        "anthropic-key",
        "Anthropic key",
        "sk-ant-api03- or sk-ant-admin01- with 93 of [A-Za-z0-9_-] and the suffix AA; "
        "sk-ant-oat01- / sk-ant-ort01- with 40 or more; both letter cases",
        "gitleaks anthropic-api-key, anthropic-admin-api-key, anthropic-oauth-token",
    ),
    SecretDetector(
        "aws-access-key",
        "AWS access key id",
        "AKIA or ASIA and 16 of base32's [A-Z2-7], standing alone; not AWS's documented "
        "AKIAIOSFODNN7EXAMPLE (…EXAMPLE); after a dot (Region.ASIAPACIFICSOUTHEAST) only "
        "with a digit",
        "gitleaks aws-access-token",
    ),
    SecretDetector(
        "aws-secret-key",
        "AWS secret access key",
        "40 of [A-Za-z0-9/+] with both letter cases and a digit, / or +, after "
        "aws_secret_access_key, aws_secret_key or secret_access_key and = or :; not the "
        "documented …EXAMPLEKEY",
        "gitleaks aws-secret-access-key",
    ),
    SecretDetector(
        "google-api-key",
        "Google API key",
        "AIza and 35 of [A-Za-z0-9_-] with an entropy of 4 bits a character or more, "
        "standing alone; not the Firebase SDK's example key",
        "gitleaks gcp-api-key",
    ),
    SecretDetector(
        "stripe-key",
        "Stripe live key",
        "sk_live_ or rk_live_ and 24 or more base62 characters with both letter cases "
        "(test and publishable keys are no secret of consequence)",
        "gitleaks stripe-access-token",
    ),
    SecretDetector(
        "jwt",
        "JSON Web Token",
        "eyJ….eyJ….<signature>: base64url parts whose first decodes to a JSON object naming "
        'its "alg" and whose second decodes to a JSON object (RFC 7515, RFC 7519)',
        "gitleaks jwt",
    ),
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
    "anthropic-key",
    "aws-access-key",
    "aws-secret-key",
    "google-api-key",
    "stripe-key",
    "jwt",
)
