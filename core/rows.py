"""Model rows read with SQL written once per process, for the hottest reads.

Django compiles a queryset into SQL on every call; for a task with its project and rules
(~50 columns over three tables) that compiling costs several times SQLite's own run of the
statement (bench/README.md, "One MCP write, profiled"). `ModelColumns` keeps a model's
column list and its database converters, so a read that runs on every MCP call and hook
builds its SQL text once and its instances with `Model.from_db`, exactly as a queryset would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache, lru_cache
from typing import Any, NamedTuple, TypeVar

from django.db import connections
from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.fields import AutoFieldMixin
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute

from core import caches
from core.caches import CODE, kept


class Statement(NamedTuple):
    """One hand-written statement of an app's ledger (its sql.py, docs/architecture.md §6):
    the next reader finds every statement, what its rows hold and the test that holds it
    equal to its ORM twin (or to a golden result) in one place."""

    text: str
    # What a row holds: a NamedTuple of its values, a model (or a tuple of models and plain
    # types, in column order) whose columns it selects; None for a statement without rows.
    row: Any
    twin: str  # "tests/<file>.py::<test>": the test that holds the statement to its twin


Shaped = TypeVar("Shaped", bound=Callable[..., str])


def shape(row: Any, twin: str, kept: int | None = None) -> Callable[[Shaped], Shaped]:
    """A statement whose text depends on its call's shape (a filter given or not, a model):
    its text is built once per shape (functools' cache; the `kept` latest shapes when they
    are many), and it carries the `row` and `twin` of a `Statement` for the ledger's test."""

    def wrap(build: Shaped) -> Shaped:
        cached: Any = cache(build) if kept is None else lru_cache(kept)(build)
        cached.row, cached.twin = row, twin
        return cached  # type: ignore[no-any-return]

    return wrap


caches.register(
    "core.rows.shape",
    key="each @shape statement's call shape (a filter given or not, a model)",
    bound="none: one text per shape the code asks (the `kept` latest where they are many)",
    invalidation="never: the texts depend only on the code",
    reset="none needed",
)


class ModelColumns:
    """The concrete columns of `model` under a table alias, and how to turn a row into it."""

    def __init__(self, model: type[Model], alias: str, defer: tuple[str, ...] = ()) -> None:
        self.model = model
        self.alias = alias
        self.fields = [f for f in model._meta.concrete_fields if f.name not in defer]
        self.names = [f.attname for f in self.fields]
        self.width = len(self.fields)
        self.table = f'"{model._meta.db_table}" {alias}'
        self.select = ", ".join(f'{alias}."{f.column}"' for f in self.fields)
        self._converters: dict[str, list[tuple[int, list[Any], Any]]] = {}
        self._plain: bool | None = None

    def _converters_for(self, using: str) -> list[tuple[int, list[Any], Any]]:
        """The (position, converters, expression) a queryset would apply, per connection."""
        found = self._converters.get(using)
        if found is None:
            connection = connections[using]
            found = []
            for position, f in enumerate(self.fields):
                col = f.get_col(self.alias)
                convs = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
                if convs:
                    found.append((position, convs, col))
            self._converters[using] = found
        return found

    def build(self, row: Sequence[Any], start: int = 0, using: str = "default") -> Model:
        """The instance held in row[start:start + width], converted as a queryset would."""
        values = list(row[start : start + self.width])
        connection = connections[using]
        for position, convs, col in self._converters_for(using):
            value = values[position]
            for convert in convs:
                value = convert(value, col, connection)
            values[position] = value
        if self._plain is None:
            self._plain = _plain_init(self.model)
        if not self._plain:
            return self.model.from_db(using, self.names, values)
        # What from_db's __init__ does for such a model, without its per-field loop: a list of
        # a few hundred rows spent most of its time there. Left-out columns are
        # deferred, as from_db leaves them.
        obj = self.model.__new__(self.model)
        state = obj._state = ModelState()
        state.adding = False
        state.db = using
        obj.__dict__.update(zip(self.names, values, strict=True))
        return obj


def _plain_init(model: type[Model]) -> bool:
    """Whether `Model.__init__` only stores each value: every column's attribute is Django's
    plain deferred one (a foreign key's id setter only drops a cached object, which a new
    instance has not). Its init signals have no receiver: the project connects none (§3)
    and tests/test_rows_lists.py holds that no installed app does."""
    plain = (DeferredAttribute, ForeignKeyDeferredAttribute)
    return all(type(model.__dict__.get(f.attname)) in plain for f in model._meta.concrete_fields)


@kept("(model, alias, deferred fields)", bound="the pairs the code names", invalidation=CODE)
@cache
def columns(model: type[Model], alias: str, defer: tuple[str, ...] = ()) -> ModelColumns:
    """The one `ModelColumns` of a model under an alias (without the `defer` fields, left
    deferred on the instances), shared by every statement that selects it (its converters
    are looked up once per connection, not once per caller)."""
    return ModelColumns(model, alias, defer)


def _run[R](sql: str, params: Sequence[Any], using: str, take: Callable[[Any], R]) -> R:
    """`take(cursor)` after `sql` (Django's %s placeholders) ran: on a plain checked cursor
    (core/sqlite/base.py) with Django's broken-transaction check and error wrapping, closed
    after (which ends its statement), else — no connection yet, statements captured —
    through Django's cursor."""
    connection = connections[using]
    plain = getattr(connection, "plain_cursor", None)
    cursor = plain() if plain is not None else None
    if cursor is None:
        with connection.cursor() as wrapped:
            wrapped.execute(sql, params)
            return take(wrapped)
    try:
        connection.validate_no_broken_transaction()
        with connection.wrap_database_errors:
            cursor.execute(sql, params)
            return take(cursor)
    finally:
        cursor.close()


def fetch_one(sql: str, params: Sequence[Any], using: str = "default") -> tuple[Any, ...] | None:
    """The first row of `sql` (Django's %s placeholders)."""
    return _run(sql, params, using, _first)


def fetch_all(sql: str, params: Sequence[Any], using: str = "default") -> list[tuple[Any, ...]]:
    """Every row of `sql` (Django's %s placeholders)."""
    return _run(sql, params, using, _every)


def _first(cursor: Any) -> tuple[Any, ...] | None:
    return cursor.fetchone()  # type: ignore[no-any-return]


def _every(cursor: Any) -> list[tuple[Any, ...]]:
    return cursor.fetchall()  # type: ignore[no-any-return]


def _changed(cursor: Any) -> int:
    return cursor.rowcount  # type: ignore[no-any-return]


def moments(using: str = "default") -> Callable[[Any], datetime | None]:
    """What turns a datetime read as a plain value (a column, or an expression's text) into
    what a queryset gives: aware, through the backend's own converter. Looked up once per
    list of rows: the connection's lookup cost more than the converting."""
    connection = connections[using]
    convert = connection.ops.convert_datetimefield_value
    return lambda value: convert(value, None, connection)  # type: ignore[no-any-return]


def fetch_related(
    sql: str,
    params: Sequence[Any],
    main: ModelColumns,
    related: ModelColumns,
    attr: str,
    using: str = "default",
) -> list[Model]:
    """The `main` instance of each row with its `attr` built from the columns right after
    it, as select_related(attr) would: `sql` selects main's columns, then related's."""
    found = []
    for row in fetch_all(sql, params, using):
        obj = main.build(row, using=using)
        setattr(obj, attr, related.build(row, main.width, using=using))
        found.append(obj)
    return found


@kept("(model, field)", bound="the pairs the code names", invalidation=CODE)
@cache
def _exists_sql(model: type[Model], field: str) -> str:
    column = model._meta.get_field(field).column
    # Names from the model's metadata, the value a parameter: nothing here comes from a caller.
    return f'SELECT 1 FROM "{model._meta.db_table}" WHERE "{column}" = %s LIMIT 1'  # noqa: S608


def has_rows(model: type[Model], field: str, value: Any, using: str = "default") -> bool:
    """`model.objects.filter(<field>=value).exists()`, without compiling a queryset: the
    move facts a stage move asks for run on every MCP stage change."""
    return fetch_one(_exists_sql(model, field), [value], using) is not None


@kept("(model, field, order, limit)", bound="the shapes the code asks", invalidation=CODE)
@cache
def _where_sql(model: type[Model], field: str, order_by: tuple[str, ...], limit: int | None) -> str:
    found = columns(model, "x")
    column = model._meta.get_field(field).column
    order = ", ".join(
        f'x."{model._meta.get_field(name.lstrip("-")).column}"'
        + (" DESC" if name.startswith("-") else "")
        for name in order_by
    )
    tail = f" LIMIT {int(limit)}" if limit else ""
    # Names from the model's metadata, the value a parameter: nothing here comes from a caller.
    return (
        f"SELECT {found.select} FROM {found.table} "  # noqa: S608
        f'WHERE x."{column}" = %s ORDER BY {order}{tail}'
    )


def rows_where(
    model: type[Model],
    field: str,
    value: Any,
    order_by: str | tuple[str, ...],
    limit: int | None = None,
    using: str = "default",
) -> list[Model]:
    """`model.objects.filter(<field>=value).order_by(*order_by)[:limit]` ("-" for descending),
    the SQL written once per shape: task_get's sections and the guard's stands read one
    list each."""
    order = (order_by,) if isinstance(order_by, str) else tuple(order_by)
    found = columns(model, "x")
    rows = fetch_all(_where_sql(model, field, order, limit), [value], using)
    return [found.build(row, using=using) for row in rows]


@kept("(model, field)", bound="the pairs the code names", invalidation=CODE)
@cache
def _count_sql(model: type[Model], field: str) -> str:
    column = model._meta.get_field(field).column
    return f'SELECT COUNT(*) FROM "{model._meta.db_table}" WHERE "{column}" = %s'  # noqa: S608


def count_where(model: type[Model], field: str, value: Any, using: str = "default") -> int:
    """`model.objects.filter(<field>=value).count()`, the SQL written once per model."""
    row = fetch_one(_count_sql(model, field), [value], using)
    return row[0] if row else 0


def insert(obj: Model, using: str = "default") -> Model:
    """`obj.save()` of a new row, as one INSERT … RETURNING written once per model: the event
    log takes one on every write. An automatic key is the database's; any other key (a
    one-to-one primary key) is the object's own. No signals are sent (none are used)."""
    model = type(obj)
    fields, sql = _insert_sql(model)
    connection = connections[using]
    values = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    row = fetch_one(sql, values, using)
    obj.pk = row[0]  # type: ignore[index]
    obj._state.adding = False
    obj._state.db = using
    return obj


@kept("a model", bound="the models the code writes", invalidation=CODE)
@cache
def _insert_sql(model: type[Model]) -> tuple[list[Any], str]:
    pk = model._meta.pk
    automatic = isinstance(pk, AutoFieldMixin)
    fields = [f for f in model._meta.concrete_fields if f is not pk or not automatic]
    names = ", ".join(f'"{f.column}"' for f in fields)
    marks = ", ".join("%s" for _ in fields)
    table = model._meta.db_table
    sql = f'INSERT INTO "{table}" ({names}) VALUES ({marks}) RETURNING "{pk.column}"'  # noqa: S608
    return fields, sql


def update(
    model: type[Model], values: dict[str, Any], where: dict[str, Any], using: str = "default"
) -> int:
    """`model.objects.filter(**where).update(**values)` for plain values (no expressions; a
    None in `where` is `IS NULL`), the SQL written once per set of names; the number of rows
    changed."""
    compared = {name: value for name, value in where.items() if value is not None}
    nulls = tuple(name for name, value in where.items() if value is None)
    fields, sql = _update_sql(model, tuple(values), tuple(compared), nulls)
    connection = connections[using]
    sets, conditions = fields[: len(values)], fields[len(values) :]
    params = [f.get_db_prep_save(v, connection) for f, v in zip(sets, values.values(), strict=True)]
    params += [
        f.get_db_prep_value(v, connection)
        for f, v in zip(conditions, compared.values(), strict=True)
    ]
    return _run(sql, params, using, _changed)


class StaleRow(Exception):
    """A conditional UPDATE matched no row: another writer got there first (retry, or tell
    the caller to read again)."""


def update_if(
    model: type[Model],
    pk: Any,
    values: dict[str, Any],
    *,
    when: dict[str, Any],
    using: str = "default",
) -> None:
    """The conditional `UPDATE … WHERE pk = … AND version = …` of optimistic locking
    (docs/architecture.md §3), written once: `when` names the columns the row must still
    hold (`{"version": read}`; None: still NULL). Raises StaleRow when no row matched, so no
    caller can forget to look at the count."""
    where = {model._meta.pk.attname: pk, **when}
    if update(model, values, where, using) != 1:
        raise StaleRow


@kept("(model, set, matched, null fields)", bound="the shapes the code writes", invalidation=CODE)
@cache
def _update_sql(
    model: type[Model], names: tuple[str, ...], where: tuple[str, ...], nulls: tuple[str, ...]
) -> tuple[list[Any], str]:
    by_name = {n: f for f in model._meta.concrete_fields for n in (f.name, f.attname)}
    fields = [by_name[n] for n in (*names, *where)]
    sets = ", ".join(f'"{f.column}" = %s' for f in fields[: len(names)])
    conditions = [f'"{f.column}" = %s' for f in fields[len(names) :]]
    conditions += [f'"{by_name[n].column}" IS NULL' for n in nulls]
    table, where_sql = model._meta.db_table, " AND ".join(conditions)
    return fields, f'UPDATE "{table}" SET {sets} WHERE {where_sql}'  # noqa: S608
