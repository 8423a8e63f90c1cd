"""Receipt photos and PDFs for expenses: checked by what the bytes are, not by their name.

A receipt is typed in by a phone's camera or picked from a laptop, so its name and the
browser's content type say little; the first bytes say what it is, and an image must also
open as one. It is stored under a random name (like printouts), so a receipt's address
cannot be guessed from another's.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image, UnidentifiedImageError

from tournaments.foundation.errors import UserFacingError

from ..models.cashbook import new_receipt_name

MAX_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 40_000_000
KINDS = {  # leading bytes -> (extension, content type)
    b"\xff\xd8\xff": ("jpg", "image/jpeg"),
    b"\x89PNG\r\n\x1a\n": ("png", "image/png"),
    b"%PDF-": ("pdf", "application/pdf"),
}
WRONG_KIND = "A receipt must be a photo (JPEG or PNG) or a PDF."


@dataclass(frozen=True)
class Receipt:
    data: bytes
    extension: str
    content_type: str

    def save(self) -> str:
        """Writes the file under a fresh random name and returns the name."""
        return default_storage.save(new_receipt_name(self.extension), ContentFile(self.data))


def read(upload) -> Receipt:
    """The upload as a receipt, or a UserFacingError that says what is wrong with it."""
    if upload.size > MAX_BYTES:
        raise UserFacingError(
            f"The receipt is {upload.size / 1024 / 1024:.1f} MB; the most is "
            f"{MAX_BYTES // 1024 // 1024} MB.",
            field="receipt",
        )
    data = upload.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise UserFacingError("The receipt is too large.", field="receipt")
    if not data:
        raise UserFacingError("The receipt file is empty.", field="receipt")
    kind = next((k for magic, k in KINDS.items() if data.startswith(magic)), None)
    if kind is None:
        raise UserFacingError(WRONG_KIND, field="receipt")
    extension, content_type = kind
    if extension == "pdf":
        if b"%%EOF" not in data[-1024:]:
            raise UserFacingError("The PDF is incomplete or damaged.", field="receipt")
    else:
        _check_image(data)
    return Receipt(data, extension, content_type)


def _check_image(data: bytes) -> None:
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > MAX_PIXELS:
                raise UserFacingError("The photo is too large in pixels.", field="receipt")
            image.verify()
    except (
        UnidentifiedImageError,
        Image.DecompressionBombError,
        OSError,
        SyntaxError,
        ValueError,
    ) as exc:
        raise UserFacingError("The photo is damaged or not an image.", field="receipt") from exc
