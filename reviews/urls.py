"""Board URLs of the reviews app (§2 Review tab): the owner's decision on one step."""

from django.urls import path

from reviews import views

urlpatterns = [
    path(
        "p/<str:slug>/t/<str:key>/review/<int:step>/decide",
        views.review_step_decide,
        name="review_step_decide",
    ),
]
