"""Plots as files, drawn from :class:`mathcheck.verdict.Plot` values that numeric checks attach.

matplotlib is imported here, lazily, with the Agg backend (no display needed); files carry no date
or software version, so the same data draws the same bytes with the same matplotlib.
"""

from __future__ import annotations

import re
from pathlib import Path

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
STYLES = ("-", "--", ":", "-.")


def file_name(claim_id: str, plot, suffix: str) -> str:
    """``<claim>-<plot>.<suffix>``, safe for file systems and for LaTeX's ``\\includegraphics``."""
    return _SAFE.sub("-", f"{claim_id}-{plot.name}") + suffix


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def label(s: str) -> str:
    """A title or label with the math written in it (``d_k``, ``‖J‖_F``, ``1e-8``) as matplotlib
    mathtext, so plots set it as the writeups do; the plain string when mathtext cannot parse it."""
    from mathcheck.render.tex import segments

    out = "".join(f"${piece}$" if kind == "math" else piece.replace("$", r"\$") for kind, piece in segments(s))
    if out == s:
        return s
    from matplotlib.mathtext import MathTextParser

    try:
        MathTextParser("path").parse(out)
    except Exception:  # noqa: BLE001 - mathtext knows a subset of TeX: better plain text than no plot
        return s
    return out


def draw(plot, path: Path) -> Path:
    """Draw one Plot to ``path`` (.pdf for LaTeX, .png for Markdown)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    try:
        if plot.kind == "heatmap":
            ((_, rows, _),) = plot.series
            image = ax.imshow(rows, aspect="auto", origin="lower", cmap="RdBu_r", interpolation="nearest")
            fig.colorbar(image, ax=ax)
        else:
            for n, (name, xs, ys) in enumerate(plot.series):  # styles differ: equal curves stay visible
                ax.plot(
                    xs,
                    ys,
                    label=label(name),
                    linestyle=STYLES[n % len(STYLES)],
                    linewidth=2.2 - 0.4 * (n % 3),
                    marker="o" if len(xs) <= 30 else None,
                    markersize=3,
                )
            if len(plot.series) > 1:
                ax.legend(fontsize="small")
            ax.grid(True, alpha=0.3)
        if plot.logx:
            ax.set_xscale("log")
        if plot.logy:
            ax.set_yscale("log")
        ax.set_title(label(plot.title), fontsize="medium")
        ax.set_xlabel(label(plot.xlabel))
        ax.set_ylabel(label(plot.ylabel))
        fig.tight_layout()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        metadata = (
            {"Software": None} if path.suffix == ".png" else {"Creator": None, "Producer": None, "CreationDate": None}
        )
        fig.savefig(path, dpi=110, metadata=metadata)
    finally:
        plt.close(fig)
    return path
