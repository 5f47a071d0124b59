"""Writeups: LaTeX and Markdown from verdicts, plots, the PDF of the whole catalog, notebook display.

Snapshots of each claim's LaTeX live in tests/snapshots/latex/<id>.tex. After an intended change
(or for a new claim) regenerate them and review the diff:

    MATHCHECK_UPDATE_SNAPSHOTS=1 python -m pytest -q tests/test_writeup.py -k snapshot
"""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mathcheck import registry, writeup
from mathcheck.cli import main
from mathcheck.render import latex as rl
from mathcheck.render import markdown as rm
from mathcheck.render import tex as rt
from mathcheck.verdict import Plot
from tests.conftest import CLAIM_IDS, proved, refuted

SNAPSHOTS = pathlib.Path(__file__).parent / "snapshots" / "latex"
UPDATE = os.environ.get("MATHCHECK_UPDATE_SNAPSHOTS") == "1"
FAST = "cross-entropy-decomposition"  # a claim that proves and refutes in seconds


def item(claim_id):
    v = proved(claim_id)
    return writeup.Item(v.claim, v, refuted(claim_id))


# --- prose and math -------------------------------------------------------------------------------


def test_text_escapes_latex_specials():
    # _ ^ ~ outside math take cmtt's ASCII glyphs, which a PDF's text layer copies as _ ^ ~
    assert rt.text("50% of $x & {a}#~^\\ key_padding_mask") == (
        r"50\% of \$x \& \{a\}\#{\ttfamily\char126}{\ttfamily\char94}\textbackslash{} "
        r"key{\ttfamily\char95}padding{\ttfamily\char95}mask"
    )


@pytest.mark.parametrize(
    "prose, pieces",
    [
        ("two random d_k-vectors", [("text", "two random "), ("math", "d_{k}"), ("text", "-vectors")]),
        ("q ∈ R^{d_k}", [("text", "q ∈ "), ("math", "R^{d_{k}}")]),
        ("variance σ_q²", [("text", "variance "), ("math", r"\sigma_{q}^{2}")]),
        ("chunks of 2^20 numbers", [("text", "chunks of "), ("math", "2^{20}"), ("text", " numbers")]),
        ("ω_i = 10000^(−2i/d)", [("math", r"\omega_{i}"), ("text", " = "), ("math", "10000^{-2i/d}")]),
        (
            "s_i/s_j = e^{z_i − z_j}",
            [("math", "s_{i}"), ("text", "/"), ("math", "s_{j}"), ("text", " = "), ("math", "e^{z_{i} - z_{j}}")],
        ),
        (
            "atol 1e-12, eps=2.5e-8",
            [("text", "atol "), ("math", "10^{-12}"), ("text", ", eps="), ("math", r"2.5 \cdot 10^{-8}")],
        ),
        (
            "Σ_i p_i = 1 on (0, 1]^n",
            [("math", r"\sum_{i}"), ("text", " "), ("math", "p_{i}"), ("text", " = 1 on (0, 1]"), ("math", "{}^{n}")],
        ),
        (
            "D_head-dimensional, Var_p(z), ‖J‖_F",
            [
                ("math", r"D_{\mathrm{head}}"),
                ("text", "-dimensional, "),
                ("math", r"\mathrm{Var}_{p}"),
                ("text", "(z), ‖J"),
                ("math", r"\|_{F}"),
            ],
        ),
        ("F.kl_div, key_padding_mask, __matmul__", [("text", "F.kl_div, key_padding_mask, __matmul__")]),
        ("no math here: x² and e.g. 3.5", [("text", "no math here: x² and e.g. 3.5")]),
    ],
)
def test_segments_find_the_math_written_in_prose(prose, pieces):
    assert rt.segments(prose) == pieces


def test_numbers_in_e_notation_are_powers_of_ten():
    assert [rt.sci(x) for x in (1e-12, 1e-09, 3.2e-15, 0.5, "1e2", 16.2)] == [
        "10^{-12}",
        "10^{-9}",
        r"3.2 \cdot 10^{-15}",
        "0.5",
        "10^{2}",
        "16.2",
    ]


def test_text_maps_math_unicode_and_wraps_chinese():
    assert rt.text("p ≥ 0, Σ ω_i → ∞") == (
        r"p \ensuremath{\geq} 0, \ensuremath{\Sigma} \ensuremath{\omega_{i}} "
        r"\ensuremath{\to} \ensuremath{\infty}"
    )
    assert rt.text("Mᵀ, d²") == r"M\ensuremath{^{\top}}, d\ensuremath{^{2}}"
    assert rt.text("the *minus* sign, a*b*c") == r"the \emph{minus} sign, a*b*c"
    assert rt.text("除以 √d") == r"\mbox{}\begin{CJK}{UTF8}{gbsn}除以\end{CJK} \ensuremath{\surd}d"


def test_printer_gives_the_usual_notation():
    import sympy as sp

    p, q, x = sp.IndexedBase("p"), sp.IndexedBase("q"), sp.Symbol("x")
    assert rt.math(sp.Function("KL")(p, q)) == r"D_{\mathrm{KL}}\left(p \,\middle\|\, q\right)"
    assert rt.math(sp.Function("CrossEntropy")(p, q)) == r"H\left(p, q\right)"
    assert rt.math(sp.Function("E")(x) ** 2) == r"\mathbb{E}\left[x\right]^{2}"
    assert rt.math(sp.Function("Var")(x)) == r"\operatorname{Var}\left[x\right]"
    assert rt.math(sp.Symbol("pos") + x) == r"\mathrm{pos} + x"
    assert rt.math(sp.Symbol("d_k")) == "d_{k}"  # SymPy's own printing where it is already right


def test_markdown_reports_errors_deterministically():
    from mathcheck.verdict import NumericVerdict

    passed = NumericVerdict("passed", "F.softmax", 3, 3.2e-15, atol=1e-12, rtol=1e-9)
    statistic = NumericVerdict("passed", "Monte Carlo", 3, 16.2345)
    refuted = NumericVerdict("refuted", "F.softmax", 3, 0.012345, atol=1e-12, rtol=1e-9)
    assert rm.largest_error(passed) == "within tolerance (atol $`10^{-12}`$, rtol $`10^{-9}`$)"
    assert rm.largest_error(statistic) == "16.2"
    assert rm.largest_error(refuted) == "0.0123 (atol $`10^{-12}`$, rtol $`10^{-9}`$)"
    tiny = NumericVerdict("refuted", "F.softmax", 3, 3.2e-15, atol=1e-12, rtol=1e-9)
    assert rm.largest_error(tiny).startswith(r"$`3.2 \cdot 10^{-15}`$ (")


def _with_given(claim_id):
    """The claim with a hypothesis on its first part (as Part.given states them)."""
    import dataclasses

    import sympy as sp

    c = registry.get(claim_id)
    i, n, p = sp.Symbol("i", integer=True), sp.Symbol("n", integer=True, positive=True), sp.IndexedBase("p")
    first = dataclasses.replace(c.parts[0], given=(sp.Eq(sp.Sum(p[i], (i, 1, n)), 1),))
    return dataclasses.replace(c, parts=(first,) + c.parts[1:]), first


def test_hypotheses_are_printed_before_the_statement():
    c, part = _with_given(FAST)
    hyp = r"\sum_{i=1}^{n} {p}_{i} = 1"
    assert rt.math(part.given[0]) == hyp
    tex = rl.claim_latex(c)
    assert rf"\noindent Given ${hyp}$:" + "\n" + rl.chain(part.steps) in tex
    md = "\n".join(rm.claim_body(c))
    assert f"Given {rm.inline(hyp)}:\n\n| | step | why |" in md
    replacing = [m for m in c.mutants if part.name in dict(m.replace)]
    for m in replacing:  # a mutant's statement keeps the part's hypotheses
        assert f"part `{part.name}`: given {rm.inline(hyp)}: " in "\n".join(rm.mutants(c))
        assert rf"part \texttt{{{part.name}}}: given ${hyp}$: " in rl.mutants(c)
    assert "Given" not in rl.claim_latex(registry.get(FAST))  # no hypotheses, no line


# --- snapshots of each claim's LaTeX ------------------------------------------------------------


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_latex_snapshot(claim_id):
    got = rl.claim_latex(registry.get(claim_id))
    path = SNAPSHOTS / f"{claim_id}.tex"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert path.exists(), (
        f"no LaTeX snapshot for {claim_id}: run "
        "MATHCHECK_UPDATE_SNAPSHOTS=1 python -m pytest -q tests/test_writeup.py -k snapshot"
    )
    assert got == path.read_text(encoding="utf-8"), (
        f"the LaTeX of {claim_id} changed; if intended, regenerate the snapshot (see this file's docstring)"
    )


def test_no_snapshot_without_a_claim():
    stale = {p.stem for p in SNAPSHOTS.glob("*.tex")} - set(CLAIM_IDS)
    assert not stale, f"snapshots of claims that no longer exist: {sorted(stale)}"


# --- a claim's writeup holds what its verdicts hold -------------------------------------------


def test_latex_section_carries_the_evidence_and_every_mutant():
    it = item(FAST)
    versions = {"sympy": "1.14.0", "torch": "2.13.0"}
    tex = rl.claim_section(it, versions)
    n = it.proved.numeric
    assert rt.text(n.reference) in tex and f"Trials] {n.trials}," in tex and f"seed {n.seed}" in tex
    assert rt.sci(f"{n.max_abs_err:.3g}") in tex and "sympy 1.14.0" in tex and "torch 2.13.0" in tex
    assert r"\begin{CJK}{UTF8}{gbsn}" in tex  # the seed's sentence, in Chinese
    for m in it.refuted.mutants:
        assert rt.text(m.name) in tex and m.status == "refuted"
        assert rt.text(str(m.counterexample[0][1])) in tex  # its counterexample is shown
    for p in it.claim.parts:  # each step: SymPy's printing of its expression, and its reason
        for s in p.steps:
            assert rt.math(s.expr) in tex and rt.text(s.reason) in tex


def test_markdown_section_carries_the_verdict_and_math():
    it = item(FAST)
    md = "\n".join(rm.claim_section(it))
    assert f"verdict: **✔ {it.proved.status}**" in md and rm.prose(it.claim.source.zh) in md
    assert "| | step | why |" in md and rm.inline(rt.math(it.claim.parts[0].rhs)).replace("|", "\\|") in md
    assert md.count("✘ **refuted**") == len(it.claim.mutants)
    assert "seconds" not in md


def test_markdown_is_deterministic():
    items = [item(FAST)]
    assert writeup.markdown(items, seed=0) == writeup.markdown(items, seed=0)


# --- plots ---------------------------------------------------------------------------------------


def test_plots_draw_lines_and_heatmaps(tmp_path):
    from mathcheck.render import plots

    line = Plot(
        "entropy",
        "H against T",
        "T",
        "H",
        (("a", (1, 2, 3), (0.1, 0.5, 0.7)), ("b", (1, 2, 3), (0.1, 0.4, 0.6))),
        logx=True,
    )
    heat = Plot("pe", "PE", "channel", "pos", (("values", ((0.0, 1.0), (1.0, 0.0)), ()),), kind="heatmap")
    for p in (line, heat):
        for suffix in (".png", ".pdf"):
            path = plots.draw(p, tmp_path / plots.file_name("my-claim", p, suffix))
            assert path.stat().st_size > 1000
    again = plots.draw(line, tmp_path / "again.png")
    assert again.read_bytes() == (tmp_path / "my-claim-entropy.png").read_bytes()  # no dates inside


def test_sinusoidal_check_attaches_its_plots():
    plots = {p.name: p for p in proved("sinusoidal-relative-position").numeric.plots}
    assert set(plots) == {"dot-vs-k", "pe-heatmap"}
    (_, k0, at0), (_, k1, at1000), (_, k2, derived) = plots["dot-vs-k"].series
    assert k0 == k1 == k2 and at0[0] == pytest.approx(256)  # PE(pos)·PE(pos) = d/2
    assert max(abs(a - b) for a, b in zip(at0, at1000)) < 1e-9  # the same curve from every pos
    assert max(abs(a - b) for a, b in zip(at0, derived)) < 1e-9  # and it is the derived Σ cos(ω_i k)
    ((_, rows, _),) = plots["pe-heatmap"].series
    assert len(rows) == 128 and len(rows[0]) == 512


# --- notebook display ----------------------------------------------------------------------------


def test_notebook_display():
    from mathcheck.render.notebook import latex, markdown

    c = registry.get(FAST)
    assert latex(c).startswith("$$\\begin{aligned}") and latex(c).endswith("$$")
    assert rm.prose(c.source.zh, "jupyter") in markdown(c) and "| | step | why |" in markdown(c)
    v, r = proved(FAST), refuted(FAST)
    assert v.status in latex(v) and "| | step | why |" in markdown(v)
    assert all(m.name in markdown(r) for m in c.mutants) and latex(r) is None and markdown(1) is None


def _need_ipython():
    """IPython is in `.[test]`; without it the notebook tests skip saying what to install (under
    CI=true they fail: a green CI must not hide a missing install step)."""
    import importlib.util

    if importlib.util.find_spec("IPython") is None:
        message = "IPython is not installed: pip install -e '.[test]' (or pip install ipython)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def test_ipython_shows_claims_and_verdicts_through_the_registered_formatters():
    _need_ipython()
    from IPython.core.formatters import DisplayFormatter

    from mathcheck.render import notebook

    class Shell:  # what register() reads of a running IPython
        display_formatter = DisplayFormatter()

    assert notebook.register(Shell)
    data, _ = Shell.display_formatter.format(registry.get(FAST))
    assert data["text/markdown"] == notebook.markdown(registry.get(FAST))
    assert data["text/latex"].startswith("$$\\begin{aligned}")
    assert "text/markdown" in Shell.display_formatter.format(refuted(FAST))[0]


def test_import_mathcheck_in_ipython_registers_the_display():
    _need_ipython()
    import subprocess
    import sys

    code = (
        "from IPython.testing.globalipapp import get_ipython; ip = get_ipython(); import mathcheck; "
        "from mathcheck.registry import get; f = ip.display_formatter.formatters; c = get('" + FAST + "'); "
        "f['text/markdown'].enabled = f['text/latex'].enabled = True; "  # a terminal shows text/plain only
        "print(f['text/markdown'](c)[:4], f['text/latex'](c)[:2])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["###", "$$"]


# --- the command ---------------------------------------------------------------------------------


def test_writeup_command_needs_claims_and_a_file_for_pdf():
    runner = CliRunner()
    assert runner.invoke(main, ["writeup"]).exit_code == 2
    out = runner.invoke(main, ["writeup", FAST, "--pdf"])
    assert out.exit_code == 2 and "-o FILE.tex" in out.output
    assert runner.invoke(main, ["writeup", "no-such-claim"]).exit_code == 2


def test_writeup_command_writes_markdown(tmp_path):
    out = CliRunner().invoke(main, ["writeup", FAST, "-o", str(tmp_path / "c.md")])
    assert out.exit_code == 0, out.output
    assert "## §5.2" in (tmp_path / "c.md").read_text(encoding="utf-8")


def test_help_and_list_do_not_import_matplotlib():
    from tests.system.test_layering import _imported_at_startup

    for args in (["--help"], ["list"]):
        assert "matplotlib" not in _imported_at_startup(*args), args


def test_gitignore_hides_latex_by_products_not_the_committed_catalog():
    root = pathlib.Path(__file__).resolve().parents[1]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    names = ["c.aux", "c.log", "c.out", "c.toc", "c.fls", "c.fdb_latexmk", "c.synctex.gz", "docs/catalog.pdf"]
    out = subprocess.run(["git", "check-ignore", "--no-index", *names], cwd=root, capture_output=True, text=True)
    assert out.stdout.split() == names[:-1]


# --- bad paths and missing tools fail before any proving -----------------------------------------


def _no_proving(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("proved before checking the output path / TeX")

    monkeypatch.setattr(writeup, "collect", refuse)


@pytest.mark.parametrize(
    "args, line",
    [
        (
            ["-o", "/nonexistent/x.tex"],
            "error: -o /nonexistent/x.tex: directory /nonexistent does not exist; create it or write elsewhere\n",
        ),
        (
            ["--docs", "/nonexistent/a/b"],
            "error: --docs /nonexistent/a/b: cannot create /nonexistent/a/b: / is not a writable directory\n",
        ),
    ],
)
def test_bad_output_paths_fail_before_proving(monkeypatch, args, line):
    if args[0] == "--docs" and os.access("/", os.W_OK):
        args, line = (
            ["--docs", "/dev/null/docs"],
            ("error: --docs /dev/null/docs: cannot create /dev/null/docs: /dev/null is not a writable directory\n"),
        )
    _no_proving(monkeypatch)
    out = CliRunner().invoke(main, ["writeup", FAST] + args)
    assert (out.exit_code, out.output) == (2, line)


def test_output_file_in_a_file_or_a_directory(tmp_path):
    (tmp_path / "f").write_text("")
    assert writeup.output_problem(tmp_path / "f" / "x.tex") == f"{tmp_path / 'f'} is not a directory"
    assert writeup.output_problem(tmp_path) == f"{tmp_path} is a directory; give a file name"
    assert writeup.output_problem(tmp_path / "new" / "docs", directory=True) is None
    assert writeup.output_problem(tmp_path / "x.tex") is None


def test_pdf_without_tex_says_how_to_install(monkeypatch, tmp_path):
    _no_proving(monkeypatch)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    out = CliRunner().invoke(main, ["writeup", FAST, "-o", str(tmp_path / "c.tex"), "--pdf"])
    assert out.exit_code == 2 and out.output == (  # a missing tool is bad input: exit 2 (issue 21)
        "error: pdflatex is not installed: on Debian/Ubuntu apt-get install --no-install-recommends "
        "texlive-latex-base (or run .ci/system-packages, which installs everything writeups need)\n"
    )


def test_missing_tex_files_are_named_with_their_debian_package():
    log = (
        "! LaTeX Error: File `CJKutf8.sty' not found.\n"
        "LaTeX Font Warning: Font shape `C70/gbsn/m/n' undefined\n"
        "! Font C70/gbsn/m/n/10/4e=gbsnu4e at 10.0pt not loadable: Metric (TFM) file not found.\n"
        "! LaTeX Error: File `nosuch.sty' not found.\n"
    )
    missing = writeup.missing_in_log(log)
    assert missing == (
        ("CJKutf8.sty", "latex-cjk-common"),
        ("nosuch.sty", None),
        ("gbsnu4e", "latex-cjk-chinese-arphic-gbsn00lp"),
        ("c70gbsn.fd", "latex-cjk-chinese-arphic-gbsn00lp"),
    )
    assert writeup.missing_message(missing[:1]) == (
        "TeX cannot find CJKutf8.sty: on Debian/Ubuntu apt-get install --no-install-recommends latex-cjk-common "
        "(or run .ci/system-packages, which installs everything writeups need)"
    )
    assert "a TeX distribution that provides nosuch.sty" in writeup.missing_message(missing)


def _hidden_cjk_env():
    """The environment of a machine with pdflatex but without the CJK packages: TEXINPUTS lists
    TeX Live's own tree only, which hides Debian's latex-cjk-* files (they live in /usr/share/texmf)."""
    if shutil.which("kpsewhich") is None:
        pytest.skip("no kpsewhich: TeX is not installed, nothing to hide")
    dist = subprocess.run(["kpsewhich", "-var-value", "TEXMFDIST"], capture_output=True, text=True).stdout.strip()
    cjk = subprocess.run(["kpsewhich", "CJKutf8.sty"], capture_output=True, text=True).stdout.strip()
    if not dist or not cjk or cjk.startswith(dist):
        pytest.skip(f"cannot hide CJKutf8.sty ({cjk or 'absent'}) apart from TeX Live's tree ({dist})")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    env["TEXINPUTS"] = f".:{dist}/tex//"
    return env


def test_a_machine_without_cjk_is_told_which_packages_to_install(monkeypatch, tmp_path):
    for k, v in _hidden_cjk_env().items():
        monkeypatch.setenv(k, v)
    assert writeup.tex_missing() == (
        ("CJKutf8.sty", "latex-cjk-common"),
        ("c70gbsn.fd", "latex-cjk-chinese-arphic-gbsn00lp"),
    )
    _no_proving(monkeypatch)
    out = CliRunner().invoke(main, ["writeup", FAST, "-o", str(tmp_path / "c.tex"), "--pdf"])
    assert out.exit_code == 2 and out.output.count("\n") == 1, out.output
    assert out.output.startswith(
        "error: TeX cannot find CJKutf8.sty, c70gbsn.fd: on Debian/Ubuntu apt-get install "
        "--no-install-recommends latex-cjk-chinese-arphic-gbsn00lp latex-cjk-common"
    )
    # the compile step itself names the package too (pdflatex stops at the first missing file)
    tex = tmp_path / "t.tex"
    tex.write_text("\\documentclass{article}\n\\usepackage{CJKutf8}\n\\begin{document}x\\end{document}\n")
    result = writeup.compile_pdf(tex)
    assert not result.ok and result.missing == (("CJKutf8.sty", "latex-cjk-common"),)
    assert writeup.compile_failure(result, tex).startswith("TeX cannot find CJKutf8.sty: on Debian/Ubuntu")


def test_pdf_tests_skip_with_the_reason_on_a_machine_without_cjk():
    """The slow run (`-m slow`: the PDF tests) on a machine without CJK: the PDF tests skip and say
    what to install; with CI=true they fail instead (CI must compile the catalog)."""
    env = _hidden_cjk_env()
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-n",
        "0",
        "-m",
        "slow",
        "tests/test_writeup.py",
        "-k",
        "whole_catalog or compile_once",
    ]
    root = pathlib.Path(__file__).resolve().parents[1]
    out = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:]
    assert "2 skipped" in out.stdout and "SKIPPED" in out.stdout
    assert "TeX cannot find CJKutf8.sty, c70gbsn.fd: on Debian/Ubuntu apt-get install" in out.stdout
    ci = subprocess.run(cmd, cwd=root, env=dict(env, CI="true"), capture_output=True, text=True, timeout=300)
    assert ci.returncode == 1 and "2 failed" in ci.stdout and "latex-cjk-common" in ci.stdout


# --- the whole catalog compiles, with its math set as math -------------------------------------------


def _need_tex():
    problem = writeup.tex_problem()
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must compile the writeups ({SYSTEM_PACKAGES_RUN}), but {problem}")
        pytest.skip(problem)


SYSTEM_PACKAGES_RUN = ".ci/run installs TeX with .ci/system-packages"


def _pdftotext(pdf):
    if shutil.which("pdftotext") is None:
        if os.environ.get("CI") == "true":
            pytest.fail(
                "CI must check the PDF's text, but pdftotext is missing (.ci/system-packages installs poppler-utils)"
            )
        return None
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True).stdout


@pytest.mark.slow
def test_compile_once_then_only_when_changed(tmp_path, monkeypatch):
    _need_tex()
    monkeypatch.setenv("MATHCHECK_CACHE_DIR", str(tmp_path / "cache"))
    items = [item(FAST)]
    tex = tmp_path / "c.tex"
    tex.write_text(writeup.latex(items, tex, seed=0), encoding="utf-8")
    assert not writeup.pdf_is_current(tex)
    first = writeup.compile_pdf(tex)
    assert first.ok and 1 < first.passes <= writeup.MAX_PASSES  # the contents need a second pass
    assert writeup.pdf_is_current(tex)
    again = writeup.compile_pdf(tex)  # .aux/.toc/.out already settled: one pass
    assert again.ok and again.passes == 1
    elsewhere = tmp_path / "elsewhere" / "c.tex"  # the same document in a new directory: settled
    elsewhere.parent.mkdir()  # .aux/.toc/.out from the cache, one pass
    elsewhere.write_text(tex.read_text(encoding="utf-8"), encoding="utf-8")
    third = writeup.compile_pdf(elsewhere)
    assert third.ok and third.passes == 1 and third.pdf.read_bytes() == first.pdf.read_bytes()
    tex.write_text(tex.read_text(encoding="utf-8").replace("Each claim below", "Every claim below"), encoding="utf-8")
    assert not writeup.pdf_is_current(tex)  # the stamp is of the text the PDF was compiled from


@pytest.mark.slow
def test_docs_are_left_alone_when_nothing_changed(tmp_path):
    items = [item(FAST), item("sinusoidal-relative-position")]
    first = writeup.write_docs(items, tmp_path, seed=0)
    names = {p.name for p in first.written}
    assert {"claims.md", "sinusoidal-relative-position-dot-vs-k.png"} <= names
    assert ("catalog.pdf" in names) == (first.no_pdf is None)
    (tmp_path / "plots" / "gone-claim-plot.png").write_bytes(b"stale")
    stamps = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file() and p.name != "gone-claim-plot.png"}
    second = writeup.write_docs(items, tmp_path, seed=0)
    assert second.written == () and second.no_pdf == first.no_pdf
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()} == stamps  # untouched; stale plot gone


@pytest.mark.slow
@pytest.mark.xdist_group("catalog")  # with test_docs_fresh: the whole catalog is proved once per run
def test_whole_catalog_compiles_without_errors(tmp_path):
    _need_tex()
    items = [item(i) for i in CLAIM_IDS]
    tex = tmp_path / "catalog.tex"
    tex.write_text(writeup.latex(items, tex, seed=0), encoding="utf-8")
    result = writeup.compile_pdf(tex)
    assert result.errors == () and result.undefined == (), result.errors[:5] + result.undefined
    assert result.missing_characters == (), f"characters no font has: {result.missing_characters}"
    assert result.ok and result.pdf.stat().st_size > 10_000
    figures = list((tmp_path / "catalog-plots").glob("*.pdf"))
    assert any("sinusoidal-relative-position" in f.name for f in figures)
    source = tex.read_text(encoding="utf-8")
    assert all(f.name in source for f in figures)  # each plot is embedded
    # math is set as math: no OT1 \_ (a rule, copied as a space) or \^{} (an accent, copied as ˆ)
    assert r"\_" not in source and r"\^{}" not in source
    assert "Undefined control sequence" not in result.log and "Missing character" not in result.log
    text = _pdftotext(result.pdf)
    if text is None:
        pytest.skip("pdftotext is not installed (poppler-utils): the PDF's text was not checked")
    # the PDF's text copies and searches (CJKutf8 can garble the Latin fonts' map) ...
    assert "Each claim below was derived" in text and items[0].claim.id in text
    # ... and none of the glitches of math set as text: ˆ, "d k" for d_k, "1e − 12" for 10^{-12}
    import re

    assert "ˆ" not in text
    assert not re.search(r"\b\d+(\.\d+)?\s?e\s?[−-]\s?\d", text), re.search(r".{30}\de\s?[−-]\s?\d.{10}", text)
    assert not re.search(r"\bd k\b", text) and re.search(r"\bdk ?-vectors", text)  # d_k: a subscript, not a space
    assert "F.kl_div" in text and "key_padding_mask" in text  # code keeps its underscores
