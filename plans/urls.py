"""Board URLs of the plans app (§2 Plan tab): the Accept plan button."""

from django.urls import path

from plans import views

urlpatterns = [
    path("p/<str:slug>/t/<str:key>/plan/accept", views.plan_accept, name="plan_accept"),
]
