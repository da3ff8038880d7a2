"""The file checks of attach_file (§1 Screenshots, §9.10): content sniffing, size limits,
path text checks before the disk, allowed folders, file types and the check-then-open swap."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from core.errors import InvalidField
from reviews import files
from tests.reviews import images


def configure(monkeypatch: pytest.MonkeyPatch, **values: Any) -> None:
    """Set relaybay settings for one test (the effective config, not the code under test)."""
    for name, value in values.items():
        monkeypatch.setitem(settings.RELAYBAY._values, name, value)


def refused(path: str, repo: str = "") -> str:
    with pytest.raises(InvalidField) as caught:
        files.read_path(path, repo)
    return str(caught.value)


def write(path: Path, data: bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return str(path)


# --- the content decides -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        (images.png(), "image/png"),
        (images.JPEG, "image/jpeg"),
        (images.GIF, "image/gif"),
        (images.WEBP, "image/webp"),
    ],
)
def test_the_four_formats_are_recognised_by_their_bytes(data: bytes, content_type: str) -> None:
    assert files.image_kind(data).content_type == content_type


def test_a_png_named_svg_is_kept_as_a_png(tmp_path: Path) -> None:
    path = write(tmp_path / "shot.svg", images.png())
    data = files.read_path(path, "")
    assert files.image_kind(data) == files.PNG
    assert files.display_name(path) == "shot.svg"  # display only


def test_an_svg_named_png_is_refused(tmp_path: Path) -> None:
    data = files.read_path(write(tmp_path / "shot.png", images.SVG), "")
    with pytest.raises(InvalidField, match="not a PNG, JPEG, WebP or GIF image"):
        files.image_kind(data)


@pytest.mark.parametrize(
    "data",
    [
        images.HTML,
        images.SVG,
        b"<?xml version='1.0'?><svg/>",
        b"\x89PNG\r\n\x1a\n",  # a PNG signature without IHDR
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIDAT" + b"\x00" * 20,  # the wrong first chunk
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR",  # IHDR cut short
        b"GIF89a",  # no screen descriptor
        b"RIFF\x00\x00\x00\x00WEBP",  # no VP8 chunk
        b"RIFF\x00\x00\x00\x00AVI LIST" + b"\x00" * 12,
        b"%PDF-1.7\n",
        b"",
    ],
)
def test_everything_else_and_truncated_headers_are_refused(data: bytes) -> None:
    assert files.sniff(data) is None


def test_a_gif_polyglot_is_still_a_gif() -> None:
    polyglot = images.GIF + b"<html><script>alert(document.cookie)</script></html>"
    assert files.image_kind(polyglot) == files.GIF


def test_base64_is_decoded_strictly(monkeypatch: pytest.MonkeyPatch) -> None:
    import base64

    assert files.decode_base64(base64.b64encode(images.GIF).decode()) == images.GIF
    with pytest.raises(InvalidField, match="not valid base64"):
        files.decode_base64("R0lGOD!!lhAQABAIAAAP")
    configure(monkeypatch, attachments_max_mb=1)
    big = base64.b64encode(images.png() + b"\x00" * (files.MB + 10)).decode()
    with pytest.raises(InvalidField, match=r"over the limit of 1 MB"):
        files.decode_base64(big)


# --- size ----------------------------------------------------------------------------------


def test_a_file_over_the_limit_is_refused_with_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(monkeypatch, attachments_max_mb=1)
    path = write(tmp_path / "big.png", images.png() + b"\x00" * (files.MB + files.MB // 2))
    message = refused(path)
    assert "The file is 1.5 MB, over the limit of 1 MB (attachments_max_mb)" in message
    ok = write(tmp_path / "ok.png", images.png() + b"\x00" * (files.MB - 200))
    assert len(files.read_path(ok, "")) < files.MB


# --- path text, before the disk ------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "\\\\server\\share\\x.png",
        "//server/share/x.png",
        "\\\\?\\C:\\x.png",
        "\\\\.\\pipe\\x",
        "\\/server/share/x.png",
        "//?/C:/x.png",
        "//server/" + "a" * 5000 + "/x.png",  # os.stat would raise ENAMETOOLONG
    ],
)
def test_share_and_device_paths_are_refused_by_their_text(path: str) -> None:
    # The share message comes from the text check, which runs before realpath and stat:
    # a later step would answer "No file", "outside the allowed folders" or "absolute".
    assert "Network share and device paths" in refused(path)


def test_a_double_slash_path_to_an_accepted_file_is_still_refused(tmp_path: Path) -> None:
    # On POSIX //tmp/…/x.png is the same file as /tmp/…/x.png, which is accepted: only the
    # text check can refuse it, so the disk was never asked.
    path = write(tmp_path / "x.png", images.png())
    assert files.read_path(path, "") == images.png()
    assert "Network share and device paths" in refused("/" + path)


def test_a_share_listed_in_attachment_roots_passes_the_text_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configure(monkeypatch, attachment_roots=["\\\\server\\share"])
    assert "Network share" not in refused("\\\\server\\share\\x.png")
    assert "Network share" in refused("\\\\server\\other\\x.png")
    assert "Network share" in refused("\\\\?\\UNC\\server\\share\\x.png")


def test_a_relative_path_is_refused(tmp_path: Path) -> None:
    assert "path must be absolute" in refused("shot.png")
    assert "path must be absolute" in refused("../shot.png")


# --- the real path -------------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/etc/passwd"), reason="needs a file outside temp")
def test_a_symlink_out_of_the_allowed_folders_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "shot.png"
    link.symlink_to("/etc/passwd")
    assert "outside the allowed folders" in refused(str(link))


@pytest.mark.skipif(not os.path.exists("/etc/passwd"), reason="needs a file outside temp")
def test_dot_dot_escapes_are_refused(tmp_path: Path) -> None:
    escape = str(tmp_path) + "/.." * (len(tmp_path.parts) + 2) + "/etc/passwd"
    assert "outside the allowed folders" in refused(escape)


def test_the_project_repo_and_attachment_roots_are_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "elsewhere"))
    repo = tmp_path / "repo"
    inside = write(repo / "docs" / "shot.png", images.png())
    assert "outside the allowed folders" in refused(inside)
    assert files.read_path(inside, str(repo)) == images.png()
    configure(monkeypatch, attachment_roots=[str(repo)])
    assert files.read_path(inside, "") == images.png()


def test_a_path_inside_the_data_folder_is_refused() -> None:
    home = Path(settings.RELAYBAY.home_path)
    path = write(home / "attachments" / "p" / "p-1" / "stolen.png", images.png())
    assert "inside relaybay's data folder" in refused(path)
    token = write(home / "token-copy.png", images.png())
    assert "inside relaybay's data folder" in refused(token)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    assert "not a regular file" in refused(str(fifo))


def test_a_directory_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "folder.png"
    folder.mkdir()
    assert "not a regular file" in refused(str(folder))
    assert "No file at" in refused(str(tmp_path / "missing.png"))


def test_a_file_swapped_between_check_and_open_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "shot.png", images.png())
    real, checked = files.checked_path(path, "")
    # Between the check and the open, the file is replaced by another one.
    write(tmp_path / "other.png", images.png(shade=9))
    os.replace(tmp_path / "other.png", path)
    with pytest.raises(InvalidField, match="changed while it was being checked"):
        files.read_checked(real, checked, files.file_limit())


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks")
def test_a_symlink_swapped_in_after_the_check_is_not_followed(tmp_path: Path) -> None:
    path = write(tmp_path / "shot.png", images.png())
    real, checked = files.checked_path(path, "")
    os.unlink(path)
    os.symlink(tmp_path / "elsewhere.png", path)
    write(tmp_path / "elsewhere.png", images.png())
    with pytest.raises(InvalidField, match="changed while it was being checked"):
        files.read_checked(real, checked, files.file_limit())
