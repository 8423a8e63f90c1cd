from django import forms
from django.core.validators import MinValueValidator
from django.db.models import Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.text import slugify

from scoring.rules import RuleError

from ..models import RulePreset, Tournament
from ..services.tournaments import CUT_FIELDS, settings_refusals


def preset_with_sets(preset: RulePreset) -> str:
    """A preset's name and its qualifying sets ("Classic Bunco · 2 to 4 qualifying sets"), in
    the words of the refusal `check_qualifying_sets` gives: the choice and the hint beside the
    sets field say what the form will accept."""
    return f"{preset.label} · {preset.to_ruleset().qualifying_sets_text}"


class TournamentForm(forms.ModelForm):
    class Meta:
        model = Tournament
        fields = [
            "name",
            "charity",
            "date",
            "venue",
            "entry_fee",
            "capacity",
            "registration_closes_at",
            "party_size_max",
            "party_fit",
            "offer_hours",
            "qualifying_sets",
            "preset",
            "wins_places",
            "buncos_places",
            "top_both",
            "semi_final_sets",
            "prize_share_percent",
        ]
        widgets = {
            "date": forms.DateInput(attrs={"type": "date"}),
            "registration_closes_at": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
        }
        labels = {
            "preset": "Rule preset",
            "entry_fee": "Entry fee ($)",
            "wins_places": "Advance for most wins, per pod",
            "buncos_places": "Advance for most buncos, per pod",
            "top_both": "When one player tops both lists",
            "semi_final_sets": "Semi-final sets",
            "prize_share_percent": "Share of the entry fees for prizes (%)",
        }
        help_texts = {
            # Completed in __init__ with each offered preset's own numbers.
            "qualifying_sets": "Sets played in the qualifying stage (usually 3).",
            "wins_places": "Players with the most wins in each pod who go to the semi-final "
            "(usually 1; 0 for none). Ties for the last place are rolled off.",
            "buncos_places": "Players with the most buncos in each pod who go to the "
            "semi-final (usually 1; 0 for none).",
            "top_both": "If the player with the most wins also has the most buncos.",
            "semi_final_sets": "Sets played in the semi-final (usually 1). Its most wins and "
            "most buncos take the first two seats at the final table.",
            "prize_share_percent": "Optional. The prize list warns when its total is more "
            "than this share of the entry fees taken (left empty: more than all of them).",
        }

    def use_model_floors(self) -> None:
        """A positive whole-number field checks `>= 0` before the model's own floor: -3 seats
        said "at least 0" and 0 then said "at least 4". One floor, the model's, says it."""
        for name, field in self.fields.items():
            if not isinstance(field, forms.IntegerField):
                continue
            floors = [
                v.limit_value
                for v in Tournament._meta.get_field(name).validators
                if isinstance(v, MinValueValidator)
            ]
            if floors and max(floors) > (field.min_value or 0):
                field.min_value = max(floors)
                field.widget.attrs["min"] = field.min_value
                field.validators = [
                    v for v in field.validators if not isinstance(v, MinValueValidator)
                ] + [MinValueValidator(field.min_value)]

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        presets = RulePreset.objects.filter(builtin=True)
        if user is not None:
            presets = RulePreset.objects.filter(Q(builtin=True) | Q(owner=user))
        if self.instance.pk:
            presets = presets | RulePreset.objects.filter(pk=self.instance.preset_id)
        self.fields["preset"].queryset = presets.distinct()
        self.fields["preset"].label_from_instance = preset_with_sets
        self.fields["qualifying_sets"].help_text += " " + self.sets_per_preset()
        self.use_model_floors()
        if not self.instance.pk:  # the date picker offers no past night (clean_date says why)
            self.fields["date"].widget.attrs["min"] = timezone.localdate().isoformat()
        # Left out (an older form, a script), the advancement settings keep their defaults.
        for name in CUT_FIELDS + (
            "semi_final_sets",
            "party_size_max",
            "party_fit",
            "offer_hours",
        ):
            self.fields[name].required = False

    def sets_per_preset(self) -> str:
        """Every offered preset's qualifying sets beside the field, so an organiser learns the
        limits before choosing rather than from the refusal in `clean`."""
        limits = "; ".join(preset_with_sets(p) for p in self.fields["preset"].queryset)
        return f"Each rule preset allows: {limits}." if limits else ""

    def _default(self, name):
        value = self.cleaned_data.get(name)
        if value in (None, ""):
            return getattr(self.instance, name)  # the saved value, or the model's default
        return value

    def clean_wins_places(self):
        return self._default("wins_places")

    def clean_buncos_places(self):
        return self._default("buncos_places")

    def clean_top_both(self):
        return self._default("top_both")

    def clean_semi_final_sets(self):
        return self._default("semi_final_sets")

    def clean_prize_share_percent(self):
        # Left out by an older form or a script, the share stays as it was.
        if self.add_prefix("prize_share_percent") not in self.data:
            return self.instance.prize_share_percent
        return self.cleaned_data.get("prize_share_percent")

    def clean_party_size_max(self):
        return self._default("party_size_max")

    def clean_party_fit(self):
        return self._default("party_fit")

    def clean_offer_hours(self):
        return self._default("offer_hours")

    def clean_date(self):
        """A new tournament is for a night to come: a past date is almost always a slip of
        the year, and would file the event among the finished ones. An existing one keeps
        its date, past or not."""
        day = self.cleaned_data["date"]
        if not self.instance.pk and day < timezone.localdate():
            raise forms.ValidationError(
                f"{date_format(day, 'l j F Y')} has passed: pick today or a later date."
            )
        return day

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not slugify(name):
            raise forms.ValidationError("The name needs at least one letter or digit.")
        return name

    def clean(self):
        data = super().clean()
        wins, buncos = data.get("wins_places"), data.get("buncos_places")
        if wins == 0 and buncos == 0:
            self.add_error("buncos_places", "At least one player per pod must advance.")
        preset, sets = data.get("preset"), data.get("qualifying_sets")
        if preset is not None and sets is not None:
            try:
                preset.to_ruleset().check_qualifying_sets(sets)
            except RuleError as exc:
                self.add_error("qualifying_sets", str(exc))
        if self.instance.pk:
            saved = Tournament.objects.get(pk=self.instance.pk)
            capacity = data.get("capacity") or saved.capacity
            for name, message in settings_refusals(saved, self.changed_data, capacity).items():
                if name not in self.errors:
                    self.add_error(name, message)
        return data


class PresetForm(forms.ModelForm):
    class Meta:
        model = RulePreset
        # Every rule the engine knows, so a new RuleSet field can't be forgotten here.
        fields = ["label", "description", *RulePreset.RULE_FIELDS]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}


class CopyPresetForm(forms.Form):
    label = forms.CharField(max_length=100, label="Name of your copy")
