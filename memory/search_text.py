"""The text side of the memory's full-text search (§8 Search): words, stems, the FTS5 MATCH
expression, the LIKE fallback's terms and the line a hit names.

Pure functions, no Django and no table: memory/search.py owns search_index, built as

    CREATE VIRTUAL TABLE search_index USING fts5(kind UNINDEXED, ref UNINDEXED,
        project UNINDEXED, state, scope, title, body, stems,
        tokenize='unicode61 remove_diacritics 2')

with stems = stemmed_text(title, body) (state and scope are its filter tokens). A query
word matches a title or body word it begins, or a stem it begins through its own stem, so
"deploying" finds "deployment" and "развёртывания" finds "развёртывание"; all words are
required.

words() follows unicode61 closely but not exactly (SQLite's character tables are older
Unicode than Python's, and it folds a few letters such as ſ or ς that lower() keeps). That
never breaks a query: the words go into the MATCH expression as quoted strings, which FTS5
splits again with the table's own tokenizer, and the stems column is built and queried
with these same functions on both sides. One deliberate difference: unicode61 folds
diacritics of Latin letters only and keeps ё (and й) as they are, while words() also folds
ё to е, as Russian text is written with either and the Russian stemmer folds it anyway.
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache

import regex
import snowballstemmer

from core.caches import kept

MAX_QUERY_WORDS = 16  # words of a query past this are dropped: FTS5 caps expression depth
MAX_QUERY_WORD = 64  # a longer query word is cut here, which as a prefix term still matches
MAX_STEMMED = 64  # a longer word (a hash, base64) is its own stem: nothing to strip
MAX_HIT_LINE = 200
SEARCH_QUERY_MAX = 200  # characters of a search text (the Docs & rules page, memory_search)

# The bm25() weights of search_index's columns, in their order: kind, ref and project are
# not indexed; a title hit weighs most, a body word beats a hit through its stem only.
BM25_WEIGHTS = (0.0, 0.0, 0.0, 10.0, 2.0, 1.0)

# What unicode61 keeps together: letters, digits and numbers of any script, private-use and
# unassigned code points; combining marks join a word and are dropped from it (remove
# diacritics), everything else separates words.
_WORD = regex.compile(r"[\p{L}\p{N}\p{Co}\p{Cn}\p{Mn}]+")
_CYRILLIC = regex.compile(r"\p{Cyrillic}")
_WORD_COLUMNS = "{title body}"  # FTS5 column filter of the word terms
_STEM_COLUMN = "stems"

_stemmers = {
    "english": snowballstemmer.stemmer("english"),
    "russian": snowballstemmer.stemmer("russian"),
}
_stem_lock = threading.Lock()  # a Snowball stemmer keeps its word in itself while it works


def words(text: str) -> list[str]:
    """The words of `text` as search compares them: lowercased, Latin diacritics and
    combining marks removed as remove_diacritics 2 does, and ё folded to е."""
    if text.isascii():  # most text: nothing to fold
        return _WORD.findall(text.lower())
    return [word.replace("ё", "е") for word in _tokens(text)]


def stem(word: str) -> str:
    """The Snowball stem of one word from words(): Russian when it has Cyrillic letters,
    English otherwise."""
    if len(word) > MAX_STEMMED:
        return word
    return _stem(word)


@kept("a word")
@lru_cache(maxsize=20_000)
def _stem(word: str) -> str:
    language = "russian" if _CYRILLIC.search(word) else "english"
    with _stem_lock:
        return _stemmers[language].stemWord(word) or word


def stemmed_text(title: str, body: str) -> str:
    """The stems column of a row: every word's stem, space-separated, which a query's stems
    match as prefixes."""
    return " ".join(stem(word) for word in words(f"{title}\n{body}"))


def fts_query(query: str) -> str | None:
    """The FTS5 MATCH expression for what a user typed, or None when it has no words.

    Each word becomes `({title body} : "word"* OR stems : "stem"*)` and the words are
    ANDed. Only letters and digits reach the quotes, so nothing the user types (quotes, *,
    NEAR, AND, -, parentheses, colons) is read as FTS5 syntax. When the typed word holds
    ё, its unfolded form is OR'ed in too, since the title and body columns keep ё."""
    terms = []
    for raw, word in _query_words(query):
        options = [f'{_WORD_COLUMNS} : "{word}"*']
        if raw != word:
            options.insert(0, f'{_WORD_COLUMNS} : "{raw}"*')
        options.append(f'{_STEM_COLUMN} : "{stem(word)}"*')
        terms.append("(" + " OR ".join(options) + ")")
    return " AND ".join(terms) or None


def like_terms(query: str) -> list[tuple[str, str]]:
    """(word, stem) per query word for the LIKE fallback, when search_index cannot be made:
    a row matches when, for every pair, the word or the stem is a substring of title, body
    or stems. Neither holds a LIKE wildcard (% or _), so no ESCAPE is needed.

    SQLite's LIKE ignores case for ASCII letters only and knows nothing of diacritics, so
    "Развёртывание" in a stored title never matches "развертыван". The caller matches the
    stems column (stemmed_text, already lowercased and folded) or stores lowercased, folded
    copies of title and body (" ".join(words(text))) to compare with."""
    return [(word, stem(word)) for _, word in _query_words(query)]


def hit_line(text: str, query: str) -> str:
    """The line of `text` holding the most query words, a line word matching when it begins
    with the query word or its stem begins with the query word's stem. Blank lines never
    count; the first line wins a tie, and is the answer when nothing matches. Stripped, and
    cut with an ellipsis to MAX_HIT_LINE characters.

    Each distinct word of the text is stemmed and compared once, as a bit per query word it
    matches, and a line holding every query word ends the walk (no later line can beat it):
    a search's twenty hits spent more time here than in SQLite."""
    wanted = [(word, stem(word)) for _, word in _query_words(query)]
    every = len(wanted)
    matched: dict[str, int] = {}  # line word → the query words it matches, one bit each
    best, best_count = "", -1
    for line in text.splitlines():
        if not line.strip():
            continue
        found = 0
        for word in words(line):
            bits = matched.get(word)
            if bits is None:
                word_stem = stem(word)
                bits = 0
                for bit, (wanted_word, wanted_stem) in enumerate(wanted):
                    if word.startswith(wanted_word) or word_stem.startswith(wanted_stem):
                        bits |= 1 << bit
                matched[word] = bits
            found |= bits
        count = found.bit_count()
        if count > best_count:
            best, best_count = line, count
            if count == every:
                break
    best = best.strip()
    if len(best) > MAX_HIT_LINE:
        return best[: MAX_HIT_LINE - 1] + "…"
    return best


def _query_words(query: str) -> list[tuple[str, str]]:
    """(as typed but lowercased, as words() folds it) per distinct query word, at most
    MAX_QUERY_WORDS of them, each cut to MAX_QUERY_WORD characters."""
    seen: dict[str, str] = {}
    for token in _tokens(query):
        raw = token[:MAX_QUERY_WORD]
        word = raw.replace("ё", "е")
        if word not in seen and len(seen) < MAX_QUERY_WORDS:
            seen[word] = raw
    return [(raw, word) for word, raw in seen.items()]


def _tokens(text: str) -> list[str]:
    """The words of `text` as unicode61 with remove_diacritics 2 makes them (ё kept)."""
    tokens = []
    for token in _WORD.findall(text.lower()):
        if not token.isascii():
            token = "".join(_fold(ch) for ch in token)
        if token:
            tokens.append(token)
    return tokens


@kept("a character")
@lru_cache(maxsize=4096)
def _fold(ch: str) -> str:
    """One lowercased character without its diacritics: a Latin letter with marks becomes
    its ASCII letter, a combining mark disappears, anything else stays (ё, й, ά)."""
    decomposed = unicodedata.normalize("NFD", ch)
    if decomposed[0].isascii() and all(unicodedata.category(m) == "Mn" for m in decomposed[1:]):
        return decomposed[0]
    if unicodedata.category(ch) == "Mn":
        return ""
    return ch
