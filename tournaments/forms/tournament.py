from django import forms
from django.db.models import Q
from django.utils.text import slugify

from ..models import RulePreset, Tournament


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
            "qualifying_sets",
            "preset",
        ]
        widgets = {"date": forms.DateInput(attrs={"type": "date"})}
        labels = {"preset": "Rule preset", "entry_fee": "Entry fee ($)"}
        help_texts = {"qualifying_sets": "Sets played in the qualifying stage (usually 3)."}

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        presets = RulePreset.objects.filter(builtin=True)
        if user is not None:
            presets = RulePreset.objects.filter(Q(builtin=True) | Q(owner=user))
        if self.instance.pk:
            presets = presets | RulePreset.objects.filter(pk=self.instance.preset_id)
        self.fields["preset"].queryset = presets.distinct()

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not slugify(name):
            raise forms.ValidationError("The name needs at least one letter or digit.")
        return name


class PresetForm(forms.ModelForm):
    class Meta:
        model = RulePreset
        # Every rule the engine knows, so a new RuleSet field can't be forgotten here.
        fields = ["label", "description", *RulePreset.RULE_FIELDS]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}


class CopyPresetForm(forms.Form):
    label = forms.CharField(max_length=100, label="Name of your copy")
