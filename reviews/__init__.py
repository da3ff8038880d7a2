"""The Owner check review checklist and screenshots (§1); built with its own issue."""
