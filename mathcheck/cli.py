"""The command line: parse, call, print. No mathematics here.

Exit codes: 0 all proved (``refute``: every mutant refuted); 1 something refuted (``refute``: a
mutant survived); 2 bad input; 3 inconclusive; 4 the machinery failed (a verdict ``error``).

SymPy and torch are imported inside the commands that need them, so ``mathcheck --help`` and
``mathcheck list`` start as fast as click itself.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from mathcheck.version import __version__

if TYPE_CHECKING:
    from collections.abc import Callable

# json and the outcome model are imported where they are used: `mathcheck --help` needs neither.


def fail(message: str, code: int = 2) -> NoReturn:
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
            fail(str(exc), exc.exit_code)
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
        # --all: the catalog from listing's index, so a warm run imports no derivation module (nor SymPy)
        return registry.listing(plugins=True, user=loaded) if all_ else [registry.entry(i) for i in ids]
    except (registry.UnknownClaim, registry.LoadError) as exc:
        fail(str(exc), getattr(exc, "exit_code", 2))


def _print_json(claims, kind: str, seed: int, options=None, from_=()) -> None:
    """The report of ``claims`` (each verdict's JSON object, in order)."""
    from mathcheck.render import json as rj

    report = {**rj.report((), kind, seed), "claims": claims}
    if options is not None:  # every option that changes a result
        report["options"] = {"seed": seed, "dtype": options.dtype, "device": options.device, "from": list(from_)}
    import json

    click.echo(json.dumps(report, ensure_ascii=False, indent=2))


# --- input limits, shared by every command: checked by click before anything runs -----------------

MAX_SEED = 2**32 - 1  # the seeds feed torch generators as seed*7919 + salt, which must fit 64 bits


class Seconds(click.FloatRange):
    """A finite number of seconds in [min, max]: ``nan`` passes every comparison, so FloatRange
    alone lets it through (and a budget of nan seconds never expires)."""

    def convert(self, value, param, ctx) -> float:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(
                f"{value!r} is not a finite number; give seconds between {self.min:g} and {self.max:g}", param, ctx
            )
        return super().convert(number, param, ctx)


TIMEOUT = Seconds(min=1.0, max=600.0)
SEED = click.IntRange(min=0, max=MAX_SEED)


class Main(click.Group):
    """The ``mathcheck`` group: a usage error (an option out of range, a missing argument) is one
    line and exit 2, like every other bad input, instead of click's usage block."""

    def invoke(self, ctx) -> Any:
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            sub = exc.ctx.command_path.split(" ")[1:] if exc.ctx is not None else []
            fail(f"{exc.format_message().rstrip('.')} (see {' '.join(['mathcheck', *sub])} --help)")


class TableOption(click.Option):
    """An option whose help names the rows of a table (``{table}`` in its help), read from the table
    when the help is shown — not at start-up, so ``mathcheck --help`` imports no table — and so
    the list cannot drift from it (``--kind``: ``conform/spec.KINDS``)."""

    def __init__(self, *args, table, **kw):
        super().__init__(*args, **kw)
        self.table = table  # () -> the names, in the table's order

    def get_help_record(self, ctx) -> tuple[str, str] | None:
        written = self.help
        self.help = written.replace("{table}", ", ".join(self.table()))
        try:
            return super().get_help_record(ctx)
        finally:
            self.help = written


def _table(module: str, name: str):
    """The names of ``module.name`` (a tuple, or a dict's keys), imported when the help is shown."""

    def names():
        import importlib

        return tuple(getattr(importlib.import_module(module), name))

    return names


class ExpressionArguments(click.Command):
    """A command whose arguments are expressions: ``check 'log(sigmoid(x))' '-log(1+exp(-x))'``.

    click reads any token that starts with ``-`` as options (``-log(…)`` as ``-l -o -g …``). Here a
    token with one ``-`` that is none of the command's options (nor a cluster of its short ones, like
    ``-j2``) and that the whitelist parser reads as an expression is an argument; real options (``-j 2``,
    ``--json``) and ``check -- a b`` work as before. A token that is neither is an error that says
    to put ``--`` before it, with the line to type."""

    def parse_args(self, ctx, args) -> list[str]:
        args = list(args)
        hidden = {}  # a placeholder click cannot take for an option → the expression it stands for
        options, value_next = self._options(ctx), False
        for i, token in enumerate(args):
            if token == "--":
                break
            if not value_next and self._option_like(ctx, token) and _is_expression(token):
                hidden[f"\0expr{i}"] = token
                args[i] = f"\0expr{i}"
            # `--timeout -1`: the option's value, as click reads it (and refuses it if it must)
            value_next = not value_next and options.get(token, False)
        try:
            rest = super().parse_args(ctx, list(args))  # click consumes the list it is given
        except click.NoSuchOption as exc:
            raise click.UsageError(self._dash_hint(ctx, [hidden.get(a, a) for a in args], exc), ctx) from None
        except click.UsageError as exc:  # e.g. one argument too many: name it as the user typed it
            for placeholder, token in hidden.items():
                exc.message = exc.message.replace(placeholder, token)
            raise
        for name, value in ctx.params.items():
            if isinstance(value, str):
                ctx.params[name] = hidden.get(value, value)
            elif isinstance(value, tuple):
                ctx.params[name] = tuple(hidden.get(v, v) if isinstance(v, str) else v for v in value)
        return rest

    def format_help_text(self, ctx, formatter) -> None:
        """The grammar's functions, listed from the function table when the help is shown (not at
        start-up: ``mathcheck --help`` and ``list`` stay free of the table), so the list cannot drift."""
        written = self.help
        if written and "{functions}" in written:
            from mathcheck.numeric.functions import entries

            shape = {(1,): "", (2,): "(a, b)", (1, 2): "(a[, b])", None: "(a, ...)"}
            self.help = written.replace(
                "{functions}", " ".join(f.name + shape.get(f.arity, "(...)") for f in entries())
            )
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = written  # the table is read again at each showing (a test may add an entry)

    def _options(self, ctx) -> dict:
        """Each option name of this command → whether it takes a value."""
        names = {n: False for n in ctx.help_option_names}
        for p in self.params:
            if isinstance(p, click.Option):
                names.update({n: not p.is_flag for n in (*p.opts, *p.secondary_opts)})
        return names

    def _option_like(self, ctx, token: str) -> bool:
        """True for a token click would take for an option although it is none of ours."""
        if not token.startswith("-") or token == "-":
            return False
        options = self._options(ctx)
        if token.startswith("--"):  # `--x` is no one's expression, and may be a mistyped option
            return False
        for ch in token[1:]:  # a cluster of short options: flags, then at most one that takes a value
            takes = options.get(f"-{ch}")
            if takes is None:
                return True
            if takes:
                return False
        return False

    def _is_option(self, ctx, token: str) -> bool:
        """Whether click reads ``token`` as options of ours (``--json``, ``--seed=3``, ``-j2``)."""
        if token.startswith("--"):
            return token.split("=", 1)[0] in self._options(ctx)
        return token.startswith("-") and token != "-" and not self._option_like(ctx, token)

    def _dash_hint(self, ctx, args, exc) -> str:
        """``'-q(' is not an option …; if it is an expression, use -- before it: mathcheck check -- …``."""
        import shlex

        options, opts, positional, take = self._options(ctx), [], [], False
        bad = next((a for a in args if a.startswith(exc.option_name) and not self._is_option(ctx, a)), exc.option_name)
        for a in args:
            if take or self._is_option(ctx, a):
                opts.append(a)
                take = not take and options.get(a.split("=", 1)[0], False) and "=" not in a
            else:
                positional.append(a)
        line = shlex.join(
            ["mathcheck", *ctx.command_path.split(" ")[1:], *opts, "--", *[a for a in positional if a != "--"]]
        )
        return f"{bad!r} is not an option; if it is an expression, use -- before it: {line}"


def _is_expression(token: str) -> bool:
    """Whether the whitelist parser reads ``token`` (it starts with ``-``) as an expression."""
    from mathcheck import parser

    try:
        parser.parse(token)
    except Exception:  # noqa: BLE001 - any refusal: then it is not one, and click reports it as an option
        return False
    return True


def _cache_ready() -> None:
    """A cache folder that cannot be one (``MATHCHECK_CACHE_DIR`` naming a file): one line, exit 2."""
    from mathcheck import cache_dir

    problem = cache_dir.problem()
    if problem:
        fail(problem)


seed_option = click.option(
    "--seed",
    type=SEED,
    default=0,
    show_default=True,
    help="Seed of every random draw (0 to 2**32-1): same seed, same report.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
from_option = click.option(
    "--from",
    "from_",
    multiple=True,
    metavar="FILE.py|MODULE",
    help="Also load the claims of this file or module (repeatable).",
)


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mathcheck")
def main() -> None:
    """The mathematics behind Transformers: derived by SymPy, checked against PyTorch."""


# The `mathcheck` command itself (console script, `python -m mathcheck`) watches the commands that run
# user code from a parent process (procs.supervise); `main` called in-process (click's CliRunner, a
# test, a notebook) never forks: a fork there would copy the caller, pytest's worker included.
SUPERVISED = False


def entry() -> None:
    """The ``mathcheck`` console script and ``python -m mathcheck``."""
    global SUPERVISED
    SUPERVISED = True
    main(prog_name="mathcheck")  # `python -m mathcheck` reads as `mathcheck` in messages and replay lines


@main.command("list")
@json_option
@from_option
def list_(as_json: bool, from_) -> None:
    """List the claims: id, seed section, title."""
    from mathcheck import registry

    loaded = _load_from(from_)
    try:
        entries = registry.listing(plugins=True, user=loaded)
    except registry.LoadError as exc:
        fail(str(exc), exc.exit_code)
    if as_json:
        import json

        click.echo(
            json.dumps(
                {"claims": [{"id": e.id, "title": e.title, "section": e.section} for e in entries]},
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    width = max(len(e.id) for e in entries)
    for e in entries:
        click.echo(f"{e.id:<{width}}  {e.section:<5}  {e.title}")


@main.command()
@click.argument("claim_id")
@from_option
def show(claim_id: str, from_) -> None:
    """Show a claim: its source, assumptions, derivation and mutants (nothing is checked)."""
    from mathcheck import registry
    from mathcheck.render import text

    _load_from(from_)
    try:
        c = registry.get(claim_id)
    except registry.UnknownClaim as exc:
        fail(str(exc))
    click.echo("\n".join(text.claim_description(c)))


def _verbose(ctx, param, value):
    """``-v``: mathcheck's notes (e.g. a cache entry ignored, and why) as ``note: ...`` lines on stderr."""
    if not value:
        return value
    import logging

    class Echo(logging.Handler):
        def emit(self, record):
            click.echo(f"note: {record.getMessage()}", err=True)

    logger, handler = logging.getLogger("mathcheck"), Echo()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)

    def restore():
        logger.removeHandler(handler)
        logger.setLevel(level)

    ctx.call_on_close(restore)
    return value


def run_options(f) -> Callable[..., Any]:
    """The options every proving command shares: what to run on, how many at once, the cache."""
    if not any(p.name == "verbose" for p in getattr(f, "__click_params__", ())):  # prove's -v prints them too
        f = click.option(
            "-v",
            "--verbose",
            is_flag=True,
            expose_value=False,
            callback=_verbose,
            help="Print notes: e.g. a cache entry ignored, and why.",
        )(f)
    f = click.option(
        "--no-cache", is_flag=True, help="Compute every verdict here and now: the cache is neither read nor written."
    )(f)
    f = click.option(
        "-j",
        "--jobs",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="Claims proved in parallel processes (same report as -j 1).",
    )(f)
    f = click.option(
        "--dtype",
        type=click.Choice(["float64", "float32"]),
        default="float64",
        show_default=True,
        help="dtype of the numeric checks' torch computations, with "
        "tolerances derived from its epsilon (Monte Carlo moments accumulate, eigenvalues, "
        "norms and §7's checks run in float64).",
    )(f)
    f = click.option(
        "--device",
        default="cpu",
        show_default=True,
        help="torch device for Monte Carlo draws, e.g. cuda (needs a GPU).",
    )(f)
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


def _run(kind: str, claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_=(), verbose=False):
    """Prove or refute, printing each claim's report in order as it is known. A claim whose cache
    entry has a current view (:func:`mathcheck.cache.load_view`) is printed from it: neither built
    nor decoded, SymPy not imported; the others go through the engine, and their views are kept."""
    import logging

    from mathcheck import cache
    from mathcheck.engine import replay_options

    if from_ and SUPERVISED:  # the user's modules may end the process below Python: an error, never a success
        from mathcheck.procs import supervise

        supervise(f"{kind} --from {' '.join(from_)}")
    entries = _entries(claim_ids, all_, from_)
    options = _options(seed, device, dtype)
    if not no_cache:
        _cache_ready()
    extra = replay_options(options, from_)
    # -v prints every step and the cache's notes: it reads (and checks) every entry
    use_views = not (no_cache or verbose or logging.getLogger("mathcheck").isEnabledFor(logging.INFO))
    keys = {e.id: cache.key(e, kind, options) for e in entries} if use_views else {}
    ready = {}
    for e in entries:
        view = cache.load_view(keys[e.id], extra) if use_views else None
        if view is not None and set(view) == {"status", "mutants", "text", "json"}:
            ready[e.id] = view
    printed = 0

    def emit():
        nonlocal printed
        while printed < len(entries) and entries[printed].id in ready:
            if not as_json:
                click.echo("\n".join(ready[entries[printed].id]["text"]))
            printed += 1

    def on_verdict(v):
        ready[v.claim.id] = view = _view(v, kind, verbose)
        if use_views:
            cache.store_view(keys.get(v.claim.id), view, extra)
        emit()

    emit()
    pending = [e for e in entries if e.id not in ready]
    if pending:
        from mathcheck.engine import run

        run(pending, kind, options, jobs=jobs, use_cache=not no_cache, on_verdict=on_verdict, from_=from_)
    views = [ready[e.id] for e in entries]
    if as_json:
        _print_json([v["json"] for v in views], kind, seed, options, from_)
    else:
        from mathcheck.render import text

        click.echo(text.summary(_Shown.of(views), kind))
    return _Shown.of(views)


def _view(v, kind: str, verbose: bool) -> dict:
    """What the reports print of verdict ``v``, as JSON values: its status (and its mutants'), its
    text lines, its JSON object."""
    from mathcheck.render import json as rj, text

    if kind == "prove":
        return {"status": v.status, "mutants": [], "text": text.claim_verdict(v, verbose), "json": rj.claim_verdict(v)}
    return {
        "status": v.status,
        "mutants": [m.status for m in v.mutants],
        "text": text.refute_verdict(v),
        "json": rj.refute_verdict(v),
    }


class _Shown:
    """A printed verdict as the summary and the exit code read it: ``.status``, ``.mutants[i].status``."""

    def __init__(self, status: str, mutants=()):
        self.status, self.mutants = status, [_Shown(m) for m in mutants]

    @classmethod
    def of(cls, views) -> list:
        return [cls(v["status"], v["mutants"]) for v in views]


@main.command()
@click.argument("claim_ids", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Prove every claim.")
@seed_option
@json_option
@run_options
@from_option
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    callback=_verbose,
    help="Every step with its reason and how it was shown; the numeric check's dtype and cases; "
    "notes (e.g. a cache entry ignored, and why).",
)
def prove(claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_, verbose) -> None:
    """Derive each claim symbolically and check it numerically against PyTorch."""
    verdicts = _run("prove", claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_, verbose)
    from mathcheck.outcome import worst

    sys.exit(worst(v.status for v in verdicts).exit_code)


@main.command()
@click.argument("claim_ids", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Refute the mutants of every claim.")
@seed_option
@json_option
@run_options
@from_option
def refute(claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_) -> None:
    """Show that every mutant (a mistake people make) of each claim is refuted."""
    verdicts = _run("refute", claim_ids, all_, seed, as_json, device, dtype, jobs, no_cache, from_)
    from mathcheck.outcome import worst

    sys.exit(worst((r.status for r in verdicts), "holds").exit_code)  # a survivor: 1; a broken claim: 4


def _audit_sentences() -> list[dict]:
    """The sentence table of :mod:`mathcheck.audit` as rows; a claim it names that is not
    registered is the machinery's error (exit 4), not the user's."""
    from mathcheck import audit, registry

    known = {e.id for e in registry.entries(plugins=True)}
    rows = []
    for section, entries in audit.by_section().items():
        for e in entries:
            unknown = [c for c in e.claims if c not in known]
            if unknown:
                fail(f"audit entry {section} {e.zh[:20]!r} names claims that do not exist: {', '.join(unknown)}", 4)
            rows.append(
                {
                    "section": section,
                    "zh": e.zh,
                    "en": e.en,
                    "verdict": e.verdict,
                    "reason": e.reason,
                    "claims": list(e.claims),
                    "check": {"command": e.check_command, "status": e.check[2]} if e.check else None,
                }
            )
    return rows


def _echo_audit_sentences(rows: list[dict]) -> None:
    """``audit --all``'s text: per section its heading, then per sentence the verdict, the seed's words,
    the gloss, the reason and what supports it; then the counts."""
    from mathcheck import audit

    section = None
    for r in rows:
        if r["section"] != section:
            section = r["section"]
            click.echo(f"{section} {audit.SECTIONS[section]}")
        click.echo(f"  {r['verdict']}")
        click.echo(f"    seed: {r['zh']}")
        click.echo(f"    gloss: {r['en']}")
        click.echo(f"    reason: {r['reason']}")
        if r["claims"]:
            click.echo(f"    claims: {', '.join(r['claims'])}")
        if r["check"]:
            click.echo(f"    check: {r['check']['command']}  (gives {r['check']['status']})")
    total = audit.counts()["all"]
    click.echo(f"{len(rows)} sentences judged: " + ", ".join(f"{n} {v}" for v, n in total.items()))
    click.echo("")


@main.command()
@json_option
@click.option(
    "--all",
    "all_",
    is_flag=True,
    help="Every sentence of §1–§8 that states mathematics, judged (exact, holds-with-conditions, "
    "imprecise, wrong, not-mathematics), grouped by section, before the claims' verdicts.",
)
def audit(as_json: bool, all_: bool) -> None:
    """The seed's statements, each with its verdict: exact, holds-with-conditions, imprecise or wrong.

    Claims beyond the article (§9) cite a paper instead of a seed sentence; they are listed after
    the seed's own, with the citation. With --all, every sentence of the article that states
    mathematics comes first, with its verdict, reason and supporting claim (docs/claims.md)."""
    from mathcheck import registry

    try:
        claims = [e.build() for e in registry.entries(plugins=True)]
    except registry.LoadError as exc:
        fail(str(exc), exc.exit_code)
    rows = [
        {
            "id": c.id,
            "section": c.source.section,
            "zh": c.source.zh,
            "en": c.source.en,
            "verdict": c.seed_verdict[0],
            "note": c.seed_verdict[1],
            "beyond_article": bool(c.source.paper),
            "paper": c.source.paper,
            "title": c.title,
        }
        for c in claims
    ]
    sentences = _audit_sentences() if all_ else None
    if as_json:
        import json

        report = {"claims": rows}
        if all_:
            from mathcheck import audit as audit_table

            report.update(sentences=sentences, counts=audit_table.counts())
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    if all_:
        _echo_audit_sentences(sentences)
        click.echo("the claims' verdicts on the sentences they cite:")
    for r in rows:
        if r["beyond_article"]:
            continue
        click.echo(f"{r['section']:<5} {r['id']}: {r['verdict']}")
        click.echo(f"      seed: {r['zh']}")
        click.echo(f"      gloss: {r['en']}")
        if r["note"]:
            click.echo(f"      {'correction' if r['verdict'] in ('imprecise', 'wrong') else 'note'}: {r['note']}")
    beyond = [r for r in rows if r["beyond_article"]]
    if beyond:
        click.echo("beyond the article (each checks a paper's statement, not a seed sentence):")
    for r in beyond:
        click.echo(f"{r['section']:<5} {r['id']}: {r['verdict']} (beyond the article)")
        click.echo(f"      claim: {r['title']}")
        click.echo(f"      paper: {r['paper']}")
        if r["note"]:
            click.echo(f"      {'correction' if r['verdict'] in ('imprecise', 'wrong') else 'note'}: {r['note']}")
    from mathcheck.claim import SEED_VERDICTS

    counts = {v: sum(r["verdict"] == v for r in rows) for v in SEED_VERDICTS}
    counts = {v: n for v, n in counts.items() if n or v in SEED_VERDICTS[:3]}
    click.echo(
        "verdicts: "
        + ", ".join(f"{n} {v}" for v, n in counts.items())
        + (f" ({len(beyond)} beyond the article)" if beyond else "")
    )


@main.command(cls=ExpressionArguments)
@click.argument("lhs", required=False)
@click.argument("rhs", required=False)
@click.option(
    "--assume",
    multiple=True,
    metavar="NAME=PROP[,PROP]",
    cls=TableOption,
    table=_table("mathcheck.parser", "PROPERTIES"),
    help="Properties of a symbol: {table} (repeatable; symbols are real otherwise).",
)
@seed_option
@json_option
@click.option(
    "--timeout",
    type=TIMEOUT,
    default=30.0,
    show_default=True,
    help="Wall-clock budget of the whole check (with --file: of each row), in seconds.",
)
@click.option(
    "--file",
    "file_",
    metavar="FILE",
    help="Check every row of FILE: TSV lhs<TAB>rhs[<TAB>assume] or JSON lines {lhs, rhs, assume}.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="With --file: rows checked in parallel processes (same report as -j 1).",
)
def check(lhs, rhs, assume, seed, as_json, timeout, file_, jobs) -> None:
    """Check your identity LHS = RHS (or each row of --file FILE): symbolic proof, float64 test, verdict.

    The grammar (docs/check.md): numbers, names, + - * / ** ^, the functions {functions};
    diff(f, x[, order]), Sum(f, (i, a, b)), x[i], pi, E.
    A side may start with a minus sign (check 'log(sigmoid(x))' '-log(1+exp(-x))'); `--` before
    LHS also works.
    """
    import json

    if file_ is not None:
        if lhs is not None or assume:
            fail("--file reads the identities from FILE: drop LHS RHS and --assume (put them in the file)")
        _check_file(file_, seed, as_json, timeout, jobs)
    if lhs is None or rhs is None:
        fail("give LHS and RHS (e.g. mathcheck check 'x*(x+1)' 'x**2+x'), or --file FILE")
    if jobs != 1:
        fail("-j/--jobs runs the rows of --file FILE in parallel; one identity takes no -j")
    from mathcheck.usercheck import check as run_check

    result = run_check(lhs, rhs, assume=list(assume), seed=seed, timeout=timeout)
    if as_json:  # the one renderer asked for is imported
        from mathcheck.render import json as rj

        click.echo(json.dumps(rj.check_result(result), ensure_ascii=False, indent=2))
    elif result.status == "bad-input":
        click.echo(f"error: {result.message}", err=True)
    else:
        from mathcheck.render import text

        click.echo("\n".join(text.check_result(result)))
    sys.exit(result.exit_code)


def _check_file(path: str, seed: int, as_json: bool, timeout: float, jobs: int):
    """``check --file``: every row, in file order; a progress bar on a terminal only; worst exit code."""
    import json
    from mathcheck.userexpr import batch

    try:
        rows = batch.read_rows(path)
    except batch.FileError as exc:
        fail(str(exc))
    if sys.stderr.isatty():
        with click.progressbar(length=len(rows), label="checking", file=sys.stderr) as bar:
            results = batch.check_rows(rows, seed, timeout, jobs, on_done=lambda: bar.update(1))
    else:
        results = batch.check_rows(rows, seed, timeout, jobs)
    from mathcheck.render import json as rj, text

    from mathcheck.outcome import replay, worst

    status = worst(r.status for r in results)
    if as_json:
        click.echo(json.dumps(rj.check_batch(rows, results, batch.totals(results)), ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(text.check_batch(rows, results, batch.totals(results))))
        if status.word in ("refuted", "inconclusive"):  # -j changes no result: not in the line
            click.echo(
                "replay: "
                + replay(
                    "check",
                    [],
                    [("--file", path), ("--seed", seed), ("--timeout", None if timeout == 30.0 else timeout)],
                )
            )
    sys.exit(status.exit_code)


def _html_out(out):
    """derive's ``--html OUT.html``, checked as the command line is read: before anything is proved."""
    if out is not None:
        from mathcheck.render.html import unwritable

        if problem := unwritable(out):
            fail(problem)
    return out


@main.command()
@click.argument("files", nargs=-1, required=True, metavar="PATH...")
@seed_option
@json_option
@click.option(
    "--jsonl",
    "as_jsonl",
    is_flag=True,
    help="Stream JSON Lines as chains finish, in document order: one line per link (and per "
    "chain's statement), then a summary line.",
)
@click.option(
    "--timeout", type=TIMEOUT, default=30.0, show_default=True, help="Wall-clock budget of each link, in seconds."
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1, max=256),
    default=1,
    show_default=True,
    help="Links checked in parallel processes (same report as -j 1).",
)
@click.option(
    "--cluster",
    metavar="tcp://HOST:PORT",
    help="Check the links on this Dask distributed scheduler's workers (pip install "
    "'mathcheck[cluster]'; same report as -j 1).",
)
@click.option("--no-cache", is_flag=True, help="Check every link again: the cache is neither read nor written.")
@click.option("-v", "--verbose", is_flag=True, help="How every link was shown, not only the failing ones.")
@click.option(
    "--writeup",
    metavar="OUT.md",
    help="Also write the checked chains as Markdown: each link as typeset, "
    "marked proved/refuted, with its counterexample.",
)
@click.option(
    "--html",
    "html_out",
    metavar="OUT.html",
    callback=lambda ctx, param, out: _html_out(out),
    help="Also write the report as one self-contained HTML page (MathML, no network; docs/derive.md, HTML report).",
)
@click.option(
    "--macros",
    metavar="FILE",
    help="Read every LaTeX document with the \\newcommand, \\DeclareMathOperator and \\def of FILE "
    "(a book's macros in a file of their own; docs/latex.md).",
)
def derive(
    files, seed, as_json, as_jsonl, timeout, jobs, cluster, no_cache, verbose, writeup, html_out, macros
) -> None:
    """Check the derivation chains in PATH... (files, directories, quoted globs such as
    'docs/**/*.md'): plain text, ```mathcheck fences in Markdown, LaTeX display math (FILE.tex,
    and $$ / \\begin{align} blocks in Markdown; docs/latex.md), notebooks' Markdown cells (.ipynb).

    A chain: an optional '## name', 'assume: x=real', 'given: x >= 1' and 'let mu = ...' lines,
    the first expression, then one line per link starting with =, <=, <, >=, > or ≈, each with an
    optional '# reason' ('# within 5e-4' bounds a ≈ link). Every link is checked (symbolic proof +
    float64 test; ≈ measured, never proved), and the chain's statement numerically; a bad line
    fails its own chain only. A re-run reads unchanged links from the cache. Exit codes: 0 proved
    (or held within its bounds), 1 refuted, 2 bad input, 3 inconclusive (docs/derive.md).
    """
    import json
    from mathcheck import book, derive as d
    from mathcheck.render import json as rj, text

    if as_json and as_jsonl:
        fail("give --json (one report at the end) or --jsonl (a line per link as they finish), not both")
    if cluster and jobs != 1:
        fail("give -j N (processes here) or --cluster ADDRESS (the cluster's workers), not both")
    if cluster:
        try:
            book.check_address(cluster)
        except d.DeriveError as exc:
            fail(str(exc))
    if not no_cache:
        _cache_ready()
    quiet = as_json or as_jsonl
    progress = None if quiet or not sys.stderr.isatty() else text.DeriveProgress(sys.stderr)
    echo = None
    if as_jsonl:

        def echo(path, r):
            for line in rj.derive_lines(path, r):
                click.echo(json.dumps(line, ensure_ascii=False))
            sys.stdout.flush()
    elif not as_json:

        def echo(path, r):
            if progress is not None:
                progress.close()  # the chain's lines where the progress line was; it is redrawn after
            click.echo("\n".join(text.derive_chain(r.chain.path, r, verbose)))

    try:
        report = book.check_book(
            files,
            seed=seed,
            timeout=timeout,
            jobs=jobs,
            cluster=cluster,
            use_cache=not no_cache,
            on_chain=echo,
            on_progress=progress,
            macros=macros,
        )
    except d.DeriveError as exc:
        fail(str(exc))
    finally:
        if progress is not None:
            progress.close()
    if writeup:
        from pathlib import Path

        from mathcheck.render.markdown import derive_writeup

        Path(writeup).write_text(derive_writeup(report), encoding="utf-8")
    if html_out:
        from mathcheck.render import html

        html.write(rj.derive_report(report), html_out)
    if as_json:
        click.echo(json.dumps(rj.derive_report(report), ensure_ascii=False, indent=2))
    elif as_jsonl:
        click.echo(json.dumps(rj.derive_summary_line(report), ensure_ascii=False))
    else:
        click.echo(text.derive_summary(report))
        if report.status in ("refuted", "inconclusive"):  # bad input has its one line; nothing to replay
            click.echo(f"replay: {report.replay}")
    sys.exit(report.exit_code)


@main.command()
@click.option("--B", "B", default="2", show_default=True, metavar="INT", help="Batch size.")
@click.option("--L", "L", default="4", show_default=True, metavar="INT", help="Sequence length.")
@click.option("--D", "D", default="8", show_default=True, metavar="INT", help="Model width (divisible by H).")
@click.option("--H", "H", default="2", show_default=True, metavar="INT", help="Number of heads.")
@json_option
def shapes(B, L, D, H, as_json) -> None:
    """The forward pass's tensor shapes (seed §7.1): derived in B, L, D, H, observed in PyTorch."""
    from mathcheck.derivations.shapes import parse_sizes

    try:
        sizes = parse_sizes(B=B, L=L, D=D, H=H)
    except ValueError as exc:
        fail(str(exc))
    import json

    from mathcheck.outcome import exit_code
    from mathcheck.verify.shapes import shape_lines, shape_table

    report = shape_table(**sizes)
    click.echo(json.dumps(report, ensure_ascii=False, indent=2) if as_json else "\n".join(shape_lines(report)))
    if report["status"] != "ok":
        sys.exit(exit_code("refuted"))


@main.command()
@click.argument("claim_ids", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Write up every claim.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write to FILE (plots go beside it); default: print to stdout, without plots.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["latex", "markdown"]),
    default=None,
    help="Default: markdown for a .md FILE, else latex.",
)
@click.option(
    "--pdf", is_flag=True, help="Compile the LaTeX FILE with pdflatex (needs -o; skipped when FILE.pdf is current)."
)
@click.option(
    "--docs",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="Regenerate DIR/claims.md, DIR/plots/ and DIR/catalog.pdf (the committed catalog).",
)
@seed_option
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Claims proved (and plots drawn) in parallel processes.",
)
@click.option("--no-cache", is_flag=True, help="Prove again even if a cached verdict is current.")
def writeup(claim_ids, all_, output, fmt, pdf, docs, seed, jobs, no_cache) -> None:
    """A publishable writeup: LaTeX (or Markdown) with derivations, evidence, mutants and plots."""
    from pathlib import Path

    from mathcheck import writeup as w
    from mathcheck.outcome import exit_code

    if docs and (output or fmt or pdf):
        fail("--docs writes claims.md and catalog.pdf itself; drop -o/--format/--pdf")
    fmt = fmt or ("markdown" if output and output.endswith(".md") else "latex")
    if pdf and (fmt != "latex" or not output):
        fail("--pdf compiles a LaTeX file: give -o FILE.tex")
    problem = (
        w.output_problem(Path(output)) if output else w.output_problem(Path(docs), directory=True) if docs else None
    )
    if problem:  # before any proving
        fail(f"{'-o ' + output if output else '--docs ' + docs}: {problem}")
    entries = _entries(claim_ids, all_)
    if not no_cache:
        _cache_ready()
    if pdf and (problem := w.tex_problem()):  # TeX missing is the machine's input, not a failure: exit 2
        fail(problem)
    # on a terminal, a line for what is computed (a cold refute of every mutant takes minutes)
    progress = (lambda line: click.echo(line, err=True)) if sys.stderr.isatty() else None
    items = w.collect(entries, seed, jobs=jobs, use_cache=not no_cache, progress=progress)
    if docs:
        try:
            result = w.write_docs(items, Path(docs), seed, jobs)
        except RuntimeError as exc:
            fail(str(exc), exit_code("error"))
        click.echo(
            (
                "wrote " + ", ".join(map(str, result.written))
                if result.written
                else f"{docs}: up to date, nothing written"
            )
            + (f"; no PDF: {result.no_pdf}" if result.no_pdf else "")
        )
        return
    out = Path(output) if output else None
    rendered = w.markdown(items, out, seed, jobs=jobs) if fmt == "markdown" else w.latex(items, out, seed, jobs)
    if out is None:
        click.echo(rendered, nl=False)
        return
    click.echo(f"wrote {out}" if w.write_if_changed(out, rendered) else f"{out} is unchanged")
    if pdf:
        if w.pdf_is_current(out):
            click.echo(f"{out.with_suffix('.pdf')} is current (compiled from this very {out.name} and plots)")
            return
        result = w.compile_pdf(out)
        if result.missing:  # one line: the file and the package to install (the machine's input: exit 2)
            fail(w.compile_failure(result, out))
        for line in result.errors[:10] + tuple(f"undefined reference: {r}" for r in result.undefined):
            click.echo(f"  {line}", err=True)
        if not result.ok:
            fail(w.compile_failure(result, out), exit_code("error"))
        click.echo(f"wrote {result.pdf}")


@main.group()
def cache() -> None:
    """The proof cache: where it is, what it holds; clear it (docs/cache.md)."""


@cache.command("info")
def cache_info() -> None:
    """Where the cache is, how many verdicts it holds, its size."""
    _cache_ready()
    from mathcheck import cache_dir as cd

    entries, others = cd.files()
    where = cd.directory()
    click.echo(f"directory  {where}" + ("" if where.is_dir() else " (not created yet)"))
    click.echo(f"entries    {len(entries)}")
    click.echo(f"size       {cd.human(cd.size(entries + others))}")


@cache.command("clear")
def cache_clear() -> None:
    """Remove mathcheck's files from the cache folder (nothing else there)."""
    _cache_ready()
    from mathcheck import cache_dir as cd

    entries, others, freed = cd.clear()
    others_text = f" and {others} other file{'s' * (others != 1)}" if others else ""
    click.echo(
        f"removed {entries} entr{'y' if entries == 1 else 'ies'}{others_text} from {cd.directory()}: {cd.human(freed)}"
    )


@main.command()
@click.argument("target")
@click.option(
    "--kind",
    required=True,
    metavar="KIND",
    cls=TableOption,
    table=_table("mathcheck.conform.spec", "KINDS"),
    help="One of {table} (docs/conform.md).",
)
@click.option("--causal", is_flag=True, help="The implementation masks the future (is_causal=True).")
@click.option("--window", type=int, default=None, metavar="W", help="Causal sliding window of W keys.")
@click.option(
    "--positions",
    default="none",
    show_default=True,
    metavar="NAME",
    cls=TableOption,
    table=_table("mathcheck.conform.spec", "POSITIONS"),
    help="Positions the implementation adds inside: {table}.",
)
@click.option("--scale", type=float, default=None, metavar="S", help="Score scale used instead of 1/sqrt(D_head).")
@click.option(
    "--eps",
    type=float,
    default=None,
    metavar="EPS",
    help="layernorm/rmsnorm: the eps to test at (default: the module's own, else 0.1).",
)
@click.option(
    "--layout",
    default=None,
    metavar="bhld|blhd|lbd",
    help="Tensor layout: attention/gqa (B,H,L,D) or (B,L,H,D); mha (L,B,D) with lbd.",
)
@click.option(
    "--mask",
    default=None,
    metavar="CONVENTION",
    cls=TableOption,
    table=_table("mathcheck.conform.conventions", "MASKS"),
    help="attention: attn_mask as one of {table} (the first: the default).",
)
@click.option(
    "--gqa-grouping",
    default=None,
    metavar="interleaved|tiled",  # conventions.GROUPINGS (test_cli)
    help="gqa: query head h reads K/V head h // (H/G) (interleaved, default) or h mod G (tiled).",
)
@click.option(
    "--label-smoothing",
    type=float,
    default=None,
    metavar="EPS",
    help="cross-entropy: PyTorch's label smoothing (target (1-EPS)p + EPS/C).",
)
@click.option(
    "--temperature",
    type=float,
    default=None,
    metavar="T",
    help="kl: distillation fn(student_logits, teacher_logits) = T^2 KL(softmax(v/T)||softmax(z/T)).",
)
@click.option("--property", "only", multiple=True, metavar="NAME", help="Check only this property (repeatable).")
@click.option("--sizes", default=None, metavar="B=1,L=2", help="Sizes to check at (no shrinking), e.g. a replay.")
@click.option("--simple-values", is_flag=True, help="Small-integer inputs (as a replay line asks).")
@click.option(
    "--timeout",
    type=float,
    default=None,
    metavar="SECONDS",
    help="Time limit of each call into the target (default 60); past it: error, exit 4.",
)
@click.option(
    "--init",
    "init",
    multiple=True,
    metavar="KEY=VALUE",
    help="A keyword argument for the target or its constructor (repeatable), e.g. --init p=-1.0.",
)
@click.option(
    "--args",
    "args",
    default=None,
    metavar="NAME=ROLE,...",
    help="The role each parameter of the target plays, where conform cannot tell from its "
    "names, e.g. --args tensor=x,sin=sin,cos=cos (roles: the kind's parameters; rotary "
    "also x, k, cos, sin, freqs_cis, freqs, positions).",
)
@click.option(
    "--quick",
    is_flag=True,
    help="input-dtypes to L = 129 only and past-1024-keys not run (examples/gpt_attention.py: 1.6 s -> 0.14 s).",
)
@seed_option
@json_option
def conform(
    target,
    kind,
    causal,
    window,
    positions,
    scale,
    eps,
    layout,
    mask,
    gqa_grouping,
    label_smoothing,
    temperature,
    only,
    sizes,
    simple_values,
    timeout,
    init,
    args,
    quick,
    seed,
    as_json,
) -> None:
    """Hold your own implementation (FILE.py:FN or module:FN) to the derived properties of KIND.

    Exit 0: every expected property holds; 1: a property fails (with the smallest counterexample
    found and a replay line); 2: bad input; 3: inconclusive; 4: the target did not return (time
    limit) or exited (sys.exit, KeyboardInterrupt).
    """
    if SUPERVISED:
        from mathcheck.procs import supervise

        supervise(f"conform {target}")  # the target may end the process below Python: an error, never exit 0
    import json

    from mathcheck.conform.contain import DEFAULT_TIMEOUT, TargetAborted, watchdog
    from mathcheck.conform.spec import BadInput, Variant, parse_args, parse_init, parse_sizes
    from mathcheck.outcome import exit_code

    try:
        variant = Variant(
            init=tuple(parse_init(text) for text in init),
            causal=causal,
            window=window,
            positions=positions,
            scale=scale,
            eps=eps,
            layout=layout,
            mask=mask,
            gqa_grouping=gqa_grouping,
            label_smoothing=label_smoothing,
            temperature=temperature,
            timeout=None if timeout == DEFAULT_TIMEOUT else timeout,
            quick=quick,
            args=parse_args(args) if args is not None else (),
        )
        size_map = parse_sizes(sizes)
        from mathcheck.conform.run import conform as run_conform

        with watchdog(target):  # a call stuck in C, past the limit, ends the process (exit 4)
            report = run_conform(target, kind, variant, seed, only, size_map, simple_values)  # validates, loads
    except BadInput as exc:
        fail(str(exc))
    except TargetAborted as exc:
        fail(str(exc), exit_code("error"))
    from mathcheck.render import json as rj, text

    if as_json:
        click.echo(json.dumps(rj.conform_report(report), ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(text.conform_report(report)))
    sys.exit(report.exit_code)


@main.command()
@click.argument("spec")
@click.option("--hidden", type=int, default=64, show_default=True, help="hf: hidden size.")
@click.option("--layers", type=int, default=2, show_default=True, help="hf: number of layers.")
@click.option("--heads", type=int, default=4, show_default=True, help="hf: attention heads.")
@click.option(
    "--kv-heads", type=int, default=None, help="hf: key/value heads (default 2 where the architecture has them)."
)
@click.option(
    "--attn-implementation",
    "attn",
    default="sdpa",
    show_default=True,
    metavar="sdpa|eager",
    help="hf: transformers' attention implementation.",
)
@click.option(
    "--causal/--bidirectional",
    default=None,
    help="Declare the model causal or bidirectional (default: the config; causal for a factory).",
)
@click.option("--length", type=int, default=6, show_default=True, metavar="L", help="Tokens per sequence.")
@click.option(
    "--input-name",
    default=None,
    metavar="NAME",
    help="The forward's parameter for the token ids (default: input_ids, else its first parameter).",
)
@click.option(
    "--cache-arg",
    default=None,
    metavar="NAME",
    help="The forward's parameter for the KV cache (default: past_key_values or cache, with use_cache).",
)
@seed_option
@json_option
def model(spec, hidden, layers, heads, kv_heads, attn, causal, length, input_name, cache_arg, seed, as_json) -> None:
    """Hold a whole Transformer (hf:<model_type> or FILE.py:factory) to the derivations (docs/model.md).

    Exit 0: every expected property holds; 1: a property fails (module path, claim, replay line);
    2: bad input; 3: inconclusive.
    """
    if SUPERVISED and not spec.startswith("hf:"):
        from mathcheck.procs import supervise

        supervise(f"model {spec}")  # its code may end the process below Python: an error, never exit 0
    import json

    from mathcheck.conform.contain import TargetAborted
    from mathcheck.procs import describe
    from mathcheck.conform.spec import BadInput
    from mathcheck.outcome import exit_code

    try:
        from mathcheck.model.load import Sizes
        from mathcheck.model.run import check_model

        report = check_model(
            spec,
            Sizes(hidden, layers, heads, kv_heads),
            attn,
            seed,
            causal,
            length,
            input_name=input_name,
            cache_arg=cache_arg,
        )
    except BadInput as exc:
        fail(str(exc))
    except TargetAborted as exc:  # the factory or a sub-layer held through conform did not return
        fail(f"{spec}: {exc}", exit_code("error"))
    except SystemExit as exc:  # the model's own forward called sys.exit(): an error, never a success
        fail(f"{spec}: raised {describe(exc)} (a model must return or raise an Exception)", exit_code("error"))
    from mathcheck.render import json as rj, text

    click.echo(
        json.dumps(rj.model_report(report), ensure_ascii=False, indent=2)
        if as_json
        else "\n".join(text.model_report(report))
    )
    sys.exit(report.exit_code)


if __name__ == "__main__":
    main()
