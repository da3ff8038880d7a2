"""Agent sessions: desktop, named and hook sessions, bindings and aliases (§1, §4)."""
