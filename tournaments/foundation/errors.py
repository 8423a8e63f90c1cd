"""Errors a person can fix: views show their message; anything else is a bug."""


class UserFacingError(Exception):
    """Raised by services for a problem the person at the keyboard can fix."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class VersionConflict(UserFacingError):
    """Someone saved a newer version after the form was shown: saving now would overwrite
    what they saved unseen, so the person is shown `version` to build on instead."""

    def __init__(self, message: str, *, version: int) -> None:
        super().__init__(message)
        self.version = version
