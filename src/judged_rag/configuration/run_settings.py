"""Where each run's settings come from: the operator's, then the caller's (trusted or not)."""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from langchain_core.runnables import RunnableConfig

from judged_rag.configuration.fields import ACCESS, Configuration
from judged_rag.configuration.policy import client_configuration


@dataclass(frozen=True)
class RunSettings:
    """Where each run's `Configuration` comes from: the operator's settings and the caller's.

    Trusted callers (in-process code, a parent graph) may change any setting:
    `configurable` values, then `context=` ones, over `base`. Remote callers
    (`remote=True`: a server's clients) go through `client_configuration`, so
    they cannot reach another model, endpoint, path or store, nor raise a budget.

    Attributes:
        base: The operator's settings (preset and values) under every run's own.
        remote: Treat every run's settings as sent by an untrusted client.
    """

    base: Mapping[str, Any] = field(default_factory=dict)
    remote: bool = False
    cache_size: int = 256
    _cache: OrderedDict[tuple[tuple[str, Any], ...], Configuration] = field(
        default_factory=OrderedDict, compare=False, repr=False
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def __post_init__(self) -> None:
        """Check the operator's own settings once, up front."""
        Configuration.from_mapping(self.base, strict=True)

    def resolve(self, config: RunnableConfig | None, context: Any = None) -> Configuration:
        """The run's configuration from its `config["configurable"]` and `context`.

        Raises:
            SettingsRefused: A remote caller asked for what it may not have.
            ValueError: A trusted caller gave an invalid value.
        """
        if isinstance(context, Configuration) and not self.remote and not self.base:
            return context
        sent = {**((config or {}).get("configurable") or {}), **_context_values(context)}
        sent = {k: v for k, v in sent.items() if k in ACCESS}
        try:
            key = tuple(sorted(sent.items()))
            hash(key)
        except TypeError:  # an unhashable value: resolve without the cache
            return self._build(sent)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        cfg = self._build(sent)
        with self._lock:
            self._cache[key] = cfg
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return cfg

    def _build(self, sent: Mapping[str, Any]) -> Configuration:
        if self.remote:
            return client_configuration(self.base, sent)
        return Configuration.from_mapping({**self.base, **sent})


TRUSTED = RunSettings()
"""In-process callers: every setting from `configurable` and `context=`, no base."""


def _context_values(context: Any) -> dict[str, Any]:
    """The settings a `context=` value names.

    LangGraph builds the `context_schema` dataclass from a dict, filling in defaults:
    a `Configuration` counts as naming the fields that differ from the defaults, and
    the client schema's fields left `None` name nothing.
    """
    if context is None:
        return {}
    if isinstance(context, Mapping):
        return dict(context)
    if isinstance(context, Configuration):
        default = Configuration()
        return {
            f.name: getattr(context, f.name)
            for f in fields(Configuration)
            if getattr(context, f.name) != getattr(default, f.name)
        }
    if dataclasses.is_dataclass(context) and not isinstance(context, type):
        return {k: v for k, v in dataclasses.asdict(context).items() if v is not None}
    raise TypeError(f"context must be a mapping or a settings dataclass, not {type(context)}")
