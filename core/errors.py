"""Domain failures. Each message tells the caller what to do next; adapters translate them
(MCP → ToolError, views → form errors with a 4xx, hooks → JSON or 204)."""


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
