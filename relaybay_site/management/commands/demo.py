"""`relaybay demo --home <dir> [--force]`: seed a made-up workspace to look around in (§5)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError
from django.utils import timezone

from core.config import FLAGS_ENV
from relaybay_site import demo, serve_lock
from relaybay_site.management.commands._flags import RelaybayCommand


class Command(RelaybayCommand):
    help = "Seed a made-up workspace into the data folder (--home is required)."

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
        parser.add_argument(
            "--force",
            action="store_true",
            help="Rename a database that holds work to relaybay.sqlite.before-demo-<time>.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        given = json.loads(os.environ.get(FLAGS_ENV) or "{}").get("home")
        if not (given or options.get("setting_home")):
            raise CommandError("--home is required: the demo seeds its own data folder.")
        cfg = settings.RELAYBAY
        cfg.home_path.mkdir(parents=True, exist_ok=True)
        try:  # a running server's database must not be renamed or seeded under it
            lock = serve_lock.lock_data_folder(cfg.home_path)
        except serve_lock.StartRefused as exc:
            self.stderr.write(f"relaybay: {exc}")
            raise SystemExit(1) from None
        lock.record(pid=os.getpid(), what="seeding relaybay demo")
        try:
            self._seed(cfg, force=options["force"])
        finally:
            lock.release()

    def _seed(self, cfg: Any, *, force: bool) -> None:
        db = Path(settings.DATABASES["default"]["NAME"])
        try:
            moved = demo.prepare_database(db, force=force, now=timezone.localtime())
        except demo.DemoRefused as exc:
            self.stderr.write(f"relaybay: {exc}")
            raise SystemExit(1) from None
        for path in moved:
            self.stdout.write(f"Moved aside: {path}")
        from relaybay_site.management.commands.serve import Command as Serve

        Serve(stdout=self.stdout, stderr=self.stderr)._migrate()  # as `serve` does at start
        seeded = demo.seed()
        self.stdout.write(
            f"Demo workspace seeded in {cfg.home}: projects {', '.join(seeded.projects)}, "
            f"{len(seeded.tasks)} tasks."
        )
        self.stdout.write(f"Look around: relaybay serve --home {cfg.home}")
