"""Policy as data and the guard (§7); built with its own issue."""
