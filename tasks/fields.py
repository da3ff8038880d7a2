"""Placeholder: the editable task field names (§1 Task); the lead replaces this module."""

EDITABLE_FIELD_NAMES = (
    "title",
    "stage_note",
    "waiting_on",
    "next_step",
    "branch",
    "document_path",
    "description",
    "progress",
    "priority",
    "size",
    "tracker_ref",
    "tracker_name",
    "tracker_url",
    "tracker_logged",
)
