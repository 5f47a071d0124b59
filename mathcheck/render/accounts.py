"""How a ``mathcheck derive`` link or statement was decided, in words, for every renderer.

``derive`` keeps a checked link's account as plain data (``StepReport.account``; the proof cache and
``-j``'s workers carry it): the check's own ``how`` and ``message``, its symbolic side's ``status``
and ``how``, and its numeric side's ``status``, ``points``, ``skipped``, ``note`` and ``summary``.
A statement's numeric side is its ``"numeric"`` entry. Both keep an empty ``how`` (every result
the cache stores has one); the words are made here only.

    >>> numeric({"status": "passed", "points": 24, "skipped": 0, "note": None, "summary": None})
    'float64 agrees at 24 points'
    >>> link_words("proved", {"how": "expand", "message": "", "symbolic": {"status": "proved", "how": "expand"},
    ...                       "numeric": {"status": "passed", "points": 24, "skipped": 2, "note": None, "summary": None}})
    'expand; float64 agrees at 24 points (2 more where a side is not real)'
    >>> link_words("inconclusive", {"how": "unknown functions: ValueError: …", "message": "", "symbolic": None,
    ...                             "numeric": None})
    'unknown functions: ValueError: …'
"""

from __future__ import annotations


def link(step) -> str:
    """How a link (a ``derive.StepReport``) was decided: from its account, or its ``how`` where it
    has none (a ``≈`` link's measurement, a definition, a check that failed)."""
    account = getattr(step, "account", None)
    return step.how if account is None else link_words(step.status, account)


def link_words(status: str, account: dict) -> str:
    """Which side refuted the link, or both sides' account; a bad link's message."""
    if status == "bad-input":
        return account["message"]
    sym = account["symbolic"]
    if status == "refuted":
        side = "symbolic" if sym is not None and sym["status"] == "refuted" else "numeric"
        return f"{side}: {account['how']}"
    if sym is None and account["numeric"] is None:  # neither side ran: the check's own words (its failure)
        return account["how"] or account["message"]
    return f"{sym['how'] if sym else ''}; {numeric(account['numeric'])}"


def numeric(num: dict | None) -> str:
    """A numeric side (None: not run) in words."""
    if num is None:
        return "numeric None"
    if num["summary"]:  # a numeric side that words its own account (userexpr.probability)
        return num["summary"]
    if num["status"] == "passed":
        notes = [num["note"]] if num["note"] else []
        if num["skipped"]:  # counted and shown, never silently dropped
            notes.append(f"{num['skipped']} more where a side is not real")
        extra = f" ({'; '.join(notes)})" if notes else ""
        return f"float64 agrees at {num['points']} points{extra}"
    if num["status"] == "refuted" and num["note"]:  # e.g. a side is not real: no float64 value
        return f"{num['note']}, confirmed at 50 digits"
    if num["status"] == "refuted":
        return "float64 disagrees at a point, confirmed at 50 digits"
    return f"numeric {num['status']}" + (f" ({num['note']})" if num["note"] else "")


def statement(st: dict) -> dict:
    """A chain's statement as the reports show it: its numeric side (``"numeric"``) in words as its
    ``"how"``; a statement already in words (``≈``, a definition, bad input) as it is.

        >>> statement({"relation": "=", "status": "passed", "how": "", "numeric": None, "values": None})
        {'relation': '=', 'status': 'passed', 'how': 'numeric None', 'values': None}
    """
    if "numeric" not in st:
        return st
    return {k: numeric(st["numeric"]) if k == "how" else v for k, v in st.items() if k != "numeric"}
