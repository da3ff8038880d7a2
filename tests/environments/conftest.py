"""Environment tests read policies: each gets its own policy.json, as the policy tests do."""

from tests.policy.conftest import policy_file  # noqa: F401  (an autouse fixture)
