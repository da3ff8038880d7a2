"""The structure scan's reader (regex_shape): tokens, groups, quantifiers and flags; the
lexemes it meets inside them are read by its Lexemes half (lexemes.py)."""

from __future__ import annotations

from dataclasses import dataclass

from policy.regex_shape.lexemes import (
    DIGITS,
    FLAG_LETTERS,
    Lexemes,
    excerpt,
)


def scan(pattern: str) -> Shape:
    """The shape of a pattern that compiled: references, repeated groups, unbounded count."""
    return Scanner(pattern).scan()


@dataclass
class Holds:
    """What a parsed piece holds at any depth; `group` when the piece is a group."""

    quantifier: bool = False
    alternation: bool = False
    group: bool = False

    def take(self, inner: Holds) -> None:
        self.quantifier |= inner.quantifier
        self.alternation |= inner.alternation


@dataclass
class Shape:
    reference: str | None = None  # the first back-reference, group call or fuzzy constraint
    repeated: str | None = None  # "a quantifier" / "an alternation": the first repeated group
    unbounded: int = 0


class Scanner(Lexemes):
    """A reader over one pattern that compiled; it never has to report a syntax error."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.pos = 0
        self.verbose = False
        self.shape = Shape()

    def scan(self) -> Shape:
        while self.pos < len(self.text):  # an unbalanced ")" never compiles; be safe anyway
            self.pattern()
            self.pos += 1
        return self.shape

    # reading: in verbose mode whitespace and "#" comments before a token are skipped

    def skip(self) -> None:
        text, pos = self.text, self.pos
        while self.verbose and pos < len(text):
            if text[pos].isspace():
                pos += 1
            elif text[pos] == "#":
                end = text.find("\n", pos)
                pos = len(text) if end < 0 else end
            else:
                break
        self.pos = pos

    def get(self, raw: bool = False) -> str:
        if not raw:
            self.skip()
        if self.pos >= len(self.text):
            return ""
        self.pos += 1
        return self.text[self.pos - 1]

    def match(self, expected: str) -> bool:
        start = self.pos
        for char in expected:
            if self.get() != char:
                self.pos = start
                return False
        return True

    def take(self, chars: frozenset[str], include: bool = True) -> str:
        taken = []
        while True:
            self.skip()
            if self.pos >= len(self.text) or (self.text[self.pos] in chars) != include:
                return "".join(taken)
            taken.append(self.text[self.pos])
            self.pos += 1

    def note_reference(self, what: str, start: int) -> None:
        if self.shape.reference is None:
            self.shape.reference = f"{what} ({excerpt(self.text[start : self.pos])})"

    # the grammar

    def pattern(self) -> Holds:
        holds = self.sequence()
        while self.match("|"):
            holds.alternation = True
            holds.take(self.sequence())
        return holds

    def sequence(self) -> Holds:
        holds = Holds()
        last: Holds | None = None  # what a quantifier here would repeat
        while True:
            start = self.pos
            char = self.get()
            if char in ("", ")", "|"):
                self.pos = start
                return holds
            if char in ("?", "*", "+", "{"):
                last = self.quantifier(char, last, holds)
                continue
            atom = self.atom(char)
            if atom is not None:  # inline flags and comments leave `last` alone
                last = atom
                holds.take(atom)

    def atom(self, char: str) -> Holds | None:
        if char == "\\":
            self.escape(in_set=False)
        elif char == "(":
            return self.paren()
        elif char == "[":
            self.char_set()
        return Holds()

    def quantifier(self, char: str, last: Holds | None, holds: Holds) -> Holds | None:
        """Returns what a following quantifier would repeat: nothing after a quantifier or a
        fuzzy constraint, the literal "{" when it is neither."""
        start = self.pos - 1
        counts = self.counts(char)
        if counts is None:
            if self.fuzzy():
                self.note_reference("uses fuzzy matching", start)
                return None
            return Holds()  # a literal "{"
        at_most = counts[1]
        self.suffix()
        holds.quantifier = True
        if at_most is None:
            self.shape.unbounded += 1
        repeats = at_most is None or at_most >= 2
        if last is not None and last.group and repeats and self.shape.repeated is None:
            if last.quantifier:
                self.shape.repeated = "a quantifier"
            elif last.alternation:
                self.shape.repeated = "an alternation"
        return None

    def counts(self, char: str) -> tuple[int, int | None] | None:
        if char == "?":
            return 0, 1
        if char == "*":
            return 0, None
        if char == "+":
            return 1, None
        start = self.pos
        low = self.take(DIGITS)
        if self.match(","):
            high = self.take(DIGITS)
            counts = (int(low or 0), int(high) if high else None)
        elif low:
            counts = (int(low), int(low))
        else:
            self.pos = start
            return None
        if not self.match("}"):
            self.pos = start
            return None
        return counts

    def suffix(self) -> None:
        """A lazy "?" or possessive "+" after a quantifier belongs to it."""
        start = self.pos
        if self.get() not in ("?", "+"):
            self.pos = start

    def group(self, verbose: bool | None = None, *, scoped: bool = True) -> Holds:
        """The inside of a group up to its ")". Flags set inside end with it, except in a
        branch reset group (?|...), where regex lets them run on."""
        outer = self.verbose
        if verbose is not None:
            self.verbose = verbose
        inner = self.pattern()
        self.match(")")
        if scoped:
            self.verbose = outer
        return Holds(inner.quantifier, inner.alternation, group=True)

    def paren(self) -> Holds | None:
        start = self.pos - 1
        after = self.pos
        char = self.get(raw=True)
        if char == "?":
            return self.extension(start)
        if char == "*":
            word = self.take(frozenset(")>"), include=False)
            if word[:1].isalpha():  # a verb such as (*FAIL): an atom
                self.match(")")
                return Holds()
        self.pos = after
        return self.group()

    def extension(self, start: int) -> Holds | None:
        after = self.pos
        char = self.get(raw=True)
        if char == "<":
            name_at = self.pos
            if self.get() in ("=", "!"):  # lookbehind
                return self.group()
            self.pos = name_at
            self.name()
            self.match(">")
            return self.group()
        if char in ("=", "!", ">"):  # lookahead, atomic group
            return self.group()
        if char == "|":  # branch reset
            return self.group(scoped=False)
        if char == "P":
            return self.python_extension(start)
        if char == "#":
            self.comment()
            return None
        if char == "(":
            return self.conditional()
        if char == "R" or char in DIGITS:
            self.take(DIGITS)
            return self.call(start)
        if char == "&":
            self.name()
            return self.call(start)
        if char in ("+", "-") and self.pos < len(self.text) and self.text[self.pos] in DIGITS:
            self.take(DIGITS)
            return self.call(start)
        self.pos = after
        return self.flags()

    def python_extension(self, start: int) -> Holds | None:
        char = self.get()
        if char == "<":
            self.name()
            self.match(">")
            return self.group()
        self.name()
        self.match(")")
        if char == "=":
            self.note_reference("uses a back-reference", start)
        else:  # (?P>name), (?P&name)
            self.note_reference("uses a group call", start)
        return Holds()

    def call(self, start: int) -> Holds:
        self.match(")")
        self.note_reference("uses a group call", start)
        return Holds()

    def name(self) -> str:
        return self.take(frozenset(")>"), include=False)

    def comment(self) -> None:
        while (char := self.get(raw=True)) not in ("", ")"):
            if char == "\\":
                self.get(raw=True)

    def conditional(self) -> Holds:
        """(?(1)yes|no), (?(name)yes|no) or (?(?=look)yes|no): a group that holds an
        alternation (a choice between two branches) even when "|no" is left out. Flags set
        in the branches end with it only after a group condition, as in regex."""
        outer = self.verbose
        holds = Holds(alternation=True, group=True)
        looks = self.match("?")  # a lookaround condition: "?=", "?!", "?<=" or "?<!"
        if looks:
            if self.get() == "<":
                self.get()
            holds.take(self.group())
        else:
            self.name()
            self.match(")")
        holds.take(self.sequence())
        if self.match("|"):
            holds.take(self.sequence())
        self.match(")")
        if not looks:
            self.verbose = outer
        return holds

    def flags(self) -> Holds | None:
        """(?flags) turns flags on from here to the end of the group: no atom; (?flags:...) is
        a group with its own flags. Only the verbose flag matters to the scanner."""
        on = self.flag_set()
        off = self.flag_set() if self.match("-") else set()
        verbose = ("x" in on or self.verbose) and "x" not in off
        if self.match(":"):
            return self.group(verbose)
        self.match(")")
        self.verbose = verbose
        return None

    def flag_set(self) -> set[str]:
        found = set()
        while True:
            start = self.pos
            flag = self.get()
            if flag == "V":
                flag += self.get()
            if flag not in FLAG_LETTERS:
                self.pos = start
                return found
            found.add(flag)
