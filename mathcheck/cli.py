"""The command line: parse, call, print. No mathematics here.

Exit codes: 0 all proved (``refute``: every mutant refuted); 1 something refuted (``refute``: a
mutant survived); 2 bad input; 3 inconclusive; 4 the machinery failed (a verdict ``error``).

SymPy and torch are imported inside the commands that need them, so ``mathcheck --help`` and
``mathcheck list`` start as fast as click itself.
"""

from __future__ import annotations

import json
import sys

import click

from mathcheck import __version__

EXIT = {"proved": 0, "refuted": 1, "bad-input": 2, "inconclusive": 3, "error": 4}


def fail(message: str, code: int = 2):
    """One line on stderr, no traceback, and the exit code."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _load_from(specs) -> list[str]:
    """Load the user's claim modules named by ``--from`` (paths or module names); their ids."""
    from mathcheck import registry

    ids = []
    for spec in specs:
        try:
            ids += registry.load_from(spec)
        except registry.LoadError as exc:
            fail(str(exc))
    return ids


def _entries(ids: tuple[str, ...], all_: bool, from_: tuple[str, ...] = ()):
    from mathcheck import registry

    loaded = _load_from(from_)
    if all_ and ids:
        fail("give claim ids or --all, not both")
    if not all_ and not ids:
        if loaded:  # `prove --from my_claims.py` proves the claims that file defines
            ids = tuple(loaded)
        else:
            fail("name at least one claim (mathcheck list shows them) or use --all")
    try:
        return registry.entries(plugins=True) if all_ else [registry.entry(i) for i in ids]
    except (registry.UnknownClaim, registry.LoadError) as exc:
        fail(str(exc))


def _print_json(verdicts, kind: str, seed: int, options=None, from_=()) -> None:
    from mathcheck.render import json as rj

    report = rj.report(verdicts, kind, seed)
    if options is not None:  # every option that changes a result
        report["options"] = {"seed": seed, "dtype": options.dtype, "device": options.device, "from": list(from_)}
    click.echo(json.dumps(report, ensure_ascii=False, indent=2))


seed_option = click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
                           help="Seed of every random draw: same seed, same report.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
from_option = click.option("--from", "from_", multiple=True, metavar="FILE.py|MODULE",
                           help="Also load the claims of this file or module (repeatable).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mathcheck")
def main():
    """The mathematics behind Transformers: derived by SymPy, checked against PyTorch."""


@main.command("list")
@json_option
@from_option
def list_(as_json: bool, from_):
    """List the claims: id, seed section, title."""
    from mathcheck import registry

    _load_from(from_)
    try:
        entries = registry.listing(plugins=True)
    except registry.LoadError as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps({"claims": [{"id": e.id, "title": e.title, "section": e.section}
                                          for e in entries]}, ensure_ascii=False, indent=2))
        return
    width = max(len(e.id) for e in entries)
    for e in entries:
        click.echo(f"{e.id:<{width}}  {e.section:<5}  {e.title}")


@main.command()
@click.argument("claim_id")
def show(claim_id: str):
    """Show a claim: its source, assumptions, derivation and mutants (nothing is checked)."""
    from mathcheck import registry
    from mathcheck.render import text

    try:
        c = registry.get(claim_id)
    except registry.UnknownClaim as exc:
        fail(str(exc))
    click.echo("\n".join(text.claim_description(c)))


def run_options(f):
    """The options every proving command shares: what to run on, how many at once, the cache."""
    f = click.option("--no-cache", is_flag=True, help="Prove again even if a cached verdict is current.")(f)
    f = click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Claims proved in parallel processes (same report as -j 1).")(f)
    f = click.option("--dtype", type=click.Choice(["float64", "float32"]), default="float64",
                     show_default=True, help="dtype of the numeric checks' torch computations, with "
                     "tolerances derived from its epsilon (Monte Carlo moments accumulate, eigenvalues, "
                     "norms and §7's checks run in float64).")(f)
    f = click.option("--device", default="cpu", show_default=True,
                     help="torch device for Monte Carlo draws, e.g. cuda (needs a GPU).")(f)
    return f


def _options(seed: int, device: str, dtype: str):
    from mathcheck.verify import Options

    if device != "cpu":
        if not (device == "cuda" or device.startswith("cuda:")):
            fail(f"--device {device!r}: use cpu or cuda[:N]")
        import torch

        if not torch.cuda.is_available():
            fail(f"--device {device!r}: no CUDA device is available here; use --device cpu")
    return Options(seed=seed, device=device, dtype=dtype)


def _run(kind: str, claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_=()):
    entries = _entries(claim_ids, all_, from_)
    options = _options(seed, device, dtype)
    from mathcheck.engine import run
    from mathcheck.render import text

    render = text.claim_verdict if kind == "prove" else text.refute_verdict
    echo = None if as_json else (lambda v: click.echo("\n".join(render(v))))
    verdicts = run(entries, kind, options, jobs=jobs, use_cache=not no_cache, on_verdict=echo, from_=from_)
    if as_json:
        _print_json(verdicts, kind, seed, options, from_)
    else:
        click.echo(text.summary(verdicts, kind))
    return verdicts


@main.command()
@click.argument("claim_ids", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Prove every claim.")
@seed_option
@json_option
@run_options
@from_option
def prove(claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_):
    """Derive each claim symbolically and check it numerically against PyTorch."""
    verdicts = _run("prove", claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_)
    statuses = {v.status for v in verdicts}
    for worst in ("error", "refuted", "inconclusive"):
        if worst in statuses:
            sys.exit(EXIT[worst])


@main.command()
@click.argument("claim_ids", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Refute the mutants of every claim.")
@seed_option
@json_option
@run_options
@from_option
def refute(claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_):
    """Show that every mutant (a mistake people make) of each claim is refuted."""
    verdicts = _run("refute", claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_)
    if any(r.error for r in verdicts):
        sys.exit(EXIT["error"])
    if not all(r.all_refuted for r in verdicts):
        sys.exit(EXIT["refuted"])


@main.command()
@json_option
def audit(as_json: bool):
    """The seed's statements, each with its verdict: exact, holds-with-conditions or imprecise."""
    from mathcheck import registry

    try:
        claims = [e.build() for e in registry.entries(plugins=True)]
    except registry.LoadError as exc:
        fail(str(exc))
    rows = [{"id": c.id, "section": c.source.section, "zh": c.source.zh, "en": c.source.en,
             "verdict": c.seed_verdict[0], "note": c.seed_verdict[1]} for c in claims]
    if as_json:
        click.echo(json.dumps({"claims": rows}, ensure_ascii=False, indent=2))
        return
    for r in rows:
        click.echo(f"{r['section']:<5} {r['id']}: {r['verdict']}")
        click.echo(f"      seed: {r['zh']}")
        click.echo(f"      gloss: {r['en']}")
        if r["note"]:
            click.echo(f"      {'correction' if r['verdict'] == 'imprecise' else 'note'}: {r['note']}")
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ("exact", "holds-with-conditions", "imprecise")}
    click.echo("verdicts: " + ", ".join(f"{n} {v}" for v, n in counts.items()))


@main.command()
@click.argument("lhs")
@click.argument("rhs")
@click.option("--assume", multiple=True, metavar="NAME=PROP[,PROP]",
              help="Properties of a symbol: real, positive, nonnegative, negative, nonzero, integer "
                   "(repeatable; symbols are real otherwise).")
@seed_option
@json_option
@click.option("--timeout", type=click.FloatRange(min=1.0, max=600.0), default=30.0, show_default=True,
              help="Wall-clock budget of the whole check, in seconds.")
def check(lhs, rhs, assume, seed, as_json, timeout):
    """Check your own identity LHS = RHS: symbolic proof, float64 test, verdict.

    The grammar (docs/check.md): numbers, names, + - * / ** ^, exp log sqrt sin cos tan tanh Abs
    sigmoid factorial, binomial(n, k), diff(f, x[, order]), Sum(f, (i, a, b)), x[i], pi, E.
    Put `--` before a side that starts with a minus sign.
    """
    from mathcheck.usercheck import check as run_check

    result = run_check(lhs, rhs, assume=list(assume), seed=seed, timeout=timeout)
    if as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    elif result.status == "bad-input":
        click.echo(f"error: {result.message}", err=True)
    else:
        click.echo("\n".join(result.lines()))
    sys.exit(result.exit_code)


@main.command()
@click.option("--B", "B", default="2", show_default=True, metavar="INT", help="Batch size.")
@click.option("--L", "L", default="4", show_default=True, metavar="INT", help="Sequence length.")
@click.option("--D", "D", default="8", show_default=True, metavar="INT", help="Model width (divisible by H).")
@click.option("--H", "H", default="2", show_default=True, metavar="INT", help="Number of heads.")
@json_option
def shapes(B, L, D, H, as_json):
    """The forward pass's tensor shapes (seed §7.1): derived in B, L, D, H, observed in PyTorch."""
    from mathcheck.derivations.shapes import parse_sizes

    try:
        sizes = parse_sizes(B=B, L=L, D=D, H=H)
    except ValueError as exc:
        fail(str(exc))
    from mathcheck.verify.shapes import shape_lines, shape_table

    report = shape_table(**sizes)
    click.echo(json.dumps(report, ensure_ascii=False, indent=2) if as_json else "\n".join(shape_lines(report)))
    if report["status"] != "ok":
        sys.exit(EXIT["refuted"])


@main.command()
@click.argument("claim_ids", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Write up every claim.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write to FILE (plots go beside it); default: print to stdout, without plots.")
@click.option("--format", "fmt", type=click.Choice(["latex", "markdown"]), default=None,
              help="Default: markdown for a .md FILE, else latex.")
@click.option("--pdf", is_flag=True, help="Compile the LaTeX FILE with latexmk/pdflatex (needs -o).")
@click.option("--docs", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Regenerate DIR/claims.md, DIR/plots/ and DIR/catalog.pdf (the committed catalog).")
@seed_option
def writeup(claim_ids, all_, output, fmt, pdf, docs, seed):
    """A publishable writeup: LaTeX (or Markdown) with derivations, evidence, mutants and plots."""
    from pathlib import Path

    if docs and (output or fmt or pdf):
        fail("--docs writes claims.md and catalog.pdf itself; drop -o/--format/--pdf")
    fmt = fmt or ("markdown" if output and output.endswith(".md") else "latex")
    if pdf and (fmt != "latex" or not output):
        fail("--pdf compiles a LaTeX file: give -o FILE.tex")
    entries = _entries(claim_ids, all_)
    from mathcheck import writeup as w

    if pdf and w.tex_tool() is None:
        fail(w.INSTALL_HINT, EXIT["error"])
    items = w.collect(entries, seed)
    if docs:
        try:
            md, pdf_path = w.write_docs(items, Path(docs), seed)
        except RuntimeError as exc:
            fail(str(exc), EXIT["error"])
        click.echo(f"wrote {md}" + (f" and {pdf_path}" if pdf_path else f"; no PDF: {w.INSTALL_HINT}"))
        return
    out = Path(output) if output else None
    rendered = (w.markdown if fmt == "markdown" else w.latex)(items, out, seed)
    if out is None:
        click.echo(rendered, nl=False)
        return
    out.write_text(rendered, encoding="utf-8")
    click.echo(f"wrote {out}")
    if pdf:
        result = w.compile_pdf(out)
        for line in result.errors[:10] + tuple(f"undefined reference: {r}" for r in result.undefined):
            click.echo(f"  {line}", err=True)
        if not result.ok:
            fail(f"{out} did not compile cleanly; see {out.with_suffix('.log')}", EXIT["error"])
        click.echo(f"wrote {result.pdf}")


if __name__ == "__main__":
    main()
