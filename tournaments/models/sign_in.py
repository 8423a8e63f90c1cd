from django.db import models


class SignInFailure(models.Model):
    """One wrong password, kept only as long as the sign-in limits look back.

    In the database, not a process's memory, so every gunicorn process counts the same tries.
    The username is stored lower-cased (usernames are unique whatever their case).
    """

    username = models.CharField(max_length=150)
    address = models.CharField(max_length=64, blank=True)
    at = models.DateTimeField(db_index=True)

    class Meta:
        indexes = [
            models.Index(fields=["username", "at"], name="sign_in_failure_username"),
            models.Index(fields=["address", "at"], name="sign_in_failure_address"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.username} from {self.address or '?'}"
