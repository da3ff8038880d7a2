"""Plans with checkpoints (§1 Plan and checkpoints); built with its own issue."""
