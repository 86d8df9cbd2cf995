"""Validate a form's answer against the server's schema, with messages a person can act on.

jsonschema does the checking (Draft 2020-12) so the studio agrees with what a conforming server
would accept; this module only adds strict checkers for the four formats the elicitation spec
names (jsonschema's own need optional packages for `uri` and `date-time`) and maps each error
to the field it belongs to. Key `""` holds errors about the form as a whole. The checking itself is
in `schema_check`, imported at the first answer checked: importing jsonschema was a tenth of the window's
launch, and no form is checked before a person answers one.

What a server's schema may cost is bounded (schema_limits): `pattern` and `patternProperties` run
on the `regex` engine with a timeout (a pattern that takes too long is reported on its field, not
waited for), and a schema too large or too deep is not validated at all: the form says so.
A `$ref` resolves inside the schema only: one naming another document (a network URI above all) is
never fetched (SEP-2106), as fetching would let any server send the client where it likes; the field
says that it could not be checked.
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
