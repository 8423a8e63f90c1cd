from django.db import models


class ChangeCounter(models.Model):
    """How many times what the room sees of a tournament has changed: the board, the seat
    finder, round progress, a pod's next seats. Polls compare it instead of the pages, so an
    unchanged room costs one read (tournaments/foundation/changes.py bumps it, http_cache.py
    answers from it). Its own row, not a column of the tournament: bumping it then locks
    nothing another service waits for (locks.py), and saving a tournament form can never
    write an old count back."""

    tournament = models.OneToOneField(
        "Tournament", on_delete=models.CASCADE, related_name="change_counter"
    )
    count = models.PositiveBigIntegerField(default=0)
    # The count at the last change not confined to single pods: a pod's page, which shows
    # nothing of the other pods, is unchanged while this and its own_changes are.
    whole_room = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.count}"
