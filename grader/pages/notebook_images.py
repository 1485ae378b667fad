"""Images a notebook's markdown shows, from files next to it (``![](jupyter.png)``) or from the
cell's attachments (``![](attachment:pasted.png)``), inlined into the page as ``data:`` URLs: the
pages load nothing (their CSP allows only ``img-src data:``), so a file reference would show
nothing.

The folder is the submission's, so every file is untrusted: only a plain relative name inside the
folder is read (no link anywhere on its path, no ``..``, no URL), only a regular file of at most
``max_bytes``, and only when Pillow reads it as a PNG, JPEG or GIF of at most
:data:`MAX_PIXELS` pixels; its type on the page is the one Pillow found, never the file's
extension. An attachment is held to the same rules. Anything else keeps its plain reference,
which the sanitizer then removes (the alt text stays).
"""
from __future__ import annotations

import base64
import io
import os
import stat
import warnings
from dataclasses import dataclass

# Formats Pillow may recognise, and the type each gets in its data: URL.
IMAGE_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif"}
# A bound on the pixels a browser decodes for one image (a small file can declare a huge one).
MAX_PIXELS = 25_000_000


@dataclass(frozen=True)
class NotebookImages:
    """The image files of one notebook's folder that its page may show.

    folder: the notebook's folder (absolute); max_bytes: the largest file inlined, in bytes.
    """

    folder: str
    max_bytes: int

    def data_url(self, src: str) -> str | None:
        """``src`` (as written in the markdown) as a ``data:image/...;base64,`` URL, or None when
        it is not a safe, real image file of this folder within the limits."""
        path = self._plain_path(src)
        if path is None:
            return None
        content = self._read(path)
        return None if content is None else image_data_url(content)

    def attachment_data_url(self, attachment) -> str | None:
        """A cell attachment (``{mime type: base64 text}``) as a ``data:`` URL of the first of its
        forms that is a real image within the limits, or None."""
        if not isinstance(attachment, dict):
            return None
        for encoded in attachment.values():
            if not isinstance(encoded, str) or len(encoded) > (self.max_bytes + 2) // 3 * 4 + 64:
                continue
            try:
                content = base64.b64decode("".join(encoded.split()), validate=True)
            except ValueError:
                continue
            url = image_data_url(content) if len(content) <= self.max_bytes else None
            if url is not None:
                return url
        return None

    def _plain_path(self, src: str) -> str | None:
        """The file ``src`` names inside the folder, if it is a plain relative name whose every
        part is a real folder or file of the folder (no link, no ``..``)."""
        if not src or ":" in src or src.startswith(("/", "\\")) or any(c in src for c in "?#\\\0"):
            return None
        parts = src.split("/")
        if any(part in ("", ".", "..") for part in parts):
            return None
        folder = os.path.realpath(self.folder)
        path = os.path.join(folder, *parts)
        return path if os.path.realpath(path) == path else None

    def _read(self, path: str) -> bytes | None:
        """The bytes of the regular file at ``path``, or None when it is not one or is larger than
        ``max_bytes``."""
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return None
        with os.fdopen(descriptor, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > self.max_bytes:
                return None
            content = handle.read(self.max_bytes + 1)
        return content if len(content) <= self.max_bytes else None


def image_data_url(content: bytes) -> str | None:
    """``content`` as a ``data:`` URL of the type Pillow found in it, or None if it is not an image."""
    image_type = image_type_of(content)
    if image_type is None:
        return None
    return f"data:{image_type};base64,{base64.b64encode(content).decode('ascii')}"


def image_type_of(content: bytes) -> str | None:
    """The MIME type of ``content`` if Pillow reads it as a whole PNG, JPEG or GIF of at most
    :data:`MAX_PIXELS` pixels, else None."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # refused below anyway
            image = Image.open(io.BytesIO(content), formats=tuple(IMAGE_TYPES))
        with image:
            image_type = IMAGE_TYPES.get(image.format)
            width, height = image.size
            image.verify()  # the file's structure (PNG chunks and their checksums, ...)
    except Exception:  # noqa: BLE001 (Pillow raises many kinds on a file that is not an image)
        return None
    return image_type if width * height <= MAX_PIXELS else None
