"""Stands, access map and permission levels (§7); built with its own issue."""
