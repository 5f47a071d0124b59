"""Writeups: prove and refute the claims, draw their plots, render LaTeX or Markdown, compile a PDF.

This module orchestrates; the renderers (:mod:`mathcheck.render.latex`, ``.markdown``, ``.plots``)
print what the verdicts hold and compute nothing.

Regenerate the committed catalog (docs/claims.md, docs/plots/, docs/catalog.pdf) with one command::

    mathcheck writeup --all --docs docs

Nothing is redone that need not be: verdicts come from the proof cache, plots from a plot cache
(keyed by their data), files are written only when their content changes, and a PDF is compiled
only when the digest of its .tex and plots (stamped into the PDF) changed — pdflatex then runs
once, and again only while the table of contents or the references still move.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

DOCS_COMMAND = "mathcheck writeup --all --docs docs"
SYSTEM_PACKAGES = ".ci/system-packages"

# What compiling a writeup needs, and the Debian package that provides each (dpkg -S, Debian 12).
TOOLS = {"pdflatex": "texlive-latex-base"}
TEX_FILES = {
    "article.cls": "texlive-latex-base",
    "amsmath.sty": "texlive-latex-base",
    "graphicx.sty": "texlive-latex-base",
    "geometry.sty": "texlive-latex-base",
    "hyperref.sty": "texlive-latex-base",
    "amssymb.sty": "texlive-base",
    "xkeyval.sty": "texlive-latex-recommended",
    "adjustbox.sty": "texlive-latex-extra",
    "collectbox.sty": "texlive-latex-extra",
    "CJKutf8.sty": "latex-cjk-common",
    "c70gbsn.fd": "latex-cjk-chinese-arphic-gbsn00lp",
}
_PACKAGE_PATTERNS = (
    (re.compile(r"^(CJK|MULEenc)"), "latex-cjk-common"),
    (re.compile(r"^(c70gbsn|gbsn)"), "latex-cjk-chinese-arphic-gbsn00lp"),
    (re.compile(r"^(adj|collectbox|trimclip|varwidth|ifoddpage)"), "texlive-latex-extra"),
)


def package_of(file: str) -> str | None:
    """The Debian package that provides a TeX file or tool, when known: ``CJKutf8.sty`` →
    ``latex-cjk-common``, ``c70gbsn.fd`` → ``latex-cjk-chinese-arphic-gbsn00lp``."""
    if file in TOOLS or file in TEX_FILES:
        return TOOLS.get(file) or TEX_FILES[file]
    return next((pkg for pattern, pkg in _PACKAGE_PATTERNS if pattern.match(file)), None)


def missing_message(missing) -> str:
    """One line naming what is missing and what to install, e.g. ``TeX cannot find CJKutf8.sty:
    on Debian/Ubuntu apt-get install --no-install-recommends latex-cjk-common (or run
    .ci/system-packages)``."""
    files = [f for f, _ in missing]
    packages = sorted({p for _, p in missing if p})
    unknown = [f for f, p in missing if not p]
    what = "pdflatex is not installed" if files == ["pdflatex"] else f"TeX cannot find {', '.join(files)}"
    how = f"on Debian/Ubuntu apt-get install --no-install-recommends {' '.join(packages)}" if packages else ""
    if unknown:
        how += ("; " if how else "") + f"a TeX distribution that provides {', '.join(unknown)}"
    return f"{what}: {how} (or run {SYSTEM_PACKAGES}, which installs everything writeups need)"


INSTALL_HINT = missing_message([("pdflatex", TOOLS["pdflatex"])])


def tex_missing() -> tuple[tuple[str, str | None], ...]:
    """What compiling a writeup needs and this machine lacks: ``(("CJKutf8.sty", "latex-cjk-common"),)``.
    Asks ``kpsewhich`` once (it honours TEXINPUTS, as pdflatex does); () when all is there."""
    if shutil.which("pdflatex") is None:
        return (("pdflatex", TOOLS["pdflatex"]),)
    if shutil.which("kpsewhich") is None:
        return ()  # cannot tell before compiling; the log will name what is missing
    try:
        found = subprocess.run(["kpsewhich", *TEX_FILES], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    have = {Path(line.strip()).name for line in found.splitlines() if line.strip()}
    return tuple((f, p) for f, p in TEX_FILES.items() if f not in have)


def tex_problem() -> str | None:
    """Why a writeup cannot be compiled here (one line), or None."""
    missing = tex_missing()
    return missing_message(missing) if missing else None


def tex_tool() -> list[str] | None:
    """The command that compiles a .tex to PDF here, or None without pdflatex."""
    if shutil.which("pdflatex") is None:
        return None
    return ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error"]


def _cannot_create_in(folder: Path) -> str | None:
    """Why no file can be created in ``folder`` (its strerror), or None. A real file is made and
    removed: ``os.access`` says yes to root in /proc and /sys, where every write then fails."""
    import tempfile

    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".mathcheck-probe-")
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def output_problem(path: Path, directory: bool = False) -> str | None:
    """Why ``path`` (a file, or with ``directory`` a folder created if needed) cannot be written,
    in words, or None. Checked before any proving, by writing: a probe file is created and removed."""
    path = Path(path)
    if directory:
        if path.exists():
            if not path.is_dir():
                return f"{path} is not a directory"
            why = _cannot_create_in(path)
            return f"directory {path} is not writable ({why})" if why else None
        ancestor = path.parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            return f"cannot create {path}: {ancestor} is not a writable directory"
        why = _cannot_create_in(ancestor)
        return f"cannot create {path}: {ancestor} is not a writable directory ({why})" if why else None
    parent = path.parent
    if not parent.exists():
        return f"directory {parent} does not exist; create it or write elsewhere"
    if not parent.is_dir():
        return f"{parent} is not a directory"
    if path.is_dir():
        return f"{path} is a directory; give a file name"
    if path.exists() and not path.is_file():
        return f"{path} is not a regular file; give a file name"
    if path.exists():
        try:
            with open(path, "ab"):  # appending nothing: the file is left as it is
                pass
        except OSError as exc:
            return f"{path} is not writable ({exc.strerror})"
    why = _cannot_create_in(parent)
    return f"directory {parent} is not writable ({why}); write elsewhere" if why else None


def write_if_changed(path: Path, content: str | bytes) -> bool:
    """Write ``content`` unless ``path`` already holds exactly it (its mtime then stays); True when written."""
    path = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


@dataclass(frozen=True)
class Item:
    """One claim with what proving it and refuting its mutants found."""

    claim: object
    proved: object  # verdict.ClaimVerdict
    refuted: object  # verdict.RefuteVerdict


def collect(
    entries, seed: int = 0, prove=None, refute=None, jobs: int = 1, use_cache: bool = True, progress=None
) -> list[Item]:
    """Prove and refute every entry with ``seed``: through the engine and its proof cache (both
    verdicts are cached, by ``prove`` and ``refute`` as by this), ``jobs`` claims at a time;
    ``prove``/``refute`` replace the engine. ``progress(line)``, when given, hears what is computed
    (the CLI passes one on a terminal): ``writeup: refuting the mutants of 36 claims (not cached;
    mathcheck refute --all caches them)``, then each claim as it is done."""
    entries = list(entries)
    if prove is None or refute is None:
        from mathcheck.verify import Options

        options = Options(seed=seed)
        if prove is None:
            by_id = _run(entries, "prove", options, jobs, use_cache, progress)
            prove = lambda e: by_id[e.id]  # noqa: E731
        if refute is None:
            refuted = _run(entries, "refute", options, jobs, use_cache, progress)
            refute = lambda e: refuted[e.id]  # noqa: E731
    items = []
    for e in entries:
        v = prove(e)
        items.append(Item(v.claim, v, refute(e)))
    return items


_DOING = {"prove": "proving", "refute": "refuting the mutants of"}


def uncached(entries, kind: str, options, use_cache: bool = True) -> list:
    """The entries whose ``kind`` verdict is not in the cache (they will be computed)."""
    from mathcheck import cache

    if not use_cache:
        return list(entries)
    return [e for e in entries if (k := cache.key(e, kind, options)) is None or not cache.path(k).is_file()]


def _run(entries, kind: str, options, jobs: int, use_cache: bool, progress) -> dict:
    """``{id: verdict}`` from the engine; ``progress`` hears what is computed, claim by claim."""
    from mathcheck import engine

    todo = uncached(entries, kind, options, use_cache) if progress else []
    on_verdict = None
    if todo:
        why = "" if not use_cache else f" (not cached; mathcheck {kind} --all caches them)"
        progress(f"writeup: {_DOING[kind]} {len(todo)} claim{'s' * (len(todo) != 1)}{why}")
        done = iter(range(1, len(entries) + 1))
        on_verdict = lambda v: progress(f"  {next(done)}/{len(entries)} {v.claim.id}")  # noqa: E731
    return dict(zip((e.id for e in entries), engine.run(entries, kind, options, jobs, use_cache, on_verdict)))


def versions(full: bool = True) -> dict:
    """The versions the evidence was produced with (from package metadata: nothing is imported);
    ``full=False`` keeps major.minor (for docs that must not change with a patch release)."""
    from importlib import metadata

    out = {}
    for dist in ("sympy", "torch"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "absent"
    if not full:
        out = {k: ".".join(re.split(r"[.+]", v)[:2]) for k, v in out.items()}
    return out


# --- plots ---------------------------------------------------------------------------------------


def _plots(item):
    return item.proved.numeric.plots if item.proved.numeric is not None else ()


def _plot_key(plot, suffix: str) -> str:
    """A plot file's cache key: its data, the format, matplotlib's version and the drawing code."""
    from importlib import metadata

    from mathcheck.render import plots

    h = hashlib.sha256(repr(plot).encode())
    try:
        mpl = metadata.version("matplotlib")
    except metadata.PackageNotFoundError:
        mpl = "absent"
    h.update(f"{suffix};{mpl};".encode())
    h.update(Path(plots.__file__).read_bytes())
    return h.hexdigest()


def _draw_one(job) -> None:
    from mathcheck.render import plots

    plot, path = job
    tmp = path.with_name(f".{path.stem}.{os.getpid()}{path.suffix}")
    plots.draw(plot, tmp)
    tmp.replace(path)  # atomic: a half-drawn file is never cached


def _draw_all(todo, jobs: int) -> None:
    """Put each (plot, path) in place, drawing only plots not in the plot cache (``jobs`` at a time)."""
    from mathcheck.cache_dir import directory as cache_directory

    cache = cache_directory() / "plots"
    try:
        cache.mkdir(parents=True, exist_ok=True)
        keyed = [(plot, path, cache / (_plot_key(plot, path.suffix) + path.suffix)) for plot, path in todo]
        draw = list({c: (plot, c) for plot, _, c in keyed if not c.is_file()}.values())
    except OSError:  # no cache: draw everything in place
        keyed = [(plot, path, path) for plot, path in todo]
        draw = [(plot, path) for plot, path in todo]
    for _, c in draw:
        c.parent.mkdir(parents=True, exist_ok=True)
    if jobs > 1 and len(draw) > 1:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        from mathcheck.procs import die_with_parent

        with ProcessPoolExecutor(
            max_workers=min(jobs, len(draw)),
            mp_context=mp.get_context("fork"),
            initializer=die_with_parent,
            initargs=(os.getpid(),),
        ) as pool:
            list(pool.map(_draw_one, draw))
    else:
        for job in draw:
            _draw_one(job)
    for _, path, c in keyed:
        if c != path:
            write_if_changed(path, c.read_bytes())


def draw_figures(items, directory: Path, suffix: str, relative_to: Path, draw: bool = True, jobs: int = 1) -> dict:
    """Put every item's plots in ``directory`` (``draw=False``: only name the files);
    {claim id: ((path relative to ``relative_to``, title), ...)}."""
    from mathcheck.render import plots

    out, todo = {}, []
    for it in items:
        if not _plots(it):
            continue
        paths = [(Path(directory) / plots.file_name(it.claim.id, p, suffix), p.title) for p in _plots(it)]
        todo += [(p, path) for (path, _), p in zip(paths, _plots(it))]
        out[it.claim.id] = tuple((Path(os.path.relpath(path, relative_to)).as_posix(), t) for path, t in paths)
    if draw and todo:
        _draw_all(todo, jobs)
    return out


# --- rendering -----------------------------------------------------------------------------------

_STAMP_LINE = re.compile(r"^\\ifdefined\\pdftrailer\\pdftrailer\{/MathcheckSource \(([0-9a-f]{64})\)\}\\fi\n", re.M)
_GRAPHICS = re.compile(r"\\includegraphics(?:\[[^\]]*\])?\{([^}]+)\}")


def _digest(tex: str, directory: Path) -> str:
    """The digest of a document: its text (without the stamp) and the plot files it includes."""
    tex = _STAMP_LINE.sub("", tex, count=1)
    h = hashlib.sha256(tex.encode("utf-8"))
    for name in _GRAPHICS.findall(tex):
        h.update(name.encode() + b"\0" + (Path(directory) / name).read_bytes())
    return h.hexdigest()


def _stamped(tex: str, directory: Path) -> str:
    """The document with its digest (:func:`_digest`) stamped into the PDF's trailer (pdfTeX only;
    other engines skip the line): a PDF that carries the digest of its .tex is current."""
    first, _, rest = tex.partition("\n")
    line = f"\\ifdefined\\pdftrailer\\pdftrailer{{/MathcheckSource ({_digest(tex, directory)})}}\\fi\n"
    return f"{first}\n{line}{rest}"


def pdf_is_current(tex: Path, pdf: Path | None = None) -> bool:
    """True when ``pdf`` (default: beside ``tex``) was compiled from this very .tex and plots."""
    tex = Path(tex)
    pdf = Path(pdf) if pdf is not None else tex.with_suffix(".pdf")
    try:
        want = _digest(tex.read_text(encoding="utf-8"), tex.parent)
        have = re.search(rb"/MathcheckSource \(([0-9a-f]{64})\)", pdf.read_bytes())
    except OSError:
        return False
    return bool(have and have.group(1).decode() == want)


def latex(items, out: Path | None = None, seed: int = 0, jobs: int = 1) -> str:
    """The LaTeX document; with ``out``, plots go to ``<out stem>-plots/`` beside it (as PDF) and
    the document is stamped with the digest of its text and plots (see :func:`pdf_is_current`)."""
    from mathcheck.render import latex as rl

    if out is None:
        return rl.document(items, versions(), {}, seed)
    out = Path(out)
    figures = draw_figures(items, out.parent / f"{out.stem}-plots", ".pdf", out.parent, jobs=jobs)
    tex = rl.document(items, versions(), figures, seed)
    return _stamped(tex, out.parent)


def markdown(
    items, out: Path | None = None, seed: int = 0, command: str | None = None, draw: bool = True, jobs: int = 1
) -> str:
    """The Markdown catalog; with ``out``, plots go to ``plots/`` beside it (as PNG; ``draw=False``
    links them without drawing, which is how the staleness test renders)."""
    from mathcheck.render import markdown as rm

    images = {}
    if out is not None:
        out = Path(out)
        images = draw_figures(items, out.parent / "plots", ".png", out.parent, draw, jobs)
    return rm.catalog(items, versions(full=False), images, seed, command)


# --- compiling -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Compiled:
    """What compiling a .tex file found. ``ok`` needs a PDF, no error, no missing file and no
    undefined reference."""

    pdf: Path | None
    log: str
    errors: tuple[str, ...]
    undefined: tuple[str, ...]
    missing_characters: tuple[str, ...]
    missing: tuple[tuple[str, str | None], ...] = ()
    passes: int = 0

    @property
    def ok(self) -> bool:
        return self.pdf is not None and not self.errors and not self.undefined and not self.missing


def missing_in_log(log: str) -> tuple[tuple[str, str | None], ...]:
    """The files a LaTeX log says it could not find, each with the Debian package that provides it."""
    files = re.findall(r"File `([^']+)' not found", log)
    files += re.findall(r"Font \S+=(\S+)(?: at [^ ]+)? not loadable: Metric \(TFM\) file not found", log)
    files += [
        f"{enc.lower()}{family}.fd" for enc, family in re.findall(r"Font shape `(C70)/(\w+)/[^']*' undefined", log)
    ]
    return tuple((f, package_of(f)) for f in dict.fromkeys(files))


MAX_PASSES = 4
_AUX = (".aux", ".toc", ".out")


def _aux_cache(tex: Path) -> Path | None:
    """Where the settled .aux/.toc/.out of this document (by its digest) are kept, or None."""
    from mathcheck.cache_dir import directory

    try:
        return directory() / "tex" / _digest(tex.read_text(encoding="utf-8"), tex.parent)
    except (OSError, UnicodeDecodeError):
        return None


def compile_pdf(tex: Path, timeout: float = 300) -> Compiled:
    """Compile ``tex`` in its directory with pdflatex: once, and again while the table of contents,
    the references or the outline (.aux/.toc/.out) still change, at most :data:`MAX_PASSES` times.
    Where this very document (same digest) was compiled before, its settled .aux/.toc/.out are
    taken from the cache, and one pass does. Raises FileNotFoundError (the message says what to
    install) without pdflatex."""
    tool = tex_tool()
    if tool is None:
        raise FileNotFoundError(INSTALL_HINT)
    tex = Path(tex).resolve()
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", FORCE_SOURCE_DATE="1")  # the same PDF from the same input
    log_path, pdf = tex.with_suffix(".log"), tex.with_suffix(".pdf")

    def state():
        return tuple(p.read_bytes() if p.exists() else None for p in map(tex.with_suffix, _AUX))

    aux_cache = _aux_cache(tex)
    if aux_cache is not None and not any(tex.with_suffix(x).exists() for x in _AUX):
        for x in _AUX:  # settled by an earlier compile of this very document: one pass will do
            if (aux_cache / x).is_file():
                shutil.copyfile(aux_cache / x, tex.with_suffix(x))
    passes, log = 0, ""
    while passes < MAX_PASSES:
        before = state()
        subprocess.run(tool + [tex.name], cwd=tex.parent, env=env, capture_output=True, timeout=timeout)
        passes += 1
        log = log_path.read_text(errors="replace") if log_path.exists() else ""
        if not pdf.exists() or "Fatal error" in log or (state() == before and "Rerun to get" not in log):
            break
    errors = tuple(line for line in log.splitlines() if line.startswith("!") or re.match(r"^\S+:\d+: ", line))
    undefined = tuple(sorted(set(re.findall(r"(?:Reference|Citation) `([^']+)' .*undefined", log))))
    if "There were undefined references" in log and not undefined:
        undefined = ("(see the log)",)
    missing = tuple(sorted(set(re.findall(r"Missing character: There is no (.+? in font \S+?)!", log))))
    if aux_cache is not None and pdf.exists() and not errors and not undefined:
        try:
            aux_cache.mkdir(parents=True, exist_ok=True)
            for x in _AUX:
                if tex.with_suffix(x).exists():
                    shutil.copyfile(tex.with_suffix(x), aux_cache / x)
        except OSError:
            pass  # a cache that cannot be written only costs passes
    return Compiled(pdf if pdf.exists() else None, log, errors, undefined, missing, missing_in_log(log), passes)


def compile_failure(result: Compiled, tex: Path) -> str:
    """One line saying why ``tex`` did not compile cleanly."""
    if result.missing:
        return missing_message(result.missing)
    what = "; ".join(result.errors[:3] + tuple(f"undefined reference {r}" for r in result.undefined[:3]))
    return f"{tex} did not compile cleanly ({what}); see {Path(tex).with_suffix('.log')}"


# --- the committed catalog ------------------------------------------------------------------------


@dataclass(frozen=True)
class Docs:
    """What :func:`write_docs` did: the files it wrote (only those whose content changed), and why
    there is no PDF when there is none."""

    markdown: Path
    pdf: Path | None
    written: tuple[Path, ...]
    no_pdf: str | None = None


def write_docs(items, directory: Path, seed: int = 0, jobs: int = 1) -> Docs:
    """The committed catalog: ``claims.md`` (+ ``plots/*.png``) and ``catalog.pdf`` (compiled in a
    temporary directory, only when its .tex or plots changed). Files whose content would not change
    are left alone. Raises RuntimeError when the PDF does not compile cleanly."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    plots_dir = directory / "plots"
    before = {p: p.read_bytes() for p in plots_dir.glob("*.png")}
    md = directory / "claims.md"
    written = [md] if write_if_changed(md, markdown(items, md, seed, DOCS_COMMAND, jobs=jobs)) else []
    expected = {
        directory / p
        for figs in draw_figures(items, plots_dir, ".png", directory, draw=False).values()
        for p, _ in figs
    }
    for stale in set(before) - expected:  # plots of claims that changed or left
        stale.unlink()
    written += sorted(p for p in expected if before.get(p) != p.read_bytes())
    pdf = directory / "catalog.pdf"
    problem = tex_problem()
    if problem:
        return Docs(md, None, tuple(written), problem)
    with tempfile.TemporaryDirectory() as tmp:
        tex = Path(tmp) / "catalog.tex"
        tex.write_text(latex(items, tex, seed, jobs), encoding="utf-8")
        if not pdf_is_current(tex, pdf):
            result = compile_pdf(tex)
            if not result.ok:
                raise RuntimeError(compile_failure(result, directory / "catalog.tex"))
            if write_if_changed(pdf, result.pdf.read_bytes()):
                written.append(pdf)
    return Docs(md, pdf, tuple(written))
