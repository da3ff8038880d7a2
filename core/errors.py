"""Domain failures. Each message tells the caller what to do next; adapters translate them
(MCP → ToolError, views → form errors with a 4xx, hooks → JSON or 204)."""

import re


class DomainError(Exception):
    """Base of every failure a user or an agent can fix."""

    status = 400


class NotFound(DomainError):
    status = 404


class InvalidField(DomainError):
    """A value that breaks a field rule; `field` names it."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


class VersionConflict(DomainError):
    status = 409

    def __init__(self, message: str, current_version: int) -> None:
        self.current_version = current_version
        super().__init__(message)


class RuleRefusal(DomainError):
    """A stage move refused in strict mode; nothing changed."""

    status = 409


class Forbidden(DomainError):
    status = 403


class SecretRefused(InvalidField):
    """A write held a secret (§9.9): the message names the field and the detector, never the
    value. A form that keeps what the owner typed shows it through `hide`, the value masked."""

    def __init__(self, field: str, message: str, secret: str) -> None:
        self._secret = secret
        super().__init__(field, message)

    def hide(self, typed: str) -> str:
        """`typed` with every occurrence of the refused value as *** (in any case: a label
        is shown lowercased)."""
        if not self._secret:
            return typed
        return re.sub(re.escape(self._secret), "***", typed, flags=re.IGNORECASE)
