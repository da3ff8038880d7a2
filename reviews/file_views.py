"""GET /files/<id>: one stored screenshot (§1 Screenshots, §9.10).

Behind the board cookie or the Bearer token (core.security guards every
non-public path); the outer app adds the §9.7 headers (CSP, …) to every response.
"""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest
from django.views.decorators.http import require_GET

from reviews.models import Attachment
from reviews.storage import file_path


@require_GET
def attachment_file(request: HttpRequest, attachment_id: int) -> FileResponse:
    found = Attachment.objects.select_related("task__project").filter(id=attachment_id).first()
    if found is None:
        raise Http404("No such attachment.")
    try:
        handle = file_path(found).open("rb")
    except OSError:
        raise Http404("The attachment's file is missing.") from None
    response = FileResponse(handle, content_type=found.content_type)
    response["Content-Disposition"] = "inline"
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=3600"
    return response
