"""Griffe extension of the documentation site: the docstrings' Sphinx roles as code.

mctslab's docstrings are prose with reStructuredText roles (``:class:`~mctslab.Game```,
``:func:`search```, ``:mod:`mctslab.arena```). Rendered as Markdown they would show the
role's name; this extension rewrites each one into a code span of the name as Sphinx would
print it (``~`` keeps the last part only), before mkdocstrings renders the docstring.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

# :role:`target`, :role:`~a.b.c` or :role:`text <target>`, optionally :py:role:.
_ROLE = re.compile(
    r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const|term|ref):`(?P<body>[^`]+)`"
)


def _shown(match: re.Match[str]) -> str:
    body = match["body"]
    explicit = re.fullmatch(r"(?P<text>.+?)\s*<[^>]+>", body)
    if explicit:
        return f"`{explicit['text']}`"
    if body.startswith("~"):
        body = body[1:].rsplit(".", 1)[-1]
    return f"`{body}`"


def rewrite_roles(text: str) -> str:
    """``text`` with every Sphinx role made a Markdown code span."""
    return _ROLE.sub(_shown, text)


class SphinxRoles(griffe.Extension):
    """Rewrites the Sphinx roles of every docstring griffe loads (:func:`rewrite_roles`)."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite the roles of one object's docstring."""
        if obj.docstring is not None:
            obj.docstring.value = rewrite_roles(obj.docstring.value)
