"""Qt-free logic behind the studio's answer forms: schema -> fields, validation, results, URL checks.

The widgets in `mrtr_studio.ui.forms` render what these modules compute; the headless client
uses them directly (`auto_responses`) to answer a round without a person.
"""

from .auto import auto_response, auto_responses
from .elicit import accept, cancel, decline, default_content, default_result
from .roots import list_roots_result, path_to_uri, root_problem
from .sampling import echo_reply, summarize, text_reply
from .schema_fields import FieldSpec, FormSpec, Option, parse_schema
from .url_safety import UrlReport, analyse_url
from .validation import FORM_KEY, validate_content

__all__ = [
    "FORM_KEY",
    "FieldSpec",
    "FormSpec",
    "Option",
    "UrlReport",
    "accept",
    "analyse_url",
    "auto_response",
    "auto_responses",
    "cancel",
    "decline",
    "default_content",
    "default_result",
    "echo_reply",
    "list_roots_result",
    "parse_schema",
    "path_to_uri",
    "root_problem",
    "summarize",
    "text_reply",
    "validate_content",
]
