"""/session-check: what app.js asks after its live connection fails (signed in or not)."""

from __future__ import annotations

import pytest
from django.test import Client

from core import tokens
from core.security import COOKIE_NAME, current_token
from tests.support.board import signed_in_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> Client:
    return signed_in_client()


def test_signed_in_it_answers_204_with_nothing_to_cache(client):
    response = client.get("/session-check")
    assert response.status_code == 204
    assert response.content == b""
    assert response["Cache-Control"] == "no-store"
    assert client.head("/session-check").status_code == 204


def test_signed_out_it_redirects_to_sign_in_like_every_board_page():
    response = Client().get("/session-check")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=/session-check"


def test_a_cookie_of_another_token_is_signed_out():
    c = Client()
    c.cookies[COOKIE_NAME] = tokens.cookie_value("not-" + current_token())
    response = c.get("/session-check")
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=")


def test_the_bearer_token_counts_as_signed_in():
    response = Client().get("/session-check", HTTP_AUTHORIZATION=f"Bearer {current_token()}")
    assert response.status_code == 204


def test_it_only_reads(client):
    csrf = tokens.csrf_token(current_token())
    response = client.post(
        "/session-check", HTTP_SEC_FETCH_SITE="same-origin", HTTP_X_RELAYBAY_CSRF=csrf
    )
    assert response.status_code == 405
    assert Client().post("/session-check").status_code == 401
