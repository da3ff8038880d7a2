"""Where the captured Claude Code traffic lives in this repository (tests/fixtures).

One constant so the hook, MCP and bench code name the recording the same way.
"""

from pathlib import Path

CLAUDE_CODE = Path(__file__).resolve().parents[1] / "fixtures" / "claude-code-2.1.332"
