"""Board URLs of the reviews app (§2 Review tab): the owner's decision on one step,
the removal of a screenshot and the Ctrl+V paste of one into a step."""

from django.urls import path

from reviews import views

urlpatterns = [
    path(
        "p/<str:slug>/t/<str:key>/review/<int:step>/decide",
        views.review_step_decide,
        name="review_step_decide",
    ),
    path(
        "p/<str:slug>/t/<str:key>/review/<int:step>/paste",
        views.review_step_paste,
        name="review_step_paste",
    ),
    path(
        "p/<str:slug>/t/<str:key>/review/shot/<int:attachment>/remove",
        views.review_shot_remove,
        name="review_shot_remove",
    ),
]
