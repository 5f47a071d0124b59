"""The step checker (the part walker): every link of a part checked under its hypotheses, rules applied where cited.

A part states ``given ⇒ e0 REL en``. :func:`check_part` walks its steps: a step that cites a rule
has the rule applied to the previous expression (side conditions checked against the part, see
:func:`mathcheck.symbolic.rules.trusted` for what is taken on a rule's word), then the link is
decided by :func:`~mathcheck.symbolic.decide.relation_test`. The part is ``proved`` only if every
link is; ``refuted`` if one is refuted; its generality is computed, never taken on trust.
:func:`replay` applies a part's rules to another left-hand side (how a mutant is derived).

    >>> from mathcheck.lazy import sympy as sp
    >>> from mathcheck.claim import Part, Step
    >>> x = sp.Symbol("x", positive=True)
    >>> check_part(Part("log", (Step(sp.log(2 * x), ""), Step(sp.log(2) + sp.log(x), "")))).status
    'proved'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mathcheck.budget import attempt
from mathcheck.claim import Context, Part
from mathcheck.outcome import worst
from mathcheck.symbolic import hypotheses as hyp
from mathcheck.symbolic import rules
from mathcheck.symbolic.context import range_hypothesis
from mathcheck.symbolic.decide import DEFAULT_ATTEMPT_S, DEFAULT_STEP_S, Decision, difference, relation_test, zero_test

if TYPE_CHECKING:
    from mathcheck.lazy import sympy as sp


@dataclass(frozen=True)
class StepResult:
    part: str
    index: int
    expr: Any
    reason: str
    rule: str
    decision: Decision | None  # None for the first step, which states what is being derived
    relation: str = "="  # how the previous expression relates to this one

    @property
    def status(self) -> str:
        return "given" if self.decision is None else self.decision.status


@dataclass(frozen=True)
class PartResult:
    name: str
    statement: Any
    general: bool | None  # computed: symbolic size kept (True), concrete size (False), no size (None)
    status: str
    steps: tuple[StepResult, ...]
    notes: tuple[str, ...] = field(default=())
    relation: str = "="
    given: tuple = ()  # the hypotheses the statement is proved under (given ⇒ statement)

    @property
    def failing(self) -> StepResult | None:
        for s in self.steps:
            if s.status in ("refuted", "inconclusive"):
                return s
        return None


def _apply_rule(rule, prev, cur, env, pctx, attempt_s, step_s):
    """``(target, current, None)`` or ``(None, None, Decision)`` when the rule may not be used here.

    What is trusted of each kind is :func:`mathcheck.symbolic.rules.trusted`: definitions (notation)
    and axioms are hypotheses of the statement, printed with it; ``calculus`` and ``sympy`` rules built
    by :mod:`mathcheck.symbolic.rules` are the trusted base; a rule built there with a side-condition
    check is used once the check passes (a ``lemma``/``assumption`` rule must have one); any other
    rule (a ``transform``, or any rule built by hand with ``Rule(...)``, with or without ``check=``)
    is used only once the zero test shows its output equals its input."""
    if rule.kind in rules.CHECKED_KINDS and rule.check is None:
        return (
            None,
            None,
            Decision(
                None,
                f"side condition not checked: a {rule.kind} rule must cite a "
                f"proved part (rules.lemma) or a hypothesis (rules.substitute)",
            ),
        )
    try:
        ok, target = attempt(lambda: rule.applied(prev, env), attempt_s)
        new_cur = cur
        if ok and rule.both_sides:
            ok, new_cur = attempt(lambda: rule.apply(cur), attempt_s)
    except rules.SideCondition as exc:
        return None, None, Decision(None, f"side condition not met: {exc}")
    except Exception as exc:  # noqa: BLE001 — a rule SymPy cannot apply here shows nothing
        return None, None, Decision(None, f"applying {rule.name} raised {type(exc).__name__}: {str(exc)[:120]}")
    if not ok:
        return None, None, Decision(None, f"applying {rule.name} ran out of time", timed_out=True)
    if not rules.trusted(rule):
        for before, after in ((prev, target),) + (((cur, new_cur),) if rule.both_sides else ()):
            if after == before:
                continue
            d = zero_test(difference(before, after), pctx, attempt_s, step_s)
            if d.value is not True:
                return (
                    None,
                    None,
                    Decision(
                        d.value if d.value is False else None,
                        f"the rule {rule.name!r} changes the expression: its output is "
                        f"not shown equal to its input ({d.how})",
                        d.counterexample,
                        timed_out=d.timed_out,
                    ),
                )
    return target, new_cur, None


def check_part(
    part: Part,
    ctx: Context = Context(),
    attempt_s: float = DEFAULT_ATTEMPT_S,
    step_s: float = DEFAULT_STEP_S,
    proved: tuple = (),
    names: tuple = (),
) -> PartResult:
    """Check every link of ``part`` under its hypotheses; the part is proved only if every link is.

    ``proved`` are the claim's parts proved so far, ``((name, statement, hypotheses), ...)``: the
    only ones a lemma may cite. ``names`` are all the claim's part names (for the error message)."""
    given = hyp.hypotheses(part, ctx)
    pctx = Context(ctx.indices, ctx.sample, ctx.definitions, given)
    symbols = set(getattr(part.lhs, "free_symbols", set())) | set(getattr(part.rhs, "free_symbols", set()))
    for h in given:
        symbols |= getattr(h, "free_symbols", set())
    claim_wide = tuple(range_hypothesis(v, lo, hi) for v, lo, hi in ctx.indices)
    env = rules.Env(given, tuple(proved), frozenset(symbols), tuple(names), claim_wide)
    results = [StepResult(part.name, 0, part.steps[0].expr, part.steps[0].reason, "", None, "")]
    prev = part.steps[0].expr
    for n, step in enumerate(part.steps[1:], start=1):
        target, current = prev, step.expr
        rule_name = step.rule.name if step.rule is not None else ""
        if step.rule is not None:
            target, current, refusal = _apply_rule(step.rule, prev, step.expr, env, pctx, attempt_s, step_s)
            if refusal is not None:
                results.append(StepResult(part.name, n, step.expr, step.reason, rule_name, refusal, step.relation))
                prev = step.expr
                continue
        d = relation_test(target, current, step.relation, pctx, attempt_s, step_s)
        results.append(StepResult(part.name, n, step.expr, step.reason, rule_name, d, step.relation))
        prev = step.expr
    notes = []
    statuses = [r.status for r in results[1:]]
    status = worst(statuses).word  # refuted > inconclusive > proved (a premise, "given", counts as proved)
    for sym in part.free_of:
        if part.rhs.has(sym):
            status = "refuted"
            notes.append(f"the result depends on {sym}, but the claim says it does not")
        else:
            notes.append(f"the result does not contain {sym}")
    general, why = hyp.generality(part, ctx)
    notes.append(f"general: {why}")
    if part.general is not None and bool(part.general) != (general is True):
        status = "error"
        notes.append(f"declared general={part.general}, but the computed generality is {general} ({why})")
    return PartResult(
        part.name,
        part.statement,
        general,
        status,
        tuple(results),
        tuple(notes),
        part.relation,
        given + hyp.relied_on(part, ctx),
    )


def check_parts(
    parts, ctx: Context = Context(), attempt_s: float = DEFAULT_ATTEMPT_S, step_s: float = DEFAULT_STEP_S
) -> tuple[PartResult, ...]:
    """Check the parts of a claim in order; a lemma may cite a part proved before it."""
    names = tuple(p.name for p in parts)
    proved: list = []
    out = []
    for p in parts:
        r = check_part(p, ctx, attempt_s, step_s, tuple(proved), names)
        if r.status == "proved":
            proved.append((p.name, p.statement, r.given))
        out.append(r)
    return tuple(out)


def replay(part: Part, lhs, attempt_s: float = DEFAULT_ATTEMPT_S) -> sp.Basic | None:
    """Apply the part's rules, in order, to another left-hand side (algebra steps keep it as is).

    This is how a mutant that changes a part's left-hand side is derived with the same machinery.
    """
    e = lhs
    for step in part.steps[1:]:
        if step.rule is not None:
            ok, e = attempt(lambda: step.rule.apply(e), attempt_s)
            if not ok:
                return None
    return e
