"""The screenshot file URL (reviews.file_views)."""

from django.urls import path

from reviews import file_views

urlpatterns = [
    path("files/<int:attachment_id>", file_views.attachment_file, name="attachment_file"),
]
