"""Settings → Policy (§7): the page, its live sections and its forms (policy/views.py)."""

from django.urls import path

from policy import views

urlpatterns = [
    path("settings/policy", views.policy, name="policy"),
    path(
        "settings/policy/proposals",
        views.policy_part,
        {"part": "proposals"},
        name="policy_proposals",
    ),
    path(
        "settings/policy/effective",
        views.policy_part,
        {"part": "effective"},
        name="policy_effective",
    ),
    path("settings/policy/layers", views.policy_part, {"part": "layers"}, name="policy_layers"),
    path("settings/policy/preset", views.policy_preset, name="policy_preset"),
    path("settings/policy/validate", views.policy_validate, name="policy_validate"),
    path("settings/policy/save", views.policy_save, name="policy_save"),
    path(
        "settings/policy/proposals/<int:proposal>/accept",
        views.policy_proposal_accept,
        name="policy_proposal_accept",
    ),
    path(
        "settings/policy/proposals/<int:proposal>/reject",
        views.policy_proposal_reject,
        name="policy_proposal_reject",
    ),
]
