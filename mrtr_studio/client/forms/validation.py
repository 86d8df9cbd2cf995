"""Validate a form's answer against the server's schema, with messages a person can act on: the
entry point. The checking itself (jsonschema, the bounded patterns, local `$ref`s only, the messages)
is in `schema_check`, imported at the first answer checked: importing jsonschema was a tenth of the
window's launch, and no form is checked before a person answers one.
"""

from typing import Any

from .schema_fields import FORM_KEY
from .schema_limits import schema_size_problem

__all__ = ["FORM_KEY", "validate_content"]


def validate_content(schema: Any, content: Any) -> dict[str, list[str]]:
    """Errors by field key (FORM_KEY for the whole form); an empty dict means the answer may be sent.

    A schema too large to render is not checked (an empty dict): the form shows it as raw JSON and
    says that the answer goes unchecked, rather than blocking the answer for ever.
    """
    if schema_size_problem(schema):
        return {}
    from .schema_check import check_content

    return check_content(schema, content)
