"""The agent CLIs relaybay works with, one package each (docs/architecture.md "An agent is a
package"): agents/<agent>/hooks.py (its hook adapter: parse, render, its quirks and its
capabilities, as SPEC) and agents/<agent>/tools.py (its tool table). agents/registry.py's
AGENTS is the one list: adding an agent CLI is its package, its fixtures and tests, and one
line there. The `agents` app registers them with the hook room when Django starts."""
