"""The secret detectors of §7 Access map as tables: for every detector id, values it finds
and near misses it lets through; references in every listed form; the policy's
secrets.disable and secrets.allow; the journal's mask; and properties over any text."""

from __future__ import annotations

import string
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from environments.secret_spots import SECRET_SPOTS, WINDOW, github_checksum
from environments.secrets import (
    Finding,
    SecretsPolicy,
    check_fields,
    is_reference,
    mask,
    scan_text,
)
from policy.catalog import SECRET_DETECTOR_IDS
from policy.merge import Layer, merge, preset_layer
from tests.support import tokens

FIELD_RULES = {"secret-field", "user-password"}  # check_fields only: they read the field name

GHP = tokens.github()  # 30 characters and their checksum after the prefix
GLPAT = "glpat-xY3kP9mQ2rT7vW1zA4bC"
AKIA = tokens.aws_key_id()
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY21lIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM_BODY = "MIIEowIBAAKCAQEAx4YtMIIEowIBAAKCAQEAx4YtMIIEowIBAAKCAQEAx4YtABCD"  # a 64-character line
SLACK = tokens.slack_bot()
XOXP = "xoxp-608656907029-313758584719-5406135895254-29a95249f512c17b8ed411fa644d35db"
XAPP = "xapp-1-A2064279287-7574476216827-a52f8b2b19b8f89a50f8a8e9bb8bdb5e"
OPENAI = tokens.openai(project=False)
ANTHROPIC = tokens.anthropic()
AWS_SECRET = tokens.aws_secret()
GOOGLE = tokens.google()
STRIPE = tokens.stripe()


@dataclass(frozen=True)
class Case:
    detector: str
    value: str
    secret: str = ""  # what the finding points at; "" for a near miss
    field: str = "notes"

    def __str__(self) -> str:
        return f"{self.detector}: {self.field}={self.value[:50]!r}"


def hit(detector: str, value: str, secret: str, field: str = "notes") -> Case:
    return Case(detector, value, secret, field)


def miss(detector: str, value: str, field: str = "notes") -> Case:
    return Case(detector, value, "", field)


HITS = [
    hit("secret-field", "hunter22", "hunter22", field="password"),
    hit("secret-field", "abc123xyz", "abc123xyz", field="api_token"),
    hit("secret-field", "  s3cret  ", "s3cret", field="DB_PWD"),
    hit("secret-field", "pass:foo", "pass:foo", field="password"),  # no / : not a vault path
    hit("secret-field", "admin / hunter22", "admin / hunter22", field="credentials"),
    hit("secret-field", "correct horse", "correct horse", field="privateKeyPassphrase"),
    hit("user-password", "admin:hunter22", "hunter22", field="user"),
    hit("user-password", "ops@acme.example:Winter2024", "Winter2024", field="login"),
    hit("user-password", "app:pw-123 (rotated)", "pw-123", field="db_username"),
    hit(
        "private-key",
        f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
        PEM_BODY,
    ),
    hit("private-key", f"key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n", PEM_BODY),
    hit(
        "private-key",
        f"-----BEGIN PGP PRIVATE KEY BLOCK-----{PEM_BODY}-----END PGP PRIVATE KEY BLOCK-----",
        PEM_BODY,
        field="description",
    ),
    hit(
        "private-key",
        f"-----BEGIN ENCRYPTED PRIVATE KEY----- {PEM_BODY} -----END ENCRYPTED PRIVATE KEY-----",
        PEM_BODY,
    ),
    hit("github-token", f"git clone https://{GHP}@github.com/acme/shop", GHP),
    hit("github-token", f"use {tokens.github('gho')} for ci", tokens.github("gho")),
    hit("github-token", tokens.github_fine_grained(), tokens.github_fine_grained()),
    hit("github-token", f"glued{GHP}glued", GHP, field="command"),
    hit("gitlab-token", f"glab auth login {GLPAT}", GLPAT),
    hit("gitlab-token", tokens.gitlab("gldt"), tokens.gitlab("gldt")),
    hit("gitlab-token", f"origin https://gitlab.example ({GLPAT})", GLPAT, field="description"),
    hit("slack-token", SLACK, SLACK),
    hit("slack-token", f"hook {XOXP}", XOXP),
    hit("slack-token", XAPP, XAPP, field="command"),
    hit("openai-key", OPENAI, OPENAI),
    hit("openai-key", f"OPENAI {tokens.openai()}", tokens.openai()),
    hit("openai-key", f"key={tokens.openai(seed=1)};", tokens.openai(seed=1), field="command"),
    hit("anthropic-key", f"claude {ANTHROPIC}", ANTHROPIC, field="description"),
    hit("anthropic-key", f'ANTHROPIC_API_KEY="{ANTHROPIC}"', ANTHROPIC),
    hit("anthropic-key", f"x {tokens.anthropic(seed=1)}.", tokens.anthropic(seed=1)),
    hit("aws-secret-key", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    hit("aws-secret-key", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET} aws s3 ls", AWS_SECRET),
    hit("aws-secret-key", f'{{"SecretAccessKey": "{AWS_SECRET}"}}', AWS_SECRET, field="command"),
    hit("google-api-key", f"?key={GOOGLE}&q=x", GOOGLE),
    hit("google-api-key", GOOGLE, GOOGLE, field="command"),
    hit("google-api-key", f'apiKey: "{GOOGLE}"', GOOGLE, field="description"),
    hit("stripe-key", STRIPE, STRIPE),
    hit("stripe-key", f"STRIPE_KEY={tokens.stripe('rk')}", tokens.stripe("rk")),
    hit("stripe-key", f"stripe login --api-key {STRIPE}", STRIPE, field="command"),
    hit("aws-access-key", f"aws configure set aws_access_key_id {AKIA}", AKIA),
    hit("aws-access-key", "ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A", field="command"),
    hit("aws-access-key", f"key ({AKIA}) rotated", AKIA),
    hit("jwt", f"cookie {JWT}", JWT),
    hit("jwt", f"session={JWT};", JWT, field="command"),
    hit(
        "jwt",
        "alg none: eyJhbGciOiJub25lIn0.eyJzdWIiOiJhY21lIn0. ok",
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhY21lIn0.",
    ),
    hit("url-credentials", "https://admin:hunter22@db.example", "hunter22"),
    hit("url-credentials", "redis://:s3cret@cache:6379", "s3cret"),
    hit("url-credentials", "psql postgres://app:p%40ss@db/app", "p%40ss", field="command"),
    hit("url-credentials", "amqp://guest:guest99@mq", "guest99", field="description"),
    hit("password-option", "mysql --password=hunter22 shop", "hunter22"),
    hit("password-option", "vault login --token s.abc123", "s.abc123"),
    hit("password-option", "tool --api-key 'k 123' run", "k 123", field="command"),
    hit("password-option", 'app --secret="s3 cr3t"', "s3 cr3t"),
    hit("password-option", "curl --pass hunter22", "hunter22"),
    hit("user-option", "curl -u admin:hunter22 https://x", "hunter22"),
    hit("user-option", "curl --user=deploy:s3cr3t https://x", "s3cr3t"),
    hit("user-option", "curl -u 'admin:p w' https://x", "p w", field="command"),
    hit("user-option", "curl -uadmin:hunter22 https://x", "hunter22"),
    hit("auth-header", 'curl -H "Authorization: Bearer abc123def456" x', "abc123def456"),
    hit("auth-header", "Authorization: Basic YWRtaW46aHVudGVyMjI=", "YWRtaW46aHVudGVyMjI="),
    hit("auth-header", "Authorization: Token 9944b09199c6", "9944b09199c6", field="command"),
    hit(
        "auth-header",
        'Authorization: Digest username="admin", response="6629fae4"',
        'username="admin", response="6629fae4"',
    ),
    hit("auth-header", "use Bearer Zm9vYmFyMTIz for the API", "Zm9vYmFyMTIz"),
    hit("auth-header", "tool login token A1b2C3d4E5f6", "A1b2C3d4E5f6", field="command"),
    hit("auth-header", '{"Authorization": "sk12345678abc"}', "sk12345678abc"),
    hit("sshpass", "sshpass -p hunter22 ssh root@db", "hunter22"),
    hit("sshpass", "sshpass -p'hunter 22' scp x db:", "hunter 22", field="command"),
    hit("sshpass", "sshpass -v -p s3cret ssh db", "s3cret"),
    hit("sshpass", "sshpass -ps3cret ssh db", "s3cret"),
    hit("client-password", "mysql -u root -phunter22 shop", "hunter22"),
    hit("client-password", "mariadb -u root -p'hunter 22' shop", "hunter 22"),
    hit("client-password", "mysqldump -proot99 shop > x.sql", "root99", field="command"),
    hit("client-password", "docker login -u ci -p hunter22 registry.example", "hunter22"),
    hit("client-password", "redis-cli -h cache -a hunter22 ping", "hunter22"),
    hit("secret-assignment", "PGPASSWORD=hunter22 psql", "hunter22"),
    hit("secret-assignment", "API_KEY='abc def'", "abc def"),
    hit(
        "secret-assignment",
        "kubectl create secret generic db --from-literal=password=s3cr3t",
        "s3cr3t",
        field="command",
    ),
    hit("secret-assignment", "spring.datasource.password = s3cret", "s3cret"),
    hit("secret-assignment", "https://api.example/v1?api_key=abc123&x=1", "abc123"),
    hit("secret-assignment", 'connect(password="hunter22")', "hunter22", field="description"),
    hit("secret-prose", "password: hunter22", "hunter22"),
    hit("secret-prose", "DB_PASSWORD: s3cr3t!", "s3cr3t!"),
    hit("secret-prose", "client_secret: abcdef123", "abcdef123", field="description"),
    hit("secret-prose", '{"password": "hunter 22"}', "hunter 22"),
    hit("secret-prose", "dbPassword: hunter22", "hunter22"),
    hit("secret-prose", "API key: Zx81kq3", "Zx81kq3", field="title"),
]

MISSES = [
    miss("secret-field", "$DB_PASSWORD", field="password"),
    miss("secret-field", "~/.ssh/acme_live", field="password"),
    miss("secret-field", "vault://kv/acme", field="password"),
    miss("secret-field", "pass:acme/db", field="password"),
    miss("secret-field", r"C:\keys\x.pem", field="api_key"),
    miss("secret-field", "env:GH_TOKEN", field="token"),
    miss("secret-field", "%DB_SECRET%", field="secret"),
    miss("secret-field", "deploy.pem", field="private_key"),
    miss("secret-field", "   ", field="password"),
    miss("secret-field", "hunter22", field="notes"),  # the name says nothing
    miss("user-password", "admin", field="user"),
    miss("user-password", "admin@acme.example", field="login"),
    miss("user-password", "admin:$DB_PASSWORD", field="user"),
    miss("user-password", "https://sso.acme.example/login", field="username"),
    miss("user-password", "env:DB_USER", field="login"),
    miss("user-password", "admin:hunter22", field="notes"),  # the name says nothing
    miss("private-key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----"),
    miss("private-key", "-----BEGIN CERTIFICATE-----\nMIIDdzCC\n-----END CERTIFICATE-----"),
    miss("private-key", "BEGIN RSA PRIVATE KEY, without the dashes"),
    miss("private-key", "the key is in ~/.ssh/id_ed25519"),
    miss("private-key", "a file that starts -----BEGIN OPENSSH PRIVATE KEY----- is a key"),
    miss("private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"),
    miss("github-token", "ghp_" + "a" * 35),
    miss("github-token", "ghx_" + "a" * 36),
    miss("github-token", "ghp-" + "a" * 36),
    miss("github-token", "github_pat_short"),
    miss("github-token", GHP[:-1] + ("A" if GHP[-1] != "A" else "B")),  # its checksum fails
    miss("github-token", "ghp_" + "a1B2c3D4e5" * 3 + "F6g7H8"),
    miss("gitlab-token", "glpat-" + "a" * 19),
    miss("gitlab-token", "gl-pat-" + "a" * 20),
    miss("gitlab-token", "glpat-<token>"),
    miss("slack-token", "xoxb-123"),
    miss("slack-token", "xoxz-1234567890-abc"),
    miss("slack-token", "xapp-token-docs-page"),
    miss("openai-key", "sk-short1"),
    miss("openai-key", "task-a1b2c3d4e5f6g7h8i9j0k1"),
    miss("openai-key", "sk-learn-compatible-estimators"),
    miss("openai-key", "Branch sk-1234-fix-login-redirect-loop"),
    miss("openai-key", "sk-aB3dE6gH9jK2mN5pQ8sT1vW4yZ7"),  # no T3BlbkFJ
    miss("anthropic-key", "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3"),
    miss("anthropic-key", ANTHROPIC[:-2] + "BB"),
    miss("anthropic-key", "sk-ant-api03-is-the-prefix-of-an-anthropic-key"),
    miss("aws-secret-key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    miss("aws-secret-key", f"aws_secret_access_key = {AWS_SECRET}X"),  # 41 characters
    miss("aws-secret-key", AWS_SECRET),  # without its name: any 40 characters
    miss("google-api-key", GOOGLE[:-1]),
    miss("google-api-key", "AIzaSyabcdefghijklmnopqrstuvwxyz1234567"),
    miss("google-api-key", "AIza" + "a" * 35),
    miss("stripe-key", "sk_test_" + STRIPE[8:]),
    miss("stripe-key", "sk_live_mode_enabled_flag_for_the_dashboard"),
    miss("stripe-key", "sk_live_" + STRIPE[8:20]),
    miss("aws-access-key", AKIA[:-1]),
    miss("aws-access-key", AKIA + "S"),
    miss("aws-access-key", AKIA.lower()),
    miss("aws-access-key", "AKIB" + AKIA[4:]),
    miss("aws-access-key", "AKIAIOSFODNN7EXAMPLE"),
    miss("aws-access-key", "Region.ASIAPACIFICSOUTHEAST"),
    miss("aws-access-key", "AKIAXXXXXXXXXXXXXXXX"),
    miss("jwt", "eyJhbGciOiJIUzI1NiJ9"),
    miss("jwt", "eyJhbGciOiJIUzI1NiJ9.notjwt.sig"),
    miss("jwt", "version eyJ1.eyJ2.x of the doc"),
    miss("url-credentials", "https://db.example/path@x"),
    miss("url-credentials", "https://db.example:5432/app"),
    miss("url-credentials", "https://admin@db.example"),
    miss("url-credentials", "postgres://app:${DB_PASSWORD}@db/app"),
    miss("url-credentials", "git@github.com:acme/shop.git"),
    miss("password-option", "docker login --password-stdin"),
    miss("password-option", "mysql --password -u root"),
    miss("password-option", "gh --token $GH_TOKEN"),
    miss("password-option", "tool --passphrase-file hunter22"),
    miss("password-option", "--token-file ~/.token"),
    miss("password-option", "--password <password>"),
    miss("user-option", "curl -u admin https://x"),
    miss("user-option", "docker run -u 1000:1000 img"),
    miss("user-option", "curl -u admin:$API_PASSWORD https://x"),
    miss("user-option", "git push -u origin main"),
    miss("auth-header", "use a Bearer token for the API"),
    miss("auth-header", "Basic authentication is enabled"),
    miss("auth-header", "Authorization: Bearer $API_TOKEN"),
    miss("auth-header", "the Authorization header is missing"),
    miss("auth-header", "Authorization: see the wiki"),
    miss("auth-header", "Bearer <token>"),
    miss("auth-header", "the token expires tomorrow"),
    miss("sshpass", "sshpass -f ~/.pw ssh db"),
    miss("sshpass", "sshpass -e ssh db"),
    miss("sshpass", 'sshpass -p "$SSHPASS" ssh db'),
    miss("sshpass", "ssh -p 2222 db"),
    miss("client-password", "mysql -u root -p shop"),
    miss("client-password", "mysql -P3306 -u root shop"),
    miss("client-password", "ssh -pfoo host"),  # -p<x> without mysql / mariadb
    miss("client-password", "docker run -p 8080:80 img"),
    miss("client-password", "redis-cli -h cache ping && ls -a /tmp"),
    miss("client-password", 'mysql -p"$MYSQL_PWD" shop'),
    miss("client-password", "ls -a /tmp"),
    miss("secret-assignment", "PGPASSWORD=$PGPASSWORD psql"),
    miss("secret-assignment", "PGPASSWORD=${PGPASSWORD} psql"),
    miss("secret-assignment", "ssh -o StrictHostKeyChecking=no db"),
    miss("secret-assignment", "if password == other"),
    miss("secret-assignment", "USER=admin psql"),
    miss("secret-assignment", "TOKEN_FILE=~/.config/token"),
    miss("secret-assignment", "PGPASSWORD= psql"),
    miss("secret-assignment", "(export PGPASSWORD=$PGPASS)"),
    miss("secret-prose", "password: short"),
    miss("secret-prose", "password: $DB_PASSWORD"),
    miss("secret-prose", "token_url: https://auth.example/token"),
    miss("secret-prose", "bypass: enabled"),
    miss("secret-prose", "the db password is in pass:acme/db"),
    miss("secret-prose", "passport: X1234567"),
    miss("secret-prose", "key: production"),
]


def found(case: Case) -> list[Finding]:
    """The findings of this case's detector, from check_fields and, for the value detectors,
    scan_text (which must agree)."""
    mine = [f for f in check_fields({case.field: case.value}) if f.detector == case.detector]
    if case.detector not in FIELD_RULES:
        scanned = scan_text(case.value, field=case.field)
        assert [f for f in scanned if f.detector == case.detector] == mine
    return mine


def test_the_table_implements_exactly_the_catalog_ids() -> None:
    assert {spot.detector for spot in SECRET_SPOTS} | FIELD_RULES == set(SECRET_DETECTOR_IDS)
    assert all("secret" in spot.pattern.groupindex for spot in SECRET_SPOTS)


def test_every_detector_has_three_hits_and_three_near_misses() -> None:
    for cases in (HITS, MISSES):
        counts = {d: sum(c.detector == d for c in cases) for d in SECRET_DETECTOR_IDS}
        assert {c.detector for c in cases} == set(SECRET_DETECTOR_IDS)
        assert min(counts.values()) >= 3, counts


@pytest.mark.parametrize("case", HITS, ids=str)
def test_each_detector_finds_its_secret_and_points_at_the_value(case: Case) -> None:
    findings = found(case)
    assert case.secret in [case.value[f.start : f.end] for f in findings]


@pytest.mark.parametrize("case", HITS, ids=str)
def test_a_refusal_never_repeats_the_value(case: Case) -> None:
    for finding in found(case):
        assert case.secret not in finding.message()
        assert finding.message().startswith(f"{case.field} ")
        assert finding.message().endswith(f"({case.detector})")


@pytest.mark.parametrize("case", MISSES, ids=str)
def test_a_near_miss_passes_its_detector(case: Case) -> None:
    assert found(case) == []


def test_the_three_kinds_of_message() -> None:
    assert Finding("notes", "jwt", 0, 3).message() == (
        "notes looks like it contains a secret value (jwt)"
    )
    assert Finding("password", "secret-field", 0, 3).message() == (
        "password must be a reference — a path, an environment variable name or a vault "
        "path — not the value (secret-field)"
    )
    assert Finding("user", "user-password", 0, 3).message() == (
        "user holds user:password (user-password)"
    )


# --- references ---------------------------------------------------------------------------

REFERENCES = [
    "~/.ssh/acme_live",
    r"C:\keys\x.pem",
    "C:/keys/x.pem",
    r"\\vault-host\keys\x.pem",
    "/etc/ssl/private/acme.pem",
    "./secrets/db.txt",
    "acme_live.pem",
    "deploy.key",
    "client.p12",
    "id_ed25519",
    "$DB_PASSWORD",
    "${DB_PASSWORD}",
    "%DB_PASSWORD%",
    "env:DB_PASSWORD",
    "DB_PASSWORD",
    "$HOME/.pgpass",
    "vault://kv/acme",
    "op://Private/acme/password",
    "keychain:acme-db",
    "ssm:/prod/db/password",
    "pass:acme/db",
    "file:secrets/db",
    "sops:secrets/prod.yaml",
]
NOT_REFERENCES = [
    "hunter22",
    "pass:foo",
    "pass:acme/",
    "file:x",
    "sops:/",
    "vault:",
    "PASSWORD",  # upper case, but no _
    "db_password",
    "acme/db",
    "secret.pem.bak",
    "$",
    "${}",
    "%%",
    "https://vault.example/kv/acme",
    "~/ssh key",
    "",
]
SECRET_FIELDS = ["password", "api_token", "secret", "private_key", "credentials", "notes"]
PLACES = [
    "PGPASSWORD={ref} psql -h db",
    'PGPASSWORD="{ref}" psql -h db',
    "mysql --password={ref} shop",
    "--token {ref}",
    "sshpass -p {ref} ssh db",
    "curl -u admin:{ref} https://x",
    "password: {ref}",
    "secret_key: {ref}",
    "mysql -u root -p{ref} shop",
    "mysql -u root -p'{ref}' shop",
    "docker login -u ci -p {ref} registry.example",
    "redis-cli -a {ref} ping",
    "Authorization: Bearer {ref}",
    "psql postgres://app:{ref}@db/app",
]


@pytest.mark.parametrize("ref", REFERENCES)
def test_a_reference_in_every_listed_form_is_one(ref: str) -> None:
    assert is_reference(ref)
    assert is_reference(f'"{ref}"')
    assert check_fields(dict.fromkeys(SECRET_FIELDS, ref)) == []


@pytest.mark.parametrize("value", NOT_REFERENCES)
def test_a_value_that_only_resembles_a_reference_is_none(value: str) -> None:
    assert not is_reference(value)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("ref", REFERENCES)
def test_a_reference_in_a_place_passes(place: str, ref: str) -> None:
    text = place.format(ref=ref)
    assert scan_text(text) == [], text
    assert check_fields({"notes": text, "command": text, "description": text}) == []


@pytest.mark.parametrize("place", PLACES)
def test_a_plain_value_in_each_place_is_refused(place: str) -> None:
    text = place.format(ref="hunter22")
    findings = scan_text(text, field="notes")
    assert findings, text
    assert {text[f.start : f.end] for f in findings} == {"hunter22"}


# --- the policy ------------------------------------------------------------------------------

TWO_SECRETS = f"--password hunter22 and {GHP}"


def test_secrets_disable_switches_one_detector_off_and_leaves_the_others() -> None:
    both = {f.detector for f in scan_text(TWO_SECRETS)}
    assert both == {"password-option", "github-token"}
    off = SecretsPolicy(disabled=frozenset({"password-option"}))
    assert {f.detector for f in scan_text(TWO_SECRETS, policy=off)} == {"github-token"}
    fields = {"password": "hunter22", "user": "admin:hunter22"}
    no_field_rule = SecretsPolicy(disabled=frozenset({"secret-field"}))
    assert [f.detector for f in check_fields(fields, no_field_rule)] == ["user-password"]


def test_the_policy_is_read_from_the_effective_policy() -> None:
    layer = {"secrets": {"disable": ["jwt"], "allow+": ["test-[a-z0-9]{8,}"]}}
    merged = merge([preset_layer("default"), Layer("global", layer)])
    policy = SecretsPolicy.of(merged)
    assert policy == SecretsPolicy(frozenset({"jwt"}), ("test-[a-z0-9]{8,}",))
    assert SecretsPolicy.of(merge([])) == SecretsPolicy()


ALLOW_TEST = SecretsPolicy(allow=("test-[a-z0-9]{8,}",))


@pytest.mark.parametrize(
    ("fields", "detectors"),
    [
        ({"password": "test-abcd1234"}, []),
        ({"password": "test-abcd1234!"}, ["secret-field"]),
        ({"password": "xtest-abcd1234"}, ["secret-field"]),
        ({"notes": "PGPASSWORD=test-abcd1234 psql"}, []),
        ({"notes": "PGPASSWORD=test-abcd1234x! psql"}, ["secret-assignment"]),
        ({"notes": "PGPASSWORD=test-abcd1234 mysql -proot99"}, ["client-password"]),
        ({"user": "admin:test-abcd1234"}, []),
        ({"user": "admin:hunter22"}, ["user-password"]),
    ],
)
def test_secrets_allow_passes_a_value_it_matches_whole_and_no_partial_match(
    fields: dict[str, str], detectors: list[str]
) -> None:
    assert [f.detector for f in check_fields(fields, ALLOW_TEST)] == detectors


def test_a_slow_allow_pattern_does_not_allow() -> None:
    # (a|aa)+$ alone would refuse a long run of a's either way; with "|a+" the pattern
    # matches any run of a's, so only the time limit (fail closed) can refuse one.
    slow = SecretsPolicy(allow=(r"(a|aa)+b|a+",))
    assert check_fields({"password": "aaaa"}, slow) == []  # quick: it does allow
    findings = check_fields({"password": "a" * 40}, slow)
    assert [f.detector for f in findings] == ["secret-field"]
    brief = SecretsPolicy(allow=(r"(a|aa)+$",))
    assert [f.detector for f in check_fields({"password": "a" * 5000 + "!"}, brief)] == [
        "secret-field"
    ]


def test_an_allow_pattern_never_lets_a_value_longer_than_it_can_see_pass() -> None:
    # safe_regex cuts its input at 8 KB: a value whose first 8 KB match must still count.
    policy = SecretsPolicy(allow=("a+",))
    assert check_fields({"password": "a" * 100}, policy) == []
    assert [f.detector for f in check_fields({"password": "a" * 9000 + "!"}, policy)] == [
        "secret-field"
    ]


def test_a_secret_beyond_the_first_64_kb_is_still_found() -> None:
    for at in (70_000, WINDOW - 6, WINDOW - 4096 - 3):
        text = "x" * at + " PGPASSWORD=hunter22 psql " + "y" * 1000
        findings = scan_text(text)
        assert [(f.detector, text[f.start : f.end]) for f in findings] == [
            ("secret-assignment", "hunter22")
        ], at


# --- the journal ----------------------------------------------------------------------------

PRIVATE_KEY = (
    f"printf '-----BEGIN OPENSSH PRIVATE KEY-----\n{tokens.pem_body(lines=2)}\n"
    "-----END OPENSSH PRIVATE KEY-----\n' > ~/.ssh/k"
)


@pytest.mark.parametrize(
    ("command", "journal"),
    [
        ("PGPASSWORD='s3cr3t pw' psql -h db shop", "PGPASSWORD='***' psql -h db shop"),
        ("mysql -u root -p'hunter22' shop", "mysql -u root -p'***' shop"),
        ("sshpass -p hunter22 ssh root@db", "sshpass -p *** ssh root@db"),
        ("curl -u admin:hunter22 https://api.example", "curl -u admin:*** https://api.example"),
        (
            PRIVATE_KEY,
            "printf '-----BEGIN OPENSSH PRIVATE KEY----- *** "
            "-----END OPENSSH PRIVATE KEY----- ' > ~/.ssh/k",
        ),
        (
            f"git clone https://{GHP}@github.com/acme/shop",
            "git clone https://***@github.com/acme/shop",
        ),
        (
            'curl -H "Authorization: Bearer abc123def456" https://api.example',
            'curl -H "Authorization: Bearer ***" https://api.example',
        ),
        (f"curl -H 'Authorization: token {GHP}' x", "curl -H 'Authorization: token ***' x"),
        ("psql postgres://app:hunter22@db/app", "psql postgres://app:***@db/app"),
        ("docker login -u ci -p hunter22 reg.example", "docker login -u ci -p *** reg.example"),
        ('API_KEY="abc def" ./deploy', 'API_KEY="***" ./deploy'),
        ("tool login token A1b2C3d4E5f6 --ci", "tool login token *** --ci"),
        ("PGPASSWORD=$PGPASSWORD psql", "PGPASSWORD=$PGPASSWORD psql"),  # a reference stays
        ("ssh -o StrictHostKeyChecking=no db", "ssh -o StrictHostKeyChecking=no db"),
    ],
)
def test_mask_writes_the_journal_as_the_spec_shows(command: str, journal: str) -> None:
    assert mask(command) == journal


@pytest.mark.parametrize(
    ("command", "values", "journal"),
    [
        ("echo q", ["q"], "echo ***"),
        ("echo ab cab", ["ab"], "echo *** c***"),
        ("login xyz then xyzw", ["xyz", "xyzw"], "login *** then ***"),
        ("use p  w here", ["p  w"], "use *** here"),
        ("use p w here", ["p  w"], "use *** here"),  # the value as collapsed, too
        ("echo a*b", ["*"], "echo a***b"),  # one pass: a mask is never masked again
        ("echo hi", ["", "zz"], "echo hi"),
    ],
)
def test_mask_hides_every_test_value_whatever_its_length(
    command: str, values: list[str], journal: str
) -> None:
    assert mask(command, test_values=values) == journal


def test_mask_collapses_whitespace_and_cuts_at_200_characters() -> None:
    assert mask("  ls   -la\n\t/tmp \r\n") == "ls -la /tmp"
    long = "echo " + "a" * 500
    assert len(mask(long)) == 200
    secret_at_the_cut = "x" * 190 + " PGPASSWORD=hunter22 psql"
    assert mask(secret_at_the_cut) == ("x" * 190 + " PGPASSWORD=***")[:200]
    assert "hunter" not in mask(secret_at_the_cut)


def test_mask_ignores_the_policy() -> None:
    everything_off = SecretsPolicy(disabled=frozenset(SECRET_DETECTOR_IDS), allow=(".*",))
    command = f"PGPASSWORD=hunter22 psql && gh auth login {GHP}"
    assert scan_text(command, policy=everything_off) == []
    assert mask(command) == "PGPASSWORD=*** psql && gh auth login ***"


# --- properties -----------------------------------------------------------------------------

# Random text, tilted towards the characters the patterns care about.
TEXT = st.text(
    alphabet=st.one_of(st.sampled_from(list("aA0 =:-'\"/@_$-\n<>{}*pPuU")), st.characters()),
    max_size=120,
)
ALNUM = string.ascii_letters + string.digits


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT, TEXT)
def test_no_text_makes_the_checks_raise(text: str, other: str) -> None:
    check_fields({"notes": text, "password": text, "login": other, "user": text + other})
    scan_text(text + other)
    assert len(mask(text + other, test_values=[other[:3]])) <= 200


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, st.text(alphabet=ALNUM, min_size=30, max_size=30))
def test_mask_never_shows_a_github_token_embedded_anywhere(
    before: str, after: str, body: str
) -> None:
    token = "ghp_" + body + github_checksum(body)
    assert token not in mask(before + token + after)
    text = before + token + after
    if not is_reference(text):  # ghp_….json as a whole is a file name: it passes (§7)
        assert any(f.detector == "github-token" for f in scan_text(text))


SHAPES = st.sampled_from([GLPAT, AKIA, JWT, SLACK, OPENAI, ANTHROPIC, GOOGLE, STRIPE])


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT, SHAPES)
def test_mask_never_shows_a_token_standing_apart(before: str, after: str, token: str) -> None:
    assert token not in mask(f"{before} {token} {after}")


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT, st.text(alphabet=ALNUM + "!#%&()+,./:;=?@[]^_~-", min_size=1, max_size=4))
def test_mask_never_shows_a_test_value(before: str, after: str, value: str) -> None:
    assert value not in mask(before + value + after, test_values=[value])


# --- hostile input: these must simply finish (timings are in the commit's report) --------

HOSTILE_UNITS = [
    "a", "=", ":", "-", " ", "a=", "-a", "a:", "'", '"', "--password ", "password=",
    "password:", "eyJ", "ghp_", "github_pat_", "glpat-", "xoxb-", "sk-", "AKIA", "://a:",
    "-u a:", "Bearer ", "Authorization: ", "sshpass -p ", "-----BEGIN PRIVATE KEY-----",
    "mysql -p'", "docker login -p ", "redis-cli -a ", "x=\"", "$(",
    "-----BEGIN PRIVATE KEY-----\n", "-----BEGIN PRIVATE KEY-----\n" + "A" * 40 + "\n",
    "AIza", "sk_live_", "sk-proj-", "sk-ant-api03-", "aws_secret_access_key=", "xoxp-1234567890-",
    "glpat-aaaaaaaaaaaaaaaaaaaaaaaaaaaa", "ASIAA", "eyJhbGciOiJIUzI1NiJ9.", "T3BlbkFJ",
]  # fmt: skip


@pytest.mark.parametrize("unit", HOSTILE_UNITS)
def test_a_64_kb_hostile_input_is_scanned(unit: str) -> None:
    text = (unit * (WINDOW // len(unit) + 1))[:WINDOW]
    scan_text(text)
    check_fields({"notes": text, "user": text})
    assert len(mask(text)) <= 200
