"""One small in-process store: capped, locked, the oldest forgotten first.

The hook room keeps a little state per session in this process's memory (what the last tool
call waits on, a turn's work, a repeated call's count, the activity window, the plan
reminder's last text, the minute sweep's signals). A restart forgets it, which costs at
most one line said twice; a server that sees sessions come and go must not grow, and the
hook requests touch it from more than one thread. So each of them is a `Memo`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator


class Memo[K, V]:
    """A dict behind one lock that holds at most `cap` keys: setting a new key past the cap
    forgets the least recently set (or touched) one."""

    def __init__(self, cap: int = 10_000) -> None:
        self.cap = cap
        self._items: OrderedDict[K, V] = OrderedDict()
        self.lock = threading.RLock()  # held by callers that change a value in place

    def get(self, key: K, default: V | None = None) -> V | None:
        with self.lock:
            return self._items.get(key, default)

    def set(self, key: K, value: V) -> None:
        with self.lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.cap:
                self._items.popitem(last=False)

    def setdefault(self, key: K, make: Callable[[], V]) -> V:
        """The value of `key`, made (and kept) when there is none."""
        with self.lock:
            if key not in self._items:
                self.set(key, make())
            return self._items[key]

    def pop(self, key: K, default: V | None = None) -> V | None:
        with self.lock:
            return self._items.pop(key, default)

    def snapshot(self) -> dict[K, V]:
        """A copy of everything held, to read without the lock."""
        with self.lock:
            return dict(self._items)

    def values(self) -> list[V]:
        """The values held, a copy."""
        with self.lock:
            return list(self._items.values())

    def keep(self, wanted: Callable[[K, V], bool]) -> None:
        """Forget every entry `wanted` says no to."""
        with self.lock:
            for key in [k for k, v in self._items.items() if not wanted(k, v)]:
                del self._items[key]

    def clear(self) -> None:
        with self.lock:
            self._items.clear()

    def __contains__(self, key: object) -> bool:
        with self.lock:
            return key in self._items

    def __len__(self) -> int:
        with self.lock:
            return len(self._items)

    def __iter__(self) -> Iterator[K]:
        return iter(self.snapshot())
