"""Writeups: prove and refute the claims, draw their plots, render LaTeX or Markdown, compile a PDF.

This module orchestrates; the renderers (:mod:`mathcheck.render.latex`, ``.markdown``, ``.plots``)
print what the verdicts hold and compute nothing.

Regenerate the committed catalog (docs/claims.md, docs/plots/, docs/catalog.pdf) with one command::

    mathcheck writeup --all --docs docs
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = ("pdflatex/latexmk not found. On Debian/Ubuntu: apt-get install --no-install-recommends "
                "texlive-latex-base texlive-latex-recommended texlive-latex-extra latexmk "
                "latex-cjk-common latex-cjk-chinese-arphic-gbsn00lp (or run .ci/system-packages)")
DOCS_COMMAND = "mathcheck writeup --all --docs docs"


@dataclass(frozen=True)
class Item:
    """One claim with what proving it and refuting its mutants found."""

    claim: object
    proved: object  # verdict.ClaimVerdict
    refuted: object  # verdict.RefuteVerdict


def collect(entries, seed: int = 0, prove=None, refute=None) -> list[Item]:
    """Prove and refute every entry with ``seed`` (``prove``/``refute`` default to the engine's)."""
    from mathcheck import engine
    from mathcheck.verify import Options

    prove = prove or (lambda e: engine.prove_entry(e, Options(seed=seed)))
    refute = refute or (lambda e: engine.refute_entry(e, Options(seed=seed)))
    items = []
    for e in entries:
        v = prove(e)
        items.append(Item(v.claim, v, refute(e)))
    return items


def versions(full: bool = True) -> dict:
    """The versions the evidence was produced with; ``full=False`` keeps major.minor (for docs that
    must not change with a patch release)."""
    import sympy
    import torch

    out = {"sympy": sympy.__version__, "torch": torch.__version__}
    if not full:
        out = {k: ".".join(re.split(r"[.+]", v)[:2]) for k, v in out.items()}
    return out


def _plots(item):
    return item.proved.numeric.plots if item.proved.numeric is not None else ()


def draw_figures(items, directory: Path, suffix: str, relative_to: Path, draw: bool = True) -> dict:
    """Draw every item's plots into ``directory`` (``draw=False``: only name the files);
    {claim id: ((path relative to ``relative_to``, title), ...)}."""
    from mathcheck.render import plots

    out = {}
    for it in items:
        if not _plots(it):
            continue
        paths = [(Path(directory) / plots.file_name(it.claim.id, p, suffix), p.title) for p in _plots(it)]
        if draw:
            for (path, _), p in zip(paths, _plots(it)):
                plots.draw(p, path)
        out[it.claim.id] = tuple((Path(os.path.relpath(path, relative_to)).as_posix(), t) for path, t in paths)
    return out


def latex(items, out: Path | None = None, seed: int = 0) -> str:
    """The LaTeX document; with ``out``, plots go to ``<out stem>-plots/`` beside it (as PDF)."""
    from mathcheck.render import latex as rl

    figures = {}
    if out is not None:
        out = Path(out)
        figures = draw_figures(items, out.parent / f"{out.stem}-plots", ".pdf", out.parent)
    return rl.document(items, versions(), figures, seed)


def markdown(items, out: Path | None = None, seed: int = 0, command: str | None = None,
             draw: bool = True) -> str:
    """The Markdown catalog; with ``out``, plots go to ``plots/`` beside it (as PNG; ``draw=False``
    links them without drawing, which is how the staleness test renders)."""
    from mathcheck.render import markdown as rm

    images = {}
    if out is not None:
        out = Path(out)
        images = draw_figures(items, out.parent / "plots", ".png", out.parent, draw)
    return rm.catalog(items, versions(full=False), images, seed, command)


@dataclass(frozen=True)
class Compiled:
    """What compiling a .tex file found. ``ok`` needs a PDF, no error and no undefined reference."""

    pdf: Path | None
    log: str
    errors: tuple[str, ...]
    undefined: tuple[str, ...]
    missing_characters: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.pdf is not None and not self.errors and not self.undefined


def tex_tool() -> list[str] | None:
    """The command that compiles a .tex to PDF here: latexmk if present, else pdflatex, else None."""
    if shutil.which("latexmk") and shutil.which("pdflatex"):
        return ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error"]
    if shutil.which("pdflatex"):
        return ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error"]
    return None


def compile_pdf(tex: Path, timeout: float = 300) -> Compiled:
    """Compile ``tex`` in its directory (pdflatex runs twice without latexmk, for the contents and
    references). Raises FileNotFoundError with :data:`INSTALL_HINT` when no TeX is installed."""
    tool = tex_tool()
    if tool is None:
        raise FileNotFoundError(INSTALL_HINT)
    tex = Path(tex).resolve()
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", FORCE_SOURCE_DATE="1")  # the same PDF from the same input
    runs = 1 if tool[0] == "latexmk" else 2
    for _ in range(runs):
        subprocess.run(tool + [tex.name], cwd=tex.parent, env=env, capture_output=True, timeout=timeout)
    log_path = tex.with_suffix(".log")
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    errors = tuple(line for line in log.splitlines() if line.startswith("!") or re.match(r"^\S+:\d+: ", line))
    undefined = tuple(sorted(set(re.findall(r"(?:Reference|Citation) `([^']+)' .*undefined", log))))
    if "There were undefined references" in log and not undefined:
        undefined = ("(see the log)",)
    missing = tuple(sorted(set(re.findall(r"Missing character: There is no (.+? in font \S+?)!", log))))
    pdf = tex.with_suffix(".pdf")
    return Compiled(pdf if pdf.exists() else None, log, errors, undefined, missing)


def write_docs(items, directory: Path, seed: int = 0) -> tuple[Path, Path | None]:
    """The committed catalog: ``claims.md`` (+ ``plots/*.png``) and ``catalog.pdf`` (compiled in a
    temporary directory; None without TeX). Raises RuntimeError when the PDF does not compile cleanly."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    md = directory / "claims.md"
    for stale in (directory / "plots").glob("*.png"):  # plots of claims that changed or left
        stale.unlink()
    md.write_text(markdown(items, md, seed, DOCS_COMMAND), encoding="utf-8")
    if tex_tool() is None:
        return md, None
    with tempfile.TemporaryDirectory() as tmp:
        tex = Path(tmp) / "catalog.tex"
        tex.write_text(latex(items, tex, seed), encoding="utf-8")
        result = compile_pdf(tex)
        if not result.ok:
            raise RuntimeError("catalog.tex did not compile cleanly: "
                               + "; ".join(result.errors[:5] + result.undefined[:5]))
        pdf = directory / "catalog.pdf"
        shutil.copyfile(result.pdf, pdf)
    return md, pdf
