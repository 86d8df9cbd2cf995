"""Answer forms: schema-generated elicitation forms, URL consent, sampling and roots pages, the round dialog.

Entry points for the rest of the GUI:
- `InputRoundDialog(input_requests, server_name=..., roots=[...])` with `submitted(dict)` /
  `cancelled()`, or `open_input_round(...)` / `await ask_input_round(...)`;
- `ArgumentsForm(input_schema)` for a tool's arguments;
- `RootsEditor(roots)` for the roots settings.
"""

from .arguments_form import ArgumentsForm
from .elicitation_page import ElicitationPage
from .input_round_dialog import InputRoundDialog, ask_input_round, open_input_round
from .roots_page import RootsEditor, RootsPage
from .sampling_page import SamplingPage
from .schema_form import SchemaForm
from .url_consent import UrlConsentPage

__all__ = [
    "ArgumentsForm",
    "ElicitationPage",
    "InputRoundDialog",
    "RootsEditor",
    "RootsPage",
    "SamplingPage",
    "SchemaForm",
    "UrlConsentPage",
    "ask_input_round",
    "open_input_round",
]
