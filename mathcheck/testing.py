"""Assertions for ordinary tests: keep your derivations green as your code changes.

    from mathcheck.testing import assert_identity, assert_proved

    def test_softplus_derivative():
        assert_identity("diff(log(1 + exp(x)), x)", "sigmoid(x)")

    def test_my_attention_claim():
        assert_proved("alibi-query-term-cancels", from_="examples/alibi_claims.py")

A failure is an ``AssertionError`` whose message is the failing step or the counterexample and the
command that replays it, not a traceback into mathcheck. Nothing heavy is imported until called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["assert_proved", "assert_identity", "assert_conforms", "assert_model_conforms", "ClaimFailed"]

if TYPE_CHECKING:  # names for the annotations only: nothing heavy is imported until called
    from mathcheck.conform.run import Report
    from mathcheck.model.report import ModelReport
    from mathcheck.userexpr.relation import CheckResult
    from mathcheck.verdict import ClaimVerdict


class ClaimFailed(AssertionError):
    """A claim that is not proved, a mutant that survived, or an identity that is not proved."""


def _entry(claim_or_id, from_=None):
    from mathcheck import registry

    if isinstance(claim_or_id, str):
        try:
            if from_ is not None:
                registry.load_from(str(from_))
            return registry.entry(claim_or_id)
        except registry.LoadError as exc:
            raise ClaimFailed(str(exc)) from None
        except registry.UnknownClaim as exc:
            hint = (
                "" if from_ is not None else "; if it is yours, name its file: assert_proved(id, from_='my_claims.py')"
            )
            raise ClaimFailed(f"{exc}{hint}") from None
    if isinstance(claim_or_id, registry.Entry):
        return claim_or_id
    return None  # a Claim value


def _plain(lines) -> list[str]:
    """Without terminal colours, and without the renderer's replay line (ours comes last)."""
    import click

    return [click.unstyle(line) for line in lines if "replay:" not in click.unstyle(line)]


def prove_message(verdict) -> str:
    """The failing step or counterexample of a claim verdict, and the command that replays it."""
    from mathcheck.render import text

    lines = _plain(text.claim_verdict(verdict))
    lines.append(f"    replay: {verdict.replay}")
    return "\n".join(lines)


def refute_message(verdict) -> str:
    """The mutants that survived, with their evidence, and the command that replays them."""
    from mathcheck.render import text

    lines = _plain(text.refute_verdict(verdict))  # a build error among them
    survivors = [m.name for m in verdict.mutants if m.status != "refuted"]
    if survivors:
        lines.append(f"    not refuted: {', '.join(survivors)}")
    lines.append(f"    replay: {verdict.replay}")
    return "\n".join(lines)


def assert_proved(claim_or_id, seed: int = 0, mutants: bool = True, from_=None) -> ClaimVerdict:
    """Prove a claim (its id, a registry entry, or a :class:`~mathcheck.claim.Claim`) and, unless
    ``mutants=False``, refute every one of its mutants. Returns the claim's verdict.

    ``from_`` names the file (or module) that defines the claim, as ``--from`` does; it is loaded
    once per process. An id that names no claim is an ``AssertionError`` saying so."""
    from mathcheck import engine
    from mathcheck.verify import Options

    options = Options(seed=seed)
    entry = _entry(claim_or_id, from_)
    from_ = (str(from_),) if from_ is not None else ()  # the replay line names the file
    verdict = (
        engine.verdict(entry, "prove", options, from_=from_)
        if entry is not None
        else engine.prove(claim_or_id, options)
    )
    if verdict.status != "proved":
        raise ClaimFailed(f"claim {verdict.claim.id} is {verdict.status}\n" + prove_message(verdict))
    if mutants:
        r = (
            engine.verdict(entry, "refute", options, from_=from_)
            if entry is not None
            else engine.refute(claim_or_id, options)
        )
        if not r.all_refuted:
            raise ClaimFailed(f"claim {r.claim.id}: a mutant was not refuted\n" + refute_message(r))
    return verdict


def assert_identity(lhs: str, rhs: str, assume=None, seed: int = 0, timeout: float = 30.0) -> CheckResult:
    """Assert that ``lhs = rhs`` is *proved* by ``mathcheck check`` (symbolically and numerically).

    ``assume`` maps names to properties, e.g. ``{"n": ("positive", "integer")}``. Returns the
    :class:`~mathcheck.usercheck.CheckResult`.
    """
    from mathcheck.usercheck import check

    result = check(lhs, rhs, assume=assume, seed=seed, timeout=timeout)
    if result.status != "proved":
        from mathcheck.render import text

        raise ClaimFailed(
            "\n".join(text.check_result(result)) if result.status != "bad-input" else f"bad input: {result.message}"
        )
    return result


def assert_conforms(
    fn,
    kind: str = "attention",
    causal: bool = False,
    window=None,
    positions: str = "none",
    scale=None,
    seed: int = 0,
    eps=None,
    layout=None,
    mask=None,
    gqa_grouping=None,
    timeout=None,
    quick: bool = False,
    init=None,
    args=None,
) -> Report:
    """Hold ``fn`` to the derived properties of ``kind`` (see ``mathcheck conform``); an
    :class:`AssertionError` carries the same report, counterexamples and replay lines. Returns it.

        def test_my_attention():
            assert_conforms(my_model.attention, kind="attention", causal=True)

    ``eps``, ``layout``, ``mask``, ``gqa_grouping`` are the command's ``--eps``, ``--layout``, ``--mask``,
    ``--gqa-grouping`` (docs/conform.md, *Conventions*); ``timeout`` the seconds each call into
    ``fn`` may take (``--timeout``): past it, or when ``fn`` calls ``sys.exit``, the assertion fails
    with ``error: …`` (never a pass, never the test run's exit); ``quick`` is ``--quick``, ``init``
    a dict of ``--init`` keywords (``{"p": -1.0}``), ``args`` a dict of ``--args`` roles
    (``{"tensor": "x", "sin": "sin", "cos": "cos"}``). Each call draws from its own seeded generators (no global state), so it runs the same under
    pytest-xdist.
    """
    from mathcheck.conform.contain import TargetAborted
    from mathcheck.conform.run import conform
    from mathcheck.conform.spec import BadInput, Variant

    variant = Variant(
        causal=causal,
        window=window,
        positions=positions,
        scale=scale,
        eps=eps,
        layout=layout,
        mask=mask,
        gqa_grouping=gqa_grouping,
        timeout=timeout,
        quick=quick,
        init=tuple((init or {}).items()),
        args=tuple((args or {}).items()),
    )
    try:
        report = conform(fn, kind, variant, seed=seed)
    except BadInput as exc:
        raise ClaimFailed(f"bad input: {exc}") from None
    except TargetAborted as exc:
        raise ClaimFailed(f"error: {exc}") from None
    if report.status != "holds":
        from mathcheck.render import text

        raise ClaimFailed("\n".join(text.conform_report(report)))
    return report


def assert_model_conforms(model_or_factory, causal=None, seed: int = 0, length: int = 6) -> ModelReport:
    """Hold a whole model to the derivations (see ``mathcheck model``): an ``nn.Module``, a factory
    called with no arguments, or a SPEC string (``"hf:llama"``, ``"my_model.py:factory"``). Its
    forward takes ``input_ids`` (B, L) and returns logits (B, L, V) or an object with ``.logits``.
    An :class:`AssertionError` carries the report: module paths, claims, replay lines. Returns it.

        def test_my_gpt():
            assert_model_conforms(lambda: GPT(vocab=64, d=32))
    """
    from mathcheck.conform.spec import BadInput
    from mathcheck.model.load import from_module
    from mathcheck.model.run import check_model

    try:
        if isinstance(model_or_factory, str):
            report = check_model(model_or_factory, seed=seed, causal=causal, length=length)
        else:
            label = getattr(model_or_factory, "__qualname__", type(model_or_factory).__name__)
            loaded = from_module(model_or_factory, label, seed, causal)
            report = check_model(label, seed=seed, causal=causal, length=length, loaded=loaded)
    except BadInput as exc:
        raise ClaimFailed(f"bad input: {exc}") from None
    if report.status != "holds":
        from mathcheck.render import text

        raise ClaimFailed("\n".join(text.model_report(report)))
    return report
