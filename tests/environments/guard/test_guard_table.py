"""§7 Guard as one table: each command with what it names and which rule counts, decided
under every guard mode and every level, against the decision matrix of §7 written out.

The rows are the spec's examples and their near misses. A row says which identifier the
verdict names ("" when the call touches nothing) and which rule counts for it ("" for a
read). With one level for every capability the strongest identifier is the first one a
rule counts for, in the environment's order: the base_url host, prod-alias, app, prod,
10.0.0.5, prod-ctx, db.live.example, postgres, the gitops repo.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from environments.guard import decide
from policy.catalog import GUARD_MODES, LEVELS
from tests.environments.guard.stands import as_call, live

# §7 Decisions per touched environment, written out: (level, a rule matched) → mode → decision.
DECISIONS = {
    ("full", False): {"log": "allow", "warn": "allow", "block": "allow"},
    ("full", True): {"log": "allow", "warn": "allow", "block": "allow"},
    ("read", False): {"log": "allow", "warn": "allow", "block": "allow"},
    ("read", True): {"log": "log", "warn": "warn", "block": "deny"},
    ("ask", False): {"log": "log", "warn": "ask", "block": "ask"},
    ("ask", True): {"log": "log", "warn": "ask", "block": "ask"},
    ("none", False): {"log": "log", "warn": "warn", "block": "deny"},
    ("none", True): {"log": "log", "warn": "warn", "block": "deny"},
}


@dataclass(frozen=True)
class Row:
    command: str
    named: str = ""  # the identifier the verdict names; "" = nothing touched
    rule: str = ""  # the rule that counts for it; "" = a read
    tool: str = "Bash"
    mcp_input: Mapping[str, Any] = field(default_factory=dict)

    @property
    def tool_input(self) -> Mapping[str, Any]:
        return self.mcp_input if self.tool != "Bash" else {"command": self.command}

    def __str__(self) -> str:
        shown = self.command if self.tool == "Bash" else f"{self.tool} {dict(self.mcp_input)}"
        return shown[:70]


def change(command: str, named: str, rule: str) -> Row:
    return Row(command, named, rule)


def read(command: str, named: str) -> Row:
    return Row(command, named)


def untouched(command: str) -> Row:
    return Row(command)


def mcp(tool: str, tool_input: dict[str, Any], named: str = "", rule: str = "") -> Row:
    return Row(f"{tool} {tool_input}", named, rule, tool, tool_input)


SSH = [
    change("ssh -p 22 prod-alias sudo systemctl restart x", "prod-alias", "ssh-remote-change"),
    read("ssh prod-alias uptime", "prod-alias"),  # read: allowed, still journaled on live
    read("ssh app uptime; rm -rf build", "app"),  # the rm runs here, not on app
    change("ssh app 'uptime; rm -rf build'", "app", "ssh-remote-change"),
    change("ssh prod-alias rm -rf /tmp/cache", "prod-alias", "ssh-remote-change"),
    change("ssh -p22 prod-alias mv a b", "prod-alias", "ssh-remote-change"),
    change("ssh -oStrictHostKeyChecking=no prod-alias cp a b", "prod-alias", "ssh-remote-change"),
    change("ssh -o BatchMode=yes deploy@app dd if=/dev/zero of=x", "app", "ssh-remote-change"),
    change('ssh app "echo hi | tee /etc/motd"', "app", "ssh-remote-change"),
    change("ssh app truncate -s 0 /var/log/app.log", "app", "ssh-remote-change"),
    change("ssh app kill -9 1234", "app", "ssh-remote-change"),
    change("ssh app sudo reboot", "app", "ssh-remote-change"),
    change("ssh app shutdown -h now", "app", "ssh-remote-change"),
    change("ssh app chmod 600 /srv/app/.env", "app", "ssh-remote-change"),
    change("ssh app chown www-data /srv/app", "app", "ssh-remote-change"),
    change("ssh app apt-get install -y nginx", "app", "ssh-remote-change"),
    change("ssh app crontab -l", "app", "ssh-remote-change"),
    change("ssh app systemctl stop nginx", "app", "ssh-remote-change"),
    read("ssh app systemctl status nginx", "app"),
    change("ssh app service nginx reload", "app", "ssh-remote-change"),
    read("ssh app service nginx status", "app"),
    change("ssh app docker restart web", "app", "ssh-remote-change"),
    read("ssh app docker ps -a", "app"),
    change("ssh app docker compose up -d", "app", "ssh-remote-change"),
    change("ssh app sed -i s/a/b/ /etc/app.conf", "app", "ssh-remote-change"),
    read("ssh app sed -n 1,5p /etc/app.conf", "app"),
    read("ssh app tail -n 100 /var/log/syslog", "app"),
    read("ssh app cat /var/log/rm.log", "app"),
    change("ssh app 'echo x > /etc/app.conf'", "app", "ssh-remote-change"),
    read("ssh app 'uptime 2>/dev/null'", "app"),
    change("ssh -J bastion app sudo reboot", "app", "ssh-remote-change"),
    change(
        "ssh -i ~/.ssh/k -l deploy prod-alias systemctl restart api",
        "prod-alias",
        "ssh-remote-change",
    ),
    read("ssh prod uptime", "prod"),  # a single word where ssh expects its host
    read("ssh -t prod-alias htop", "prod-alias"),
    change("sudo ssh prod-alias reboot", "prod-alias", "ssh-remote-change"),
    change("FOO=1 ssh prod-alias pkill -f worker", "prod-alias", "ssh-remote-change"),
    change("env TERM=xterm ssh prod-alias killall node", "prod-alias", "ssh-remote-change"),
    change("ssh ssh://deploy@prod-alias:2222 rm x", "prod-alias", "ssh-remote-change"),
    change(
        'ssh prod-alias "cd /srv && sudo -u app ./deploy.sh"', "prod-alias", "ssh-remote-change"
    ),
    read("ssh prod-alias 'journalctl -u api | tail'", "prod-alias"),
    read("ssh prod-alias ls; echo sudo reboot", "prod-alias"),
    change("(ssh app rm -rf /tmp/x)", "app", "ssh-remote-change"),
    change("ssh app <<'EOF'\nsudo systemctl restart api\nEOF", "app", "ssh-remote-change"),
    change("ssh 10.0.0.5 sudo reboot", "10.0.0.5", "ssh-remote-change"),
    change("timeout 30 ssh -q prod sudo reboot", "prod", "ssh-remote-change"),
    change("bash -c \"ssh app 'sudo reboot'\"", "app", "ssh-remote-change"),
    change('echo "$(ssh app rm -rf /tmp/x)"', "app", "ssh-remote-change"),
    # A rule and a name pair across the call: the guard cannot tell which host a change
    # in another segment reaches, so it stays careful.
    change("ssh app uptime && ssh other sudo reboot", "app", "ssh-remote-change"),
    untouched("ssh app2 sudo reboot"),  # a single word inside a longer name
    untouched("ssh prod-alias2 sudo reboot"),
    untouched("ssh prod-alias.example.org sudo reboot"),
    untouched("ssh 10.0.0.50 sudo reboot"),
    untouched('git commit -m "ssh prod rm"'),  # prod in a commit message: no host there
    read('git commit -m "ssh prod-alias rm"', "prod-alias"),  # dashed: named anywhere
    untouched("echo ssh app sudo reboot"),
    read("cat ~/.ssh/config | grep prod-alias", "prod-alias"),
    untouched("for h in app prod; do ssh $h uptime; done"),
    untouched('ssh "$HOST" sudo reboot'),
    untouched("ssh db sudo reboot"),  # "db" is an identifier of 2 characters: never matched
    untouched("vim app/models.py"),
    untouched("grep -r prod src/"),
]

COPIES = [
    read("scp prod:/var/log/x .", "prod"),  # copying from a host is a read
    change("scp x prod:/tmp", "prod", "scp-to-host"),
    change("scp -P 2222 x deploy@app:/tmp/", "app", "scp-to-host"),
    read("scp -r app:/etc/nginx ./backup", "app"),
    change("scp -3 app:/a prod:/b", "app", "scp-to-host"),
    change("rsync -av dist/ deploy@prod-alias:/srv/app", "prod-alias", "scp-to-host"),
    read("rsync -avz prod-alias:/var/log/ ./logs/", "prod-alias"),
    change('rsync -av -e "ssh -p 2222" dist/ app:/srv/app', "app", "scp-to-host"),
    change("rsync -av --exclude node_modules . app:/srv/app", "app", "scp-to-host"),
    read("rsync -av app:/srv/app/ . --exclude cache", "app"),
    change("rsync -av dist/ rsync://app/module", "app", "scp-to-host"),
    change("rsync -a build/ app::www", "app", "scp-to-host"),
    untouched("scp ./a:b ./c"),
    untouched("cp dist/app.tar.gz /tmp/app"),
    untouched("scp backup.tar app-backup:/x"),
    change("sftp prod-alias", "prod-alias", "sftp-session"),
    change("sftp -P 2222 deploy@app", "app", "sftp-session"),
    change("sftp -b batch.txt app:/upload", "app", "sftp-session"),
    untouched("sftp app2"),
]

DATABASES = [
    change('psql -h db.live.example -c "DROP TABLE users"', "db.live.example", "sql-change"),
    read('psql -h db.live.example -c "select count(*) from users"', "db.live.example"),
    change('mysql -hdb.live.example -e "update users set x=1"', "db.live.example", "sql-change"),
    read('mysql -h db.live.example -e "select * from users"', "db.live.example"),
    change(
        "mysql -h db.live.example -e \"update users set name='x' where id=1\"",
        "db.live.example",
        "sql-change",
    ),
    change('psql -h postgres -c "delete from sessions"', "postgres", "sql-change"),
    change(
        'psql postgresql://app_user@db.live.example:5432/shop -c "truncate orders"',
        "db.live.example",
        "sql-change",
    ),
    change(
        'psql "postgresql://postgres/shop" -c "insert into t values (1)"', "postgres", "sql-change"
    ),
    change(
        'PGHOST=db.live.example psql -c "alter table x add column y int"',
        "db.live.example",
        "sql-change",
    ),
    change("redis-cli -h db.live.example flushall", "db.live.example", "sql-change"),
    change("redis-cli -h db.live.example FLUSHDB", "db.live.example", "sql-change"),
    read("redis-cli -h db.live.example get key", "db.live.example"),
    change(
        'mongosh "mongodb://db.live.example:27017/shop" --eval "db.users.deleteMany({})"',
        "db.live.example",
        "sql-change",
    ),
    read('mongosh --host db.live.example --eval "db.users.find()"', "db.live.example"),
    change('sqlcmd -S db.live.example -Q "DROP DATABASE shop"', "db.live.example", "sql-change"),
    change(
        'clickhouse-client --host db.live.example --query "create table t (x Int8)"',
        "db.live.example",
        "sql-change",
    ),
    change('cqlsh db.live.example -e "truncate ks.t"', "db.live.example", "sql-change"),
    change('psql -h db.live.example -c "grant all on t to bob"', "db.live.example", "sql-change"),
    change(
        'psql -h db.live.example -c "revoke all on t from bob"', "db.live.example", "sql-change"
    ),
    change('psql -h db.live.example -c "create index i on t(x)"', "db.live.example", "sql-change"),
    change('psql -h db.live.example -c "create user bob"', "db.live.example", "sql-change"),
    read('psql -h db.live.example -c "create temp view v as select 1"', "db.live.example"),
    read("psql -h db.live.example -f migrate.sql", "db.live.example"),  # the file is unseen
    change(
        "psql -h db.live.example <<SQL\ndelete from users;\nSQL", "db.live.example", "sql-change"
    ),
    # The SQL and the client are two segments: "after a database client" does not hold.
    read('echo "drop table users" | psql -h db.live.example', "db.live.example"),
    change(
        'docker exec -it pg psql -h db.live.example -c "drop table x"',
        "db.live.example",
        "sql-change",
    ),
    change('ssh app psql -h db.live.example -c "delete from x"', "db.live.example", "sql-change"),
    untouched('psql -h db.live.example.org -c "drop table x"'),
    untouched("pip install prod-db"),  # a package name
    untouched("pip install postgres"),
    untouched("apt-get install -y postgres"),
    untouched("ls postgres/"),
    untouched("docker run -d postgres"),
    untouched('psql -h db -c "drop table x"'),  # two characters
    untouched('sqlite3 app.db "delete from x"'),  # a file name
    untouched('echo "update users set x=1" > notes.txt'),
]

KUBERNETES = [
    change("kubectl --context prod-ctx apply -f x.yaml", "prod-ctx", "kubectl-change"),
    read("kubectl --context prod-ctx get pods", "prod-ctx"),
    change("kubectl --context=prod-ctx delete pod web-1", "prod-ctx", "kubectl-change"),
    change(
        "kubectl -n shop --context prod-ctx scale deploy/web --replicas=3",
        "prod-ctx",
        "kubectl-change",
    ),
    change("kubectl --context prod-ctx rollout restart deploy/web", "prod-ctx", "kubectl-change"),
    read("kubectl --context prod-ctx rollout status deploy/web", "prod-ctx"),
    change("kubectl --context prod-ctx rollout undo deploy/web", "prod-ctx", "kubectl-change"),
    read("kubectl --context prod-ctx logs -f deploy/web", "prod-ctx"),
    read("kubectl --context prod-ctx describe pod web-1", "prod-ctx"),
    change("kubectl --context prod-ctx exec -it web-1 -- sh", "prod-ctx", "kubectl-change"),
    change("kubectl --context prod-ctx cp web-1:/tmp/x ./x", "prod-ctx", "kubectl-change"),
    change("kubectl --context prod-ctx edit cm app-config", "prod-ctx", "kubectl-change"),
    change("kubectl --context prod-ctx patch deploy web -p '{}'", "prod-ctx", "kubectl-change"),
    change("kubectl --context prod-ctx label pod web-1 x=y", "prod-ctx", "kubectl-change"),
    change("kubectl --context prod-ctx annotate pod web-1 x=y", "prod-ctx", "kubectl-change"),
    change("kubectl --context prod-ctx drain node-1", "prod-ctx", "kubectl-change"),
    change("kubectl --context prod-ctx cordon node-1", "prod-ctx", "kubectl-change"),
    change("kubectl --context prod-ctx uncordon node-1", "prod-ctx", "kubectl-change"),
    change(
        "kubectl --context prod-ctx taint nodes n1 k=v:NoSchedule", "prod-ctx", "kubectl-change"
    ),
    change(
        "kubectl --context prod-ctx set image deploy/web web=img:2", "prod-ctx", "kubectl-change"
    ),
    change("kubectl --context prod-ctx create secret generic x", "prod-ctx", "kubectl-change"),
    change("kubectl --context prod-ctx replace -f x.yaml", "prod-ctx", "kubectl-change"),
    read("kubectl --context prod-ctx auth can-i delete pods", "prod-ctx"),
    read("kubectl --context prod-ctx get pods -l app=apply", "prod-ctx"),
    read("kubectl --context prod-ctx get events --field-selector reason=delete", "prod-ctx"),
    read("kubectl --context prod-ctx -n delete get pods", "prod-ctx"),  # a namespace
    change("kubectl --context prod-ctx some-plugin delete x", "prod-ctx", "kubectl-change"),
    change(
        "kubectl config use-context prod-ctx && kubectl delete pod web-1",
        "prod-ctx",
        "kubectl-change",
    ),
    read("echo kubectl delete pod --context prod-ctx", "prod-ctx"),  # echo runs no kubectl
    untouched("echo kubectl delete"),
    untouched("kubectl --context prod-ctx2 delete pod x"),
    read("kubectl --context prod delete pod x", "prod"),  # prod is an ssh alias: no agreement
    read("KUBECONFIG=~/.kube/live kubectl --context prod-ctx get ns", "prod-ctx"),
    read("watch -n 5 kubectl --context prod-ctx get pods", "prod-ctx"),
    change("x=$(kubectl --context prod-ctx delete pod web-1)", "prod-ctx", "kubectl-change"),
    change('bash -c "kubectl --context prod-ctx apply -f x.yaml"', "prod-ctx", "kubectl-change"),
    change("sudo -u ops kubectl --context prod-ctx delete ns shop", "prod-ctx", "kubectl-change"),
    change("helm upgrade web ./chart --kube-context prod-ctx", "prod-ctx", "helm-change"),
    change("helm --kube-context prod-ctx install web ./chart", "prod-ctx", "helm-change"),
    read("helm --kube-context prod-ctx list", "prod-ctx"),
    change("helm --kube-context prod-ctx uninstall web", "prod-ctx", "helm-change"),
    change("helm --kube-context prod-ctx rollback web 3", "prod-ctx", "helm-change"),
    read("helm --kube-context prod-ctx status web", "prod-ctx"),
    read("helm diff upgrade web ./chart --kube-context prod-ctx", "prod-ctx"),
    read("helm template web ./chart --kube-context prod-ctx", "prod-ctx"),
    untouched("helm upgrade web ./chart"),
]

DEPLOYS = [
    change(
        "git push git@github.com:acme/shop-gitops.git main",
        "github.com/acme/shop-gitops",
        "git-push",
    ),
    change(
        "git push https://github.com/acme/shop-gitops.git HEAD:main",
        "github.com/acme/shop-gitops",
        "git-push",
    ),
    change(
        "git -C deploy push ssh://git@github.com/acme/shop-gitops.git main",
        "github.com/acme/shop-gitops",
        "git-push",
    ),
    change(
        "git push ssh://git@github.com:22/acme/shop-gitops main",
        "github.com/acme/shop-gitops",
        "git-push",
    ),
    read("git clone git@github.com:acme/shop-gitops.git", "github.com/acme/shop-gitops"),
    read("git fetch https://github.com/acme/shop-gitops", "github.com/acme/shop-gitops"),
    read("git stash push -m github.com/acme/shop-gitops", "github.com/acme/shop-gitops"),
    read('git commit -m "push to github.com/acme/shop-gitops"', "github.com/acme/shop-gitops"),
    untouched("git push git@github.com:acme/shop-gitops-old.git main"),
    untouched("git push git@gitlab.com:acme/shop-gitops.git main"),
    untouched("git push origin main"),
    untouched("terraform apply"),  # terraform alone names nothing
    untouched("terraform destroy -auto-approve"),
    change(
        "terraform -chdir=infra apply -var base_url=https://acme-shop.example",
        "acme-shop.example",
        "terraform-change",
    ),
    change(
        "terraform import aws_route53_record.www acme-shop.example",
        "acme-shop.example",
        "terraform-change",
    ),
    read("terraform plan -var host=db.live.example", "db.live.example"),
    # a db host takes db rules only: terraform (deploy) does not count for it
    read("terraform destroy -var db_host=db.live.example", "db.live.example"),
    change("git push https://acme-shop.example/git/shop.git", "acme-shop.example", "git-push"),
]

SITE = [
    read("curl https://acme-shop.example/admin -X DELETE", "acme-shop.example"),
    read("curl -s https://acme-shop.example/health", "acme-shop.example"),
    read("open https://ACME-SHOP.example/login", "acme-shop.example"),
    read("wget -qO- http://acme-shop.example:8080/x", "acme-shop.example"),
    read("echo see acme-shop.example.", "acme-shop.example"),  # dotted: anywhere, even in echo
    change("ssh acme-shop.example sudo reboot", "acme-shop.example", "ssh-remote-change"),
    untouched("curl https://acme-shop.example.evil.test/"),
    untouched("curl https://www.acme-shop.example/"),
    untouched("cat acme-shop.example.json"),
]

MCP = [
    mcp(
        "mcp__postgres__query",
        {"sql": "DELETE FROM users", "host": "db.live.example"},
        "db.live.example",
        "sql-change",
    ),
    mcp(
        "mcp__postgres__query",
        {"sql": "SELECT * FROM users", "host": "db.live.example"},
        "db.live.example",
    ),
    mcp(
        "mcp__postgres__query",
        {"sql": "drop table x", "host": "postgres"},
        "postgres",
        "sql-change",
    ),
    mcp("mcp__postgres__query", {"sql": "delete from x"}),
    mcp(
        "mcp__k8s__restart_deployment",
        {"context": "prod-ctx", "name": "web"},
        "prod-ctx",
        "mcp-tool-name",
    ),
    mcp(
        "mcp__k8s__scaleDeployment",
        {"context": "prod-ctx", "replicas": 3},
        "prod-ctx",
        "mcp-tool-name",
    ),
    mcp("mcp__k8s__get_pods", {"context": "prod-ctx"}, "prod-ctx"),
    mcp("mcp__k8s__apply_manifest", {"context": "prod-ctx2"}),
    mcp(
        "mcp__shell__run",
        {"command": "ssh prod-alias sudo reboot"},
        "prod-alias",
        "ssh-remote-change",
    ),
    mcp(
        "mcp__github__create_pull_request",
        {"url": "https://github.com/acme/shop-gitops"},
        "github.com/acme/shop-gitops",
        "mcp-tool-name",
    ),
    mcp("mcp__fetch__fetch", {"url": "https://acme-shop.example/admin"}, "acme-shop.example"),
    mcp("mcp__ssh__exec", {"target": {"host": "app"}, "args": ["uptime"]}, "app", "mcp-tool-name"),
    mcp("mcp__relaybay__task_update", {"text": "ssh prod-alias sudo reboot"}),
    mcp("mcp__relaybay__environment_propose", {"host": "db.live.example"}),
    mcp("Read", {"file_path": "/srv/prod-alias/config"}),
    mcp("Write", {"file_path": "deploy.sh", "content": "ssh prod-alias sudo reboot"}),
    mcp("Edit", {"file_path": "x", "old_string": "a", "new_string": "kubectl delete"}),
]

ROWS = SSH + COPIES + DATABASES + KUBERNETES + DEPLOYS + SITE + MCP


def test_the_table_holds_at_least_150_commands() -> None:
    assert len(ROWS) >= 150
    assert len({(row.tool, row.command) for row in ROWS}) == len(ROWS)


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_each_command_is_decided_per_mode_and_level(row: Row) -> None:
    for mode in GUARD_MODES:
        for level in LEVELS:
            verdict = decide(as_call(row.tool, row.tool_input), [live(mode, level)])
            if mode == "off" or not row.named:
                assert (verdict.touches, verdict.decision) == ((), "allow"), (mode, level)
                continue
            (touch,) = verdict.touches
            assert (touch.identifier, touch.rule) == (row.named, row.rule), (mode, level)
            expected = DECISIONS[level, bool(row.rule)][mode]
            assert (touch.decision, touch.level) == (expected, level), (mode, level)
            assert verdict.decision == expected
