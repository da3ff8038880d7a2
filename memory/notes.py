"""The pure rules of memory notes (§8 Memory notes): title words, their stems, the title
similarity the dedupe of memory_add ranks candidates by, and tag cleaning.

No database here: memory/services/notes.py calls these inside its transaction.
"""

from __future__ import annotations

import re
from functools import cache

import snowballstemmer

from core.caches import kept
from memory.models import MemoryNote

# A title similarity at or above this is a strong match: op=add next to one needs force_new.
STRONG_MATCH = 0.6
TAG_MAX = 40

# Small on purpose: the words that make two unrelated titles look alike.
_STOP_TEXT = """
    about after again all also and any are because been before being both but can could
    did does doing don down each few for from had has have having her here hers him his
    how into its just more most not now off once only other our ours out over own same
    she should some such than that the their theirs them then there these they this
    those through too under until very was were what when where which while who whom why
    will with would you your yours use uses used using via per
    без более бы был была были было быть вам вас все всё всех где для до его ее её если
    есть еще ещё же за или им их как когда кто ли мне мы над надо не нет нибудь них но
    ну об однако он она они оно от по под при про раз так такой там тем то того тоже
    только том тот ты уже чем что чтобы эта эти это этот
    """
STOP_WORDS = frozenset(_STOP_TEXT.split())

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")


@kept("a language", bound="english and russian")
@cache
def _stemmer(language: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(language)


def title_words(title: str) -> list[str]:
    """The words of a title that count: lowercased, no stop words, none of one or two letters."""
    words = [w for w in _WORD.findall(title.lower()) if len(w) > 2 and w not in STOP_WORDS]
    return list(dict.fromkeys(words))


def stem(word: str) -> str:
    """English stem, or Russian for a word with Cyrillic letters."""
    language = "russian" if _CYRILLIC.search(word) else "english"
    return _stemmer(language).stemWord(word)


def title_stems(title: str) -> frozenset[str]:
    return frozenset(stem(w) for w in title_words(title))


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the stemmed title words of two titles (0 when either has none)."""
    left, right = title_stems(a), title_stems(b)
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def shares_a_word(a: str, b: str) -> bool:
    return bool(title_stems(a) & title_stems(b))


def is_strong(score: float) -> bool:
    return score >= STRONG_MATCH


def clean_tags(value: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """Tags as stored: lowercased, inner spaces collapsed, each once, in the order given.

    Takes "a, b" or a list; a tag may not hold a comma (it is the separator) and is at most
    TAG_MAX characters. Raises ValueError naming the offending tag by its place, never its
    text (a refused value may be a secret).
    """
    if value is None:
        return ()
    parts = value.split(",") if isinstance(value, str) else list(value)
    tags: list[str] = []
    for number, part in enumerate(parts, start=1):
        if not isinstance(part, str):
            raise ValueError(f"a tag must be text, got {type(part).__name__}")
        if "," in part and not isinstance(value, str):
            raise ValueError(f"tag {number} holds a comma; pass the tags one by one")
        tag = " ".join(part.lower().split())
        if any(ord(c) < 32 for c in tag):
            raise ValueError(f"tag {number} holds a control character; remove it")
        if not tag:
            continue
        if len(tag) > TAG_MAX:
            raise ValueError(f"tag {number} is {len(tag)} characters long; at most {TAG_MAX}")
        tags.append(tag)
    return tuple(dict.fromkeys(tags))


def tags_text(tags: tuple[str, ...]) -> str:
    return ",".join(tags)


def place(note: MemoryNote) -> str:
    """Where a note sits, as answers and refusals say it: global, role x, project y."""
    if note.scope == "project" and note.project is not None:
        return f"project {note.project.slug}"
    if note.scope == "role":
        return f"role {note.role}"
    return "global"
