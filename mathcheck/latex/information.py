r"""Entropy and mutual information of random variables, as d2l's information theory writes them:
``H(X)``, ``H(X, Y)``, ``H(Y \mid X)``, ``I(X, Y)`` — quantities of one finite joint law of X and Y
(docs/probability.md), read where the document defines H (or I) in a display mathcheck does not read
(``H(X) = -E_{x \sim P}[\log p(x)]``), so a link in them is checked rather than refused.

Each is rewritten to an expectation under the joint law ``p`` of the lowercase variables, declared
for the chain (``assume: p(x, y) law``), by the definitions the document gives:

* ``H(X)`` → ``-E_p(log p(x))``; ``H(X, Y)`` → ``-E_p(log p(x, y))``;
* ``H(Y | X)`` → ``-E_p(log p(y | x))``; ``I(X, Y)`` → ``E_p(log p(x, y) - log p(x) - log p(y))``;

the log base 2 where the prose says a plain log is log_2. The symbolic side proves a link with the
rules of symbolic/laws.py (the chain rule needs p(x) > 0, which no one stated: such a link stays
inconclusive saying so); the numeric side draws finite joint laws. A law is all the chain knows of X
and Y: what the prose may say of them (one an invertible function of the other, independence) is not
read, so a link that fails at a drawn law is inconclusive, saying what to state — never refuted.

    >>> from mathcheck.chains import Line
    >>> out = rewrite([Line(1, None, "H(Y | X)"), Line(1, "=", "H(X, Y) - H(X)")], base2=True)
    >>> [s.text for s in out[0]], out[1]
    (['(-E_p(log(p(y | x), 2)))', '(-E_p(log(p(x, y), 2))) - (-E_p(log(p(x), 2)))'], 'p(x, y) law')
"""

from __future__ import annotations

import re
from dataclasses import replace

# H(X), H(X, Y), H(Y | X), I(X, Y) as the LaTeX reader writes them; one capital letter each
QUANTITY = re.compile(r"(?<![A-Za-z0-9_])(H|I)\(([A-Z])(?:(, | \| )([A-Z]))?\)")
LAW = "p"
# the chain's marker for prose_facts: userexpr.probability says what a refutation then means
PROSE = "law:"


def names(texts) -> set:
    """The information quantities (H, I) the texts apply to random variables."""
    return {m.group(1) for t in texts for m in QUANTITY.finditer(t)}


def rewrite(steps, base2: bool) -> tuple:
    """``(steps, fact)``: the steps with every H/I of random variables written as an expectation
    under one joint law, and the fact declaring it; ``(steps, None)`` where the chain is not one of
    these (a variable also used otherwise, a lowercase name or ``p`` already used, more than two
    random variables, I with one argument)."""
    texts = [s.text for s in steps]
    found = [m for t in texts for m in QUANTITY.finditer(t)]
    if not found:
        return steps, None
    order: list = []
    for m in found:
        if m.group(1) == "I" and m.group(3) != ", ":
            return steps, None
        for v in (m.group(2), m.group(4)):
            if v and v not in order:
                order.append(v)
    rest = [QUANTITY.sub("", t) for t in texts]
    order.sort()
    lower = [v.lower() for v in order]
    rest, others = _laws_applied(rest, lower)
    words = {w for t in rest for w in re.findall(r"[A-Za-z_]\w*", t)}
    if len(order) > 2 or others is None or words & (set(order) | set(lower) | {LAW} | set(others)):
        return steps, None
    tail = ", 2)" if base2 else ")"

    def log(*v: str, given: str = "") -> str:
        inner = ", ".join(x.lower() for x in v) + (f" | {given.lower()}" if given else "")
        return f"log({LAW}({inner}){tail}"

    def one(m) -> str:
        kind, a, sep, b = m.groups()
        if kind == "I":
            return f"E_{LAW}({log(a, b)} - {log(a)} - {log(b)})"
        if sep == " | ":
            return f"(-E_{LAW}({log(a, given=b)}))"
        return f"(-E_{LAW}({log(a, b) if b else log(a)}))"

    out = tuple(replace(s, text=QUANTITY.sub(one, s.text)) for s in steps)
    laws = [f"{LAW}({', '.join(lower)})"] + [f"{q}({', '.join(v)})" for q, v in sorted(others.items())]
    return out, ", ".join(laws) + (" laws" if others else " law")


# d2l's -E_{x \sim P}[\log q(x)] beside H(X): an expectation under the law p, over the variables
# of H, of a law written in them (the reader's E_p(f, x), p(x), q(x))
_APPLIED = re.compile(r"(?<![A-Za-z0-9_])([a-z])\(([a-z](?:, [a-z])*)(?: \| ([a-z](?:, [a-z])*))?\)")
_UNDER = re.compile(rf"(?<![A-Za-z0-9_])E_{LAW}\(")
_OVER = re.compile(r", ([a-z](?:, [a-z])*)\)")


def _laws_applied(rest: list, lower: list):
    """The texts without the laws applied to H's variables (``p(x)``, ``q(x)``, ``E_p(…, x)``), and the
    laws other than p with their variables; None for those when a law is applied elsewhere or to
    other variables, or another law's variables change (q(x) and q(y))."""
    others: dict = {}
    out = []
    for t in rest:
        for m in _APPLIED.finditer(t):
            name, over, given = m.group(1), m.group(2).split(", "), m.group(3)
            if not set(over) | set(given.split(", ") if given else ()) <= set(lower):
                return rest, None
            if name != LAW:
                if given or others.setdefault(name, tuple(over)) != tuple(over):
                    return rest, None
        t = _APPLIED.sub(" ", t)
        t = _UNDER.sub("(", t)
        t = _OVER.sub(lambda m: ")" if set(m.group(1).split(", ")) <= set(lower) else m.group(0), t)
        out.append(t)
    return out, others
