"""The conform report as text (the JSON is ``Report.to_json``)."""

from __future__ import annotations

LABEL = {"holds": "holds", "fails": "FAILS", "not expected to hold": "not expected to hold",
         "reported": "reported", "inconclusive": "inconclusive"}


UNSTABLE = {"finite-large-logits"}  # fails alone: the formula is right, its evaluation overflows


def _num(x) -> str:
    if x is None:
        return "-"
    return f"{x:.3g}"


def _pair(a, b) -> tuple[str, str]:
    """The derived value and yours with enough digits to tell them apart (3 unless they print equal)."""
    if a is None or b is None:
        return _num(a), _num(b)
    for digits in range(3, 18):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y:
            return x, y
    return x, y


def lines(report) -> list[str]:
    flags = " ".join(report.variant.flags())
    out = [f"conform {report.target}  kind {report.kind}{'  ' + flags if flags else ''}  seed {report.seed}"]
    out += [f"  {line}" for line in report.setting]
    if report.nondeterministic:
        out.append(f"status: inconclusive ({report.nondeterministic})")
        return out
    wn = max(len(r.name) for r in report.results)
    wc = max(len(r.claim) for r in report.results)
    for r in report.results:
        head = f"  {LABEL[r.status]:<20}  {r.name:<{wn}}  {r.claim:<{wc}}"
        if r.status in ("holds", "fails") and r.tolerance is not None and r.max_abs_err is not None \
                and r.expected == "holds" and (r.tolerance or r.max_abs_err):
            head += f"  max |err| {_num(r.max_abs_err)}, tolerance {_num(r.tolerance)}"
        out.append(head.rstrip())
        if r.note:
            out.append(f"      {r.note}")
        cx = r.counterexample
        if r.status == "fails" and cx:
            sizes = " ".join(f"{k}={v}" for k, v in cx["sizes"].items())
            out.append(f"      property: {r.doc}")
            out.append(f"      smallest input found: {sizes} ({cx['values']} values)")
            if cx.get("compared"):
                out.append(f"      compared: {cx['compared']}")
            if cx.get("entry") is not None:
                derived, yours = _pair(cx["derived"], cx["user"])
                out.append(f"      worst entry {tuple(cx['entry'])} (largest |err|/tol): derived {derived}, yours {yours}")
            out.append(f"      claim: {r.claim} (mathcheck show {r.claim})")
            out.append(f"      replay: {cx['replay']}")
    n_fail = len(report.failed)
    if report.status == "fails" and set(report.failed) <= UNSTABLE:
        out.append(f"status: fails (numerically unstable: {', '.join(report.failed)} fails at large logits "
                   f"while the formula holds at ordinary ones)")
        return out
    tail = {"holds": "every expected property holds",
            "fails": f"{n_fail} propert{'y' if n_fail == 1 else 'ies'} fail{'s' if n_fail == 1 else ''}: "
                     + ", ".join(report.failed),
            "inconclusive": "inconclusive: a derived side could not be evaluated"}[report.status]
    out.append(f"status: {report.status} ({tail})")
    return out
