"""What a remote client may set: an allowlist declared on each field, and budgets as ceilings.

Both servers and the served graph (`build_graph(remote=True)`) resolve a client's
settings here, under the operator's: `client` settings within their ranges, `ceiling`
ones lowered only, `research` ones only through a preset, `operator` ones never.
`ClientSettings` is the served graph's context schema: the form a client sees.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import field, fields
from typing import Any

from judged_rag.configuration.fields import ACCESS, HINTS, TYPES, Configuration, coerce, has_type
from judged_rag.configuration.presets import PRESETS

CLIENT_SETTINGS: frozenset[str] = frozenset(
    k for k, v in ACCESS.items() if v in ("client", "ceiling")
)
"""Settings a remote client may send: the knobs a user tunes, and budgets it may only lower."""
NO_LIMIT_ZERO: frozenset[str] = frozenset({"max_tokens", "max_seconds"})
"""Budgets where 0 means "no limit" (for the operator only)."""


class SettingsRefused(ValueError):
    """A remote client asked for a setting the server does not let it change."""


def client_configuration(operator: Mapping[str, Any], sent: Mapping[str, Any]) -> Configuration:
    """The configuration of a run that a remote client asked for, under the operator's.

    The operator's settings (preset and values) come first. The client may change the
    `client` settings and lower (never raise) the `ceiling` ones; naming an `operator`
    setting is refused whatever its value (the served forms list only the client's
    settings, and an accepted echo would confirm a guess). A client's preset changes
    the settings it lists, except those the operator set explicitly; its budgets are
    cut to the operator's ceilings.

    Args:
        operator: The operator's settings, as for `Configuration.from_mapping`.
        sent: What the client sent; keys that are not settings (LangGraph's own
            `configurable` keys such as `thread_id`) and `None` values are ignored.

    Raises:
        SettingsRefused: A setting is the operator's (named at all), a budget is above
            the operator's, or a value is invalid (the message names each one).
    """
    base = Configuration.from_mapping(operator, strict=True)
    values = {f.name: getattr(base, f.name) for f in fields(Configuration)}
    requested = {k: v for k, v in sent.items() if k in ACCESS and v is not None}
    problems: list[str] = []
    preset = requested.pop("preset", None)
    if preset is not None:
        if preset not in PRESETS:
            problems.append(f"preset={preset!r} is not one of {list(PRESETS)}")
        else:
            values["preset"] = preset
            for name, value in PRESETS[preset].items():
                if name not in operator:
                    values[name] = _within_ceiling(name, value, values[name], clamp=True)
    for name, raw in requested.items():
        try:
            value = coerce(Configuration, name, raw)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        limit = getattr(base, name)
        if ACCESS[name] == "operator":
            # Refused whatever the value: accepting the server's own value would tell a
            # client which guess was right (a model name, a path, an endpoint).
            problems.append(f"{name} is fixed by the server")
            continue
        if ACCESS[name] == "research":
            problems.append(f"{name} is set by the server's operator (a preset may change it)")
            continue
        over = has_type(value, TYPES[name]) and (
            _within_ceiling(name, value, limit, clamp=False) is None
        )
        if over:  # a wrong type is left to the validation below
            problems.append(f"{name}={value!r} is above the server's limit ({limit!r})")
            continue
        values[name] = value
    if problems:
        raise SettingsRefused("refused setting(s): " + "; ".join(problems))
    try:
        return Configuration(**values)
    except ValueError as exc:
        raise SettingsRefused(str(exc)) from None


def _within_ceiling(name: str, value: Any, limit: Any, *, clamp: bool) -> Any:
    """`value` if the operator's `limit` allows it; else the limit (`clamp`) or None."""
    if ACCESS[name] != "ceiling":
        return value
    unlimited = name in NO_LIMIT_ZERO and limit == 0
    if unlimited or (value <= limit and not (name in NO_LIMIT_ZERO and value == 0)):
        return value
    return limit if clamp else None


def _client_field(name: str) -> tuple[str, Any, Any]:
    meta = next(f for f in fields(Configuration) if f.name == name).metadata
    default = getattr(Configuration(), name)
    limit = " (a budget: it may only be lowered)" if ACCESS[name] == "ceiling" else ""
    shown = "unset (the step's own value)" if default is None else repr(default)
    description = f"{meta['description']}{limit} Server default: {shown}."
    return name, HINTS[name] | None, field(default=None, metadata={"description": description})


ClientSettings: type = dataclasses.make_dataclass(
    "ClientSettings",
    [_client_field(f.name) for f in fields(Configuration) if f.name in CLIENT_SETTINGS],
    kw_only=True,
)
ClientSettings.__doc__ = (
    "The settings a remote client may send (the context schema of a served graph); "
    "unset ones keep the server's value."
)
