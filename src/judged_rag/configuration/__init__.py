"""A run's settings, importable from here, each concern in a module of its own.

- `fields`: `Configuration`, one dataclass with a description and an access on every
  field, and `get_configuration`;
- `presets`: named sets of settings;
- `measured`: values measured on the benchmarks that unset settings fall back to;
- `policy`: what a remote client may set (`client_configuration`, `ClientSettings`);
- `run_settings`: each run's settings from the operator's and the caller's (`RunSettings`).
"""

from judged_rag.configuration.fields import (
    ACCESS,
    STRATEGIES,
    Access,
    Configuration,
    Grade,
    Strategy,
    WebBackend,
    get_configuration,
)
from judged_rag.configuration.measured import (
    CHUNKRAG_FLOOR,
    JUDGE_SIMILARITY_WEIGHTS,
    JUDGE_THRESHOLDS,
    SRA_T_M,
    T_A_MEASURED,
    T_M_MEASURED,
)
from judged_rag.configuration.policy import (
    CLIENT_SETTINGS,
    NO_LIMIT_ZERO,
    ClientSettings,
    SettingsRefused,
    client_configuration,
)
from judged_rag.configuration.presets import PRESETS, PresetName
from judged_rag.configuration.run_settings import TRUSTED, RunSettings

__all__ = [
    "ACCESS",
    "CHUNKRAG_FLOOR",
    "CLIENT_SETTINGS",
    "JUDGE_SIMILARITY_WEIGHTS",
    "JUDGE_THRESHOLDS",
    "NO_LIMIT_ZERO",
    "PRESETS",
    "SRA_T_M",
    "STRATEGIES",
    "TRUSTED",
    "T_A_MEASURED",
    "T_M_MEASURED",
    "Access",
    "ClientSettings",
    "Configuration",
    "Grade",
    "PresetName",
    "RunSettings",
    "SettingsRefused",
    "Strategy",
    "WebBackend",
    "client_configuration",
    "get_configuration",
]
