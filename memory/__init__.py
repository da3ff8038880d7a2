"""Documents, decisions with history, notes, blocks and search (§8); built with its own issue."""
