"""What every plot of the report shares: matplotlib (extra ``eval``), axes, PNG files."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """`matplotlib.pyplot` on the Agg backend (files only, no display)."""
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("plots need matplotlib: pip install matplotlib") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def share_axis(ax: Any) -> None:
    """A share on the y axis (0 to 1, a little room), a light grid and a small legend."""
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def save(plt: Any, fig: Any, path: Path) -> Path:
    """Lay the figure out, write it as a PNG at `path` and free it."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
