"""Working rules (§6): the layered rules document, its validation, merge, hash and checks.

A face: schema.py (the keys, the built-in rules, validate_layer: the one module core's
config loader imports, before Django is set up), effective.py (the merge, the hash, the
project override and what the merged document says), check.py (a stage move's unmet
requirements) and text.py (the snapshot's rules line, the rules_get answer). All of it is
plain Python: nothing here may import models.
"""

from core.display import STAGES
from tasks.fields import SIZES
from tasks.rules.check import MoveFacts, check_move, owner_only_message
from tasks.rules.effective import (
    EffectiveRules,
    effective_rules,
    first_line_pattern,
    merge,
    owner_only_stages,
    rules_hash,
    sizes,
    states,
    turn_end_update,
)
from tasks.rules.schema import (
    DEFAULT_GUIDANCE,
    DEFAULT_RULES,
    DEFAULT_UNLESS_SIZE,
    REPORT_FORMAT_KEYS,
    REQUIREMENT_KEYS,
    STATES,
    TOP_KEYS,
    TURN_END_BY_MODE,
    TURN_END_UPDATE,
    RulesError,
    unless_size,
    validate_layer,
)
from tasks.rules.text import render_rules_md, summary_line

__all__ = [
    "DEFAULT_GUIDANCE",
    "DEFAULT_RULES",
    "DEFAULT_UNLESS_SIZE",
    "REPORT_FORMAT_KEYS",
    "REQUIREMENT_KEYS",
    "SIZES",
    "STAGES",
    "STATES",
    "TOP_KEYS",
    "TURN_END_BY_MODE",
    "TURN_END_UPDATE",
    "EffectiveRules",
    "MoveFacts",
    "RulesError",
    "check_move",
    "effective_rules",
    "first_line_pattern",
    "merge",
    "owner_only_message",
    "owner_only_stages",
    "render_rules_md",
    "rules_hash",
    "sizes",
    "states",
    "summary_line",
    "turn_end_update",
    "unless_size",
    "validate_layer",
]
