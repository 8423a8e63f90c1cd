"""Forms of the organiser's stage page: they only check input; services decide and save.

Player choices accept any registered player of the tournament: whether that player may be
the pod's hostess, take a ghost seat or leave is the service's decision, and its message
says why not. The page renders its own short lists (the pod's players, the players without
a seat) from data it has already loaded, so it needs no query per pod.
"""

from django import forms
from django.contrib.auth import get_user_model

from ..foundation.text import whole_number
from ..models import Player, Role

# Seeds are stored in a signed 64-bit column; draw codes have 62 bits.
MAX_SEED = 2**63 - 1


def registered_players(tournament):
    return tournament.players.filter(status=Player.Status.REGISTERED)


def staff_accounts(tournament):
    """Accounts holding the staff role at the tournament, by username."""
    return (
        get_user_model()
        .objects.filter(tournament_roles__tournament=tournament, tournament_roles__role=Role.STAFF)
        .distinct()
        .order_by("username")
    )


class DrawForm(forms.Form):
    """No seed here: the draw code comes from the tournament's secret (`services.draws`)."""

    spread_groups = forms.BooleanField(
        label="Spread groups over pods",
        required=False,
        initial=True,
        help_text="Players with the same group name go to different pods where possible.",
    )
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)


class ReplayForm(forms.Form):
    """A draw code to replay the stored draw with; it is compared, never saved."""

    code = forms.IntegerField(
        label="Draw code",
        required=False,
        min_value=0,
        max_value=MAX_SEED,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )


class PlayerChoiceForm(forms.Form):
    """One registered player of the tournament, picked from a list the page narrows."""

    player = forms.ModelChoiceField(queryset=Player.objects.none(), empty_label="— pick —")

    def __init__(self, *args, tournament, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player"].queryset = registered_players(tournament)


class HostessForm(PlayerChoiceForm):
    pass


class LateArrivalForm(PlayerChoiceForm):
    pod = forms.ModelChoiceField(
        queryset=None,
        required=False,
        empty_label="First pod with a ghost seat",
    )

    def __init__(self, *args, stage, **kwargs):
        super().__init__(*args, tournament=stage.tournament, **kwargs)
        self.fields["pod"].queryset = stage.pods.order_by("number")


class LeaveForm(PlayerChoiceForm):
    pass


class AccountsField(forms.ModelMultipleChoiceField):
    """Refuses anything but an id of up to 18 digits as an unknown choice before it reaches
    the database. SQLite (the venue laptop's) cannot bind an id past a signed 64-bit integer
    in the IN list the field queries, and the page answered 500; Django guards an exact
    lookup, not `__in`."""

    def _check_values(self, value):
        for pk in value:
            if whole_number(str(pk)) is None:  # up to 18 digits: inside the column's range
                raise forms.ValidationError(
                    self.error_messages["invalid_choice"],
                    code="invalid_choice",
                    params={"value": pk},
                )
        return super()._check_values(value)


class StaffForm(forms.Form):
    staff = AccountsField(queryset=None, required=False, widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, tournament, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["staff"].queryset = staff_accounts(tournament)


class CloseRoundForm(forms.Form):
    """Names the round the organiser saw open, so a double click cannot close another."""

    round = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class EndStageForm(forms.Form):
    reason = forms.CharField(
        label="Why does the stage end early?",
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": "Say why the stage ends early."},
        help_text="For example: the hall must close at ten. Rounds not yet played are kept "
        "as not played; the cards and standings count the rounds played.",
    )
