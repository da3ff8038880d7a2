"""The base app: projects, tasks, reports, decisions and the event log."""
