"""Masking: the tokens, codes and client secrets a flow handles never reach a record, a log or a file.

`SecretBook` remembers every secret value the flow has seen; `mask` replaces each occurrence in any
text (a URL, a form body, a header), and `masked_json` blanks the fields that carry secrets by name.
"""

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode

from ..trace.redaction import DEFAULT, MASK, SECRET_FIELDS, Redaction

__all__ = ["MASK", "SECRET_FIELDS", "SecretBook", "masked_headers"]
_NAMES = "|".join(sorted(SECRET_FIELDS))
_FIELD_IN_QUERY = re.compile(r"((?:^|(?<=[?&#\s\"']))(?:" + _NAMES + r")=)[^&#\s\"']+")
#: Secrets shorter than this are not substituted in free text (they would blank ordinary words).
MIN_SECRET = 6


class SecretBook:
    def __init__(self) -> None:
        self._values: set[str] = set()

    def add(self, *values: str | None) -> None:
        for value in values:
            if value and len(value) >= MIN_SECRET:
                self._values.add(value)

    def mask(self, text: str) -> str:
        """Known secrets blanked anywhere, and secret fields of query strings and forms (`code=...`) by name,
        so a value is masked even in the response that first carries it (a redirect's Location)."""
        for value in sorted(self._values, key=len, reverse=True):
            text = text.replace(value, MASK)
        return _FIELD_IN_QUERY.sub(lambda m: m.group(1) + MASK, text)

    def masked_json(self, value: Any) -> Any:
        """A copy of a JSON value with every secret field blanked and known secrets masked in strings."""
        if isinstance(value, dict):
            return {k: (MASK if k in SECRET_FIELDS and v not in (None, "") else self.masked_json(v))
                    for k, v in value.items()}
        if isinstance(value, list):
            return [self.masked_json(v) for v in value]
        if isinstance(value, str):
            return self.mask(value)
        return value

    def masked_body(self, text: str) -> Any:
        """A recorded body: parsed JSON (masked by field), else the masked text."""
        try:
            return self.masked_json(json.loads(text))
        except ValueError:
            pass
        if "=" in text and " " not in text.strip():  # a form body: blank the secret fields by name
            pairs = parse_qsl(text, keep_blank_values=True)
            if pairs:
                return self.mask(urlencode([(k, MASK if k in SECRET_FIELDS and v else v) for k, v in pairs],
                                           safe="*"))
        return self.mask(text)


def masked_headers(headers: dict[str, str], book: SecretBook, redaction: Redaction = DEFAULT) -> dict[str, str]:
    """Headers masked by the one redaction profile (credential headers by name), then every secret the
    flow knows blanked in what is left (a token echoed in another header)."""
    return {k: book.mask(v) for k, v in redaction.headers(headers).items()}
