"""The lexemes of a policy regular expression for the structure scan (regex_shape): escapes,
back-references, character sets and fuzzy constraints, read as regex's own parser reads them.
A mixin of the Scanner (scanner.py), which holds the reading position and the shape found."""

from __future__ import annotations

import string

EXCERPT = 40  # a message never repeats more of the pattern than this
DIGITS = frozenset(string.digits)
OCTAL = frozenset(string.octdigits)
ALNUM = frozenset(string.ascii_letters + string.digits)
PROPERTY_NAME = ALNUM | frozenset(" &_-.")
PROPERTY_VALUE = ALNUM | frozenset(" &_-./")
NAMED_CHAR = ALNUM | frozenset(" -")
HEX_LENGTH = {"x": 2, "u": 4, "U": 8}
FLAG_LETTERS = frozenset("abefiLmprsuwx") | {"V0", "V1"}


class NotFuzzy(Exception):
    """The "{...}" is not a fuzzy constraint after all (regex's ParseError)."""


class Lexemes:
    """The Scanner's readers of single lexemes (they use its get, match, take and skip)."""

    def escape(self, *, in_set: bool) -> None:
        start = self.pos - 1
        char = self.get(raw=True)
        if char in HEX_LENGTH:
            for _ in range(HEX_LENGTH[char]):
                self.get()
        elif char in ("g", "k") and not in_set:  # regex refuses \k, other engines do not
            self.group_reference(start)
        elif char == "N":
            self.braced(NAMED_CHAR)
        elif char in ("p", "P") and not self.braced(PROPERTY_VALUE | frozenset(":=^")):
            if self.text[self.pos : self.pos + 1] in ("C", "L", "M", "N", "P", "S", "Z"):
                self.pos += 1  # \pL
        elif char in DIGITS and char != "0" and not in_set:
            self.numeric_reference(start)

    def group_reference(self, start: int) -> None:
        after = self.pos
        if self.match("<"):
            name = self.name()
            if self.match(">") and (name.isdigit() or name.isidentifier()):
                self.note_reference("uses a back-reference", start)
                return
        self.pos = after  # not a reference: a literal "g"

    def numeric_reference(self, start: int) -> None:
        """\\1 to \\99 refer to a group; three octal digits are a character."""
        digits = self.text[self.pos - 1]
        end = self.pos
        if (char := self.get()) in DIGITS:
            digits += char
            end = self.pos
            if all(d in OCTAL for d in digits) and self.get() in OCTAL:
                return
        self.pos = end
        self.note_reference("uses a back-reference", start)

    def braced(self, allowed: frozenset[str]) -> bool:
        """Skips "{...}" after \\N or \\p when it is one, as regex does."""
        if self.pos >= len(self.text) or self.text[self.pos] != "{":
            return False
        end = self.text.find("}", self.pos)
        inside = self.text[self.pos + 1 : end]
        if end < 0 or not set(inside) <= allowed:
            return False
        self.pos = end + 1
        return True

    def char_set(self) -> None:
        """A "[...]" read raw, as regex reads it (no verbose skipping inside)."""
        outer, self.verbose = self.verbose, False
        if self.text.startswith("^", self.pos):
            self.pos += 1
        self.set_member()  # the first member may be "]"
        while self.pos < len(self.text) and self.text[self.pos] != "]":
            self.set_member()
        self.pos += 1
        self.verbose = outer

    def set_member(self) -> None:
        char = self.get(raw=True)
        if char == "\\":
            self.escape(in_set=True)
        elif char == "[" and self.text.startswith(":", self.pos):
            self.posix_class()

    def posix_class(self) -> None:
        """[:alpha:] inside a set; when it does not parse as one, "[" was a literal."""
        start = self.pos
        self.pos += 1
        if self.text.startswith("^", self.pos):
            self.pos += 1
        self.take(PROPERTY_NAME)
        after_name = self.pos
        if self.text[self.pos : self.pos + 1] in (":", "="):
            self.pos += 1
            if not self.take(PROPERTY_VALUE).strip():
                self.pos = after_name
        if self.text.startswith(":]", self.pos):
            self.pos += 2
        else:
            self.pos = start

    # fuzzy constraints such as {e<=1} or {1<=s<=2,2i+2d<=4:[a-z]}, mirroring regex

    def fuzzy(self) -> bool:
        start = self.pos
        seen: set[str] = set()
        try:
            self.fuzzy_item(seen)
            while self.match(","):
                self.fuzzy_item(seen)
        except NotFuzzy:
            self.pos = start
            return False
        if self.match(":"):
            char = self.get()
            if char == "\\":
                self.escape(in_set=False)
            elif char == "[":
                self.char_set()
        self.match("}")
        return True

    def fuzzy_item(self, seen: set[str]) -> None:
        start = self.pos
        try:
            self.cost_limit(seen)
        except NotFuzzy:
            self.pos = start
            self.cost_equation()

    def cost_limit(self, seen: set[str]) -> None:
        start = self.pos
        char = self.get()
        if char in ALNUM and char not in DIGITS:  # e, e<=2
            self.constraint(char, seen)
            if self.compare():
                self.take(DIGITS)
            return
        if char not in DIGITS:
            raise NotFuzzy
        self.pos = start  # 1<=e<=2
        self.take(DIGITS)
        if not self.compare():
            raise NotFuzzy
        self.constraint(self.get(), seen)
        if not self.compare():
            raise NotFuzzy
        self.take(DIGITS)

    def constraint(self, char: str, seen: set[str]) -> None:
        if char not in ("d", "e", "i", "s") or char in seen:
            raise NotFuzzy
        seen.add(char)

    def compare(self) -> bool:
        return self.match("<=") or self.match("<")

    def cost_equation(self) -> None:  # 2i+2d+1s<=4
        self.cost_term()
        while self.match("+"):
            self.cost_term()
        if not self.compare():
            raise NotFuzzy
        self.take(DIGITS)

    def cost_term(self) -> None:
        self.take(DIGITS)
        if self.get() not in ("d", "i", "s"):
            raise NotFuzzy


def excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"
