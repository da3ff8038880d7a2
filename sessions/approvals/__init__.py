"""The owner approves from the board (docs/architecture.md §11 "Approvals"): a tool call
waits for Approve or Deny while its hook is held — the agent CLI's own permission prompt,
or the guard's ask. `services` writes the requests and their outcomes (one write path),
`selectors` reads the pending ones for the Inbox, the card and the Session panel, `room`
holds the hook requests without a thread each, and `views` are the board's two buttons."""
