"""Query parameters as pysolr sends them: ``urlencode(params, doseq=True)`` semantics (a
list or tuple repeats the parameter, anything else is ``str(value)``, so ``True`` is
``"True"``)."""

from __future__ import annotations

from typing import Any, List, Mapping, Tuple

Params = List[Tuple[str, str]]


def encode(params: Mapping[str, Any]) -> Params:
    """The parameters as ``(name, value)`` pairs, in order."""
    out: Params = []
    for name, value in params.items():
        if isinstance(value, (str, bytes)):
            out.append((name, value.decode() if isinstance(value, bytes) else value))
        elif isinstance(value, (list, tuple, set)):
            out.extend((name, str(v)) for v in value)
        else:
            out.append((name, str(value)))
    return out


def flag(value: Any) -> str:
    """``true`` or ``false``, the way pysolr writes update flags."""
    return str(bool(value)).lower()
