"""``mathcheck derive --html OUT.html``: the derive report as one self-contained HTML page.

Built from the JSON report (:func:`mathcheck.render.json.derive_report`, what ``derive --json``
prints), so a saved JSON report turns into the same page (``python -m mathcheck.render.html
REPORT.json OUT.html``). The page needs no network and runs no script: the math is MathML, which
the browser typesets itself, converted from the author's LaTeX by ``latex2mathml`` (a display it
cannot convert is shown as its LaTeX in ``<code>``); a Content-Security-Policy of ``default-src
'none'`` forbids every fetch. Each link carries its status word (``data-status``) and the mark
:func:`mathcheck.render.text.mark` gives it; the reading (the link as mathcheck read it), how it
was decided and the counterexample open on demand (``<details>``). A display of the document that
holds no checked link (no relation, ``% mathcheck: skip``) is shown ``not read``. Same report and
documents → the same bytes.

    >>> page = derive_html({"files": [], "status": "proved", "seed": 0, "replay": "mathcheck derive --seed 0"})
    >>> page.startswith("<!DOCTYPE html>"), "<script" in page
    (True, False)
"""

from __future__ import annotations

import html
import os
import re
import sys
from typing import NamedTuple

from mathcheck.render.text import mark

NOT_READ = "not read"  # a display of the document with no checked link: no status word, no exit code
_ORDER = ("proved", "holds-within", "definition", "refuted", "inconclusive", "bad-input", "error")
_COLOURS = {
    "green": "#1a7f37",
    "red": "#cf222e",
    "yellow": "#9a6700",
    "magenta": "#8250df",
    "cyan": "#0969da",
    "blue": "#3b5bdb",
    None: "#57606a",
}  # the statuses' terminal colours (outcome.Status), on white


# --- MathML ---------------------------------------------------------------------------------------

_MATHML_TAGS = frozenset(
    (
        "math",
        "mrow",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "msub",
        "msup",
        "msubsup",
        "mfrac",
        "msqrt",
        "mroot",
        "mstyle",
        "munder",
        "mover",
        "munderover",
        "mtable",
        "mtr",
        "mtd",
        "mpadded",
        "mphantom",
        "menclose",
        "mfenced",
    )
)
_MATHML_ATTRS = frozenset(
    (
        "xmlns",
        "display",
        "mathvariant",
        "stretchy",
        "fence",
        "form",
        "separator",
        "minsize",
        "maxsize",
        "width",
        "height",
        "depth",
        "linebreak",
        "displaystyle",
        "scriptlevel",
        "accent",
        "accentunder",
        "movablelimits",
        "lspace",
        "rspace",
        "symmetric",
        "largeop",
        "columnalign",
        "rowspacing",
        "columnspacing",
        "notation",
        "linethickness",
        "open",
        "close",
        "separators",
    )
)
# layout the reader ignores too (docs/latex.md); none of it is mathematics to typeset
_LAYOUT = re.compile(r"\\(?:label|tag\*?)\{[^{}]*\}|\\(?:nonumber|notag)\b|&")


def mathml(tex: str) -> str | None:
    """``tex`` as a MathML ``<math display="block">`` element, or None where latex2mathml cannot
    convert it: it raises, leaves a command unconverted (``<mi>\\label</mi>``), or writes anything
    outside MathML. Its output is parsed and written again from a whitelist of elements and
    attributes, so an author's ``\\text{<script>}`` can never become markup.

    >>> mathml(r"\\frac{1}{2}").count("<mfrac>"), mathml(r"\\frac{1}{")
    (1, None)
    """
    from xml.etree import ElementTree

    import latex2mathml.converter

    try:
        out = latex2mathml.converter.convert(_LAYOUT.sub(" ", tex), display="block")
        root = ElementTree.fromstring(out)
    except Exception:  # noqa: BLE001 - any failure of the converter means: show the LaTeX instead
        return None
    try:
        return _element(root)
    except ValueError:
        return None


def _element(e) -> str:
    """One parsed MathML element written back (attributes sorted; text escaped); ValueError for
    anything not MathML or a LaTeX command left unconverted."""
    tag = e.tag.rpartition("}")[2]
    if tag not in _MATHML_TAGS or (e.text or "").lstrip().startswith("\\"):
        raise ValueError(tag)
    attrs = "".join(f' {k}="{html.escape(v)}"' for k, v in sorted(e.attrib.items()) if k in _MATHML_ATTRS)
    if tag == "math":
        attrs = ' xmlns="http://www.w3.org/1998/Math/MathML"' + attrs
    inner = html.escape(e.text or "", quote=False) + "".join(
        _element(c) + html.escape(c.tail or "", quote=False) for c in e
    )
    return f"<{tag}{attrs}>{inner}</{tag}>"


class _Doc(NamedTuple):
    """One document as the page shows it: its path, the page's folder, the document's macros."""

    path: str
    base: str | None = None
    macros: dict | None = None


def expanded(tex: str, macros: dict) -> str | None:
    r"""``tex`` with the document's ``\newcommand`` macros (``latex.tokens.macros``) expanded by
    derive's own bounded expander, written back as LaTeX; None where it cannot be read.

    >>> from mathcheck.latex.tokens import _Source, macros
    >>> doc = r"\newcommand{\mean}{\mu} \newcommand{\sq}[1]{{#1}^2}"
    >>> expanded(r"\sq{x - \mean}", macros(_Source(doc, "a.tex"), [(0, len(doc))]))
    '{x-\\mu}^2'
    """
    from mathcheck.latex.tokens import _Source, expand, tokenize

    try:
        src = _Source(tex, "<display>")
        toks = expand(tokenize(src, 0, len(tex)), macros, src)
    except Exception:  # noqa: BLE001 - hostile or unreadable: the LaTeX is shown as written instead
        return None
    out, prev = [], None
    for t in toks:
        word = {"cmd": "\\" + t.text, "op": "\\operatorname{" + t.text + "}"}.get(t.kind, t.text)
        # a space where one stood, and after a command before a letter (\mu x, not \mux)
        if prev is not None and (t.pos > prev.end or (prev.kind == "cmd" and word[:1].isalpha())):
            out.append(" ")
        out.append(word)
        prev = t
    return "".join(out)


def _typeset(tex: str, macros: dict | None = None) -> str:
    """The author's LaTeX as MathML (with the document's macros expanded when it does not convert
    as written), else as ``<code>`` (marked, so a reader knows why)."""
    m = mathml(tex)
    if m is None and macros:
        wider = expanded(tex, macros)
        m = mathml(wider) if wider and wider != tex else None
    if m is not None:
        return f'<div class="math">{m}</div>'
    return f'<div class="math"><code class="tex" title="not converted to MathML">{html.escape(tex)}</code></div>'


# --- the page -------------------------------------------------------------------------------------


def _mark(word: str) -> str:
    symbol, colour = ("·", None) if word == NOT_READ else mark(word)  # "not read" is a label, not a status
    return (
        f'<span class="mark" data-status="{html.escape(word)}" style="color:{_COLOURS[colour]}">'
        f"{html.escape(symbol)} {html.escape(word)}</span>"
    )


def _number(v) -> str:
    return f"{v:.6g}" if isinstance(v, float) else html.escape(str(v))


def _pairs(d: dict | None) -> str:
    if not d:
        return ""
    return ", ".join(f"<code>{html.escape(str(k))} = {_number(v)}</code>" for k, v in d.items())


def _href(path: str, base: str | None) -> str:
    """The link to a document: relative to the page's folder when it is known (the page moves with
    its documents), else the path as the report names it."""
    if base is not None and not os.path.isabs(path):
        path = os.path.relpath(os.path.abspath(path), os.path.abspath(base))
    return html.escape(path.replace(os.sep, "/"), quote=True)


def _where(path: str, line: int, base: str | None, cell: int | None = None) -> str:
    """``path:line`` linked to the document (``#Lline``); in a notebook ``path:cell N:line``, the
    line counted from the cell's first (derive's JSON ``"cell"``), linked to the notebook."""
    if cell is not None:
        return f'<a class="where" href="{_href(path, base)}">{html.escape(path)}:cell {cell}:{line}</a>'
    return f'<a class="where" href="{_href(path, base)}#L{line}">{html.escape(path)}:{line}</a>'


def _details(s: dict) -> str:
    """What mathcheck read and decided for one link, opened on demand."""
    rows = [
        ("read as", f"<code>{html.escape((s['relation'] or '') + ' ' + s['expr']).strip()}</code>"),
        ("how", html.escape(s.get("how") or "")),
    ]
    if s.get("counterexample"):
        rows.append(("counterexample", _pairs(s["counterexample"])))
    if s.get("values"):
        rows.append(("where", _pairs(s["values"])))
    m = s.get("measured")
    if m:
        rows.append(("measured", _pairs({k: m[k] for k in ("max_error", "bound", "points") if m.get(k) is not None})))
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows if v)
    return f'<details><summary>reading</summary><table class="reading">{body}</table></details>'


def _step(s: dict, doc: _Doc, cell: int | None = None) -> str:
    shown = (
        _typeset(s["source"], doc.macros)
        if s.get("source")
        else f'<div class="math"><code>{html.escape(((s["relation"] or " ") + " " + s["expr"]).strip())}</code></div>'
    )
    mark = "" if s["relation"] is None else _mark(s["status"])
    reason = f'<span class="reason">{html.escape(s["reason"])}</span>' if s.get("reason") else ""
    details = "" if s["relation"] is None else _details(s)
    return (
        f'<li class="link" data-line="{s["line"]}">{shown}<div class="verdict">{mark} {reason} '
        f"{_where(doc.path, s['line'], doc.base, cell)}</div>{details}</li>"
    )


def _chain(c: dict, doc: _Doc, display: dict | None = None) -> str:
    """One chain: its mark, name, hypotheses and statement, then its links; a chain that was bad
    input before any link was read shows its display as written (``display``), with the message."""
    head = (
        f"<h3>{_mark(c['status'])} {html.escape(c['name'])} "
        f"<small>{_where(doc.path, c['line'], doc.base, c.get('cell'))}</small></h3>"
    )
    about = []
    if c.get("assumptions"):
        about.append(
            "assume "
            + ", ".join(
                f"<code>{html.escape(k)}</code>: {html.escape(', '.join(v))}" for k, v in c["assumptions"].items()
            )
        )
    if c.get("given"):
        about.append("given " + ", ".join(f"<code>{html.escape(g)}</code>" for g in c["given"]))
    if c.get("let"):
        about.append("let " + ", ".join(f"<code>{html.escape(t)}</code>" for t in c["let"]))
    about += [html.escape(n) for n in c.get("notes") or ()]
    if c.get("message"):
        about.append("bad input: " + html.escape(c["message"]))
    st = c["statement"]
    if st.get("relation") and c["status"] != "bad-input":
        about.append(
            f"statement (first {html.escape(st['relation'])} last): {_mark(st['status'])} "
            f"{html.escape(st.get('how') or '')}"
            + (f" at {_pairs(st['counterexample'])}" if st.get("counterexample") else "")
        )
    steps = "".join(_step(s, doc, c.get("cell")) for s in c["steps"])
    written = (
        "".join(_typeset(r, doc.macros) for r in display["rows"] if r.strip()) if display and not c["steps"] else ""
    )
    return (
        f'<article class="chain" data-status="{html.escape(c["status"])}">{head}'
        + "".join(f'<p class="about">{a}</p>' for a in about)
        + written
        + f'<ol class="links">{steps}</ol></article>'
    )


def _unread(d: dict, doc: _Doc) -> str:
    rows = "".join(_typeset(r, doc.macros) for r in d["rows"] if r.strip())
    return (
        f'<article class="display" data-status="{NOT_READ}"><h3>{_mark(NOT_READ)} '
        f"<small>{_where(doc.path, d['line'], doc.base)}</small></h3>"
        f'<p class="about">a display with no link mathcheck checks (no relation, or '
        f"<code>% mathcheck: skip</code>)</p>{rows}</article>"
    )


def displays(path: str, text: str) -> list[dict]:
    """The display blocks of a LaTeX or Markdown document, as written: ``[{"line": its first line,
    "last": its last line, "rows": [the LaTeX of each row]}]``; [] for a text derivation.

    >>> displays("a.tex", "x\\n\\\\[ a + b \\\\]\\n")
    [{'line': 2, 'last': 2, 'rows': [' a + b ']}]
    """
    from mathcheck.latex.blocks import blocks
    from mathcheck.latex.tokens import _Source

    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".tex", ".md", ".markdown"):
        return []
    src = _Source(text, path)
    try:
        found = blocks(src, markdown=suffix != ".tex")
    except Exception:  # noqa: BLE001 - the report already said what was wrong with this file
        return []
    return [
        {"line": src.line(b.start), "last": src.line(b.end), "rows": re.split(r"\\\\", text[b.body : b.body_end])}
        for b in found
    ]


def macros_of(path: str, text: str) -> dict:
    r"""The document's ``\newcommand``/``\DeclareMathOperator`` definitions, where derive reads
    them (the whole ``.tex`` file; a Markdown file's display blocks); {} when there are none."""
    from mathcheck.latex.blocks import blocks
    from mathcheck.latex.tokens import _Source, macros

    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".tex", ".md", ".markdown"):
        return {}
    try:
        src = _Source(text, path)
        regions = [(0, len(text))] if suffix == ".tex" else [(b.body, b.body_end) for b in blocks(src, True)]
        return macros(src, regions)
    except Exception:  # noqa: BLE001 - the report already said what was wrong with this file
        return {}


def _placed(chains: list, shown: list) -> tuple[dict, list]:
    """Each display's place on the page: ``({chain index: its display}`` for the chains with no link
    (bad input before any was read), ``[displays holding no line of any chain]``, the ones not read)."""
    lines = {s["line"] for c in chains for s in c["steps"]} | {c["line"] for c in chains}
    within = {
        i: d for i, c in enumerate(chains) if not c["steps"] for d in shown if d["line"] <= c["line"] <= d["last"]
    }
    unread = [d for d in shown if not any(d["line"] <= n <= d["last"] for n in lines)]
    return within, unread


def counted(chains: list) -> dict:
    """A file's counts as derive's JSON states them (``"counts"``: chains and links by status,
    ``read`` the links read into the grammar), from its chains, for a report that has none.

    >>> counted([{"status": "proved", "steps": [{"status": "start"}, {"status": "proved"}]}])
    {'files': 1, 'chains': {'total': 1, 'proved': 1}, 'links': {'total': 1, 'read': 1, 'proved': 1}}
    """
    chains_by, links = {"total": 0}, {"total": 0, "read": 0}
    for c in chains:
        chains_by["total"] += 1
        chains_by[c["status"]] = chains_by.get(c["status"], 0) + 1
        for s in c["steps"][1:]:  # the first step is the expression derived from, not a link
            links["total"] += 1
            links["read"] += s["status"] != "bad-input"
            links[s["status"]] = links.get(s["status"], 0) + 1
    return {"files": 1, "chains": chains_by, "links": links}


def _row(f: dict, unread: list) -> dict:
    """The files table's row: chains by status, links and links read (the JSON's ``"counts"``, else
    :func:`counted`), displays not read."""
    n = f.get("counts") or counted(f["chains"])
    return {
        "chains": n["chains"]["total"],
        **{f"chains {w}": n["chains"].get(w, 0) for w in _ORDER},
        "links": n["links"]["total"],
        "links read": n["links"]["read"],
        NOT_READ: len(unread),
    }


_CSS = """
body{font-family:system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
table{border-collapse:collapse}td,th{padding:.2rem .6rem;border-bottom:1px solid #d0d7de;text-align:left}
div.files{overflow-x:auto}table.files{font-size:.9em}table.files td.n{text-align:right}
table.files th{font-size:.85em;vertical-align:bottom}table.files th .mark{white-space:normal}
table.files td:first-child{word-break:break-all}.mark{font-weight:600;white-space:nowrap}
article{border:1px solid #d0d7de;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
article[data-status=refuted]{border-color:#cf222e}ol.links{list-style:none;padding:0}
li.link{border-top:1px solid #eaeef2;padding:.3rem 0;display:grid;grid-template-columns:minmax(0,1fr) 20rem;
column-gap:1rem;align-items:center}li.link details{grid-column:1/3}.math{overflow-x:auto}
.math math{font-size:1.15em;display:inline math;math-style:normal}article.display .math{margin:.3rem 0}
.verdict{font-size:.9em}.reason{color:#57606a;font-style:italic}a.where{color:#57606a;font-size:.85em}
.about{font-size:.9em;margin:.2rem 0}details summary{cursor:pointer;color:#0969da;font-size:.85em}
table.reading th{font-weight:500;color:#57606a}code{font-size:.9em}
"""


def derive_html(report: dict, documents: dict | None = None, base: str | None = None) -> str:
    """The page of a derive JSON report. ``documents`` maps a report path to its text (its displays
    not read are shown too); ``base`` is the page's folder, so ``path:line`` links resolve from
    where the page is saved."""
    documents = documents or {}
    files = []
    for i, f in enumerate(report["files"]):
        shown = displays(f["path"], documents[f["path"]]) if f["path"] in documents else []
        within, unread = _placed(f["chains"], shown)
        files.append((i, f, within, unread, _row(f, unread)))
    # a status column where some file has a chain of that status (proved and refuted always)
    words = [w for w in _ORDER if w in ("proved", "refuted") or any(n[f"chains {w}"] for *_, n in files)]
    columns = ("chains", *(f"chains {w}" for w in words), "links", "links read", NOT_READ)
    head = (
        '<tr><th rowspan="2">file</th><th colspan="' + str(len(words) + 1) + '">chains</th>'
        '<th colspan="2">links</th><th rowspan="2">displays<br>not read</th></tr><tr><th>all</th>'
        + "".join(f"<th>{_mark(w)}</th>" for w in words)
        + "<th>all</th><th>read</th></tr>"
    )
    rows = "".join(
        f'<tr data-path="{html.escape(f["path"])}"><td><a href="#file-{i}">{html.escape(f["path"])}</a></td>'
        + "".join(f'<td class="n" data-count="{html.escape(c)}">{n[c]}</td>' for c in columns)
        + "</tr>"
        for i, f, _, _, n in files
    )
    total = (
        f"<tfoot><tr><th>{len(files)} file{'' if len(files) == 1 else 's'}</th>"
        + "".join(f'<td class="n" data-total="{html.escape(c)}">{sum(n[c] for *_, n in files)}</td>' for c in columns)
        + "</tr></tfoot>"
    )
    sections = []
    for i, f, within, unread, _ in files:
        # the page follows the document: chains and displays not read in the order of their lines
        doc = _Doc(f["path"], base, macros_of(f["path"], documents[f["path"]]) if f["path"] in documents else {})
        items = [(c["line"], 0, _chain(c, doc, within.get(k))) for k, c in enumerate(f["chains"])]
        items += [(d["line"], 1, _unread(d, doc)) for d in unread]
        body = "".join(text for _, _, text in sorted(items, key=lambda t: (t[0], t[1])))
        sections.append(
            f'<section class="file" id="file-{i}" data-path="{html.escape(f["path"])}">'
            f'<h2><a class="where" href="{_href(f["path"], base)}">{html.escape(f["path"])}</a></h2>'
            f"{body}</section>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>mathcheck derive: {html.escape(report['status'])}</title><style>{_CSS}</style></head><body>"
        f"<h1>Derivations checked by mathcheck</h1><p>{_mark(report['status'])} seed {report['seed']}; "
        f"replay: <code>{html.escape(report.get('replay') or '')}</code></p>"
        f'<div class="files"><table class="files"><thead>{head}</thead><tbody>{rows}</tbody>{total}</table></div>'
        + "".join(sections)
        + "</body></html>\n"
    )


def documents_of(report: dict, root: str = ".") -> dict:
    """Each report path's text (a relative path from ``root``), for the files that can still be
    read (a missing one loses only its displays not read)."""
    out = {}
    for f in report["files"]:
        try:
            with open(os.path.join(root, f["path"]), encoding="utf-8") as fh:
                out[f["path"]] = fh.read()
        except (OSError, UnicodeDecodeError):
            pass
    return out


def unwritable(out: str) -> str | None:
    """The one line saying why the page cannot be written to ``out``, or None when it can.

    >>> unwritable("no/such/folder/report.html")[:60]
    "--html 'no/such/folder/report.html': the folder 'no/such/fol"
    """
    folder = os.path.dirname(out) or "."
    if not out.lower().endswith((".html", ".htm")):
        return f"--html {out!r}: the page's name should end in .html, e.g. --html report.html"
    if not os.path.isdir(folder):
        return f"--html {out!r}: the folder {folder!r} does not exist; create it or write the page elsewhere"
    if os.path.isdir(out) or not os.access(folder, os.W_OK):
        return f"--html {out!r}: cannot write there; name a file in a folder you can write"
    return None


def write(report: dict, out: str) -> None:
    """Write the page of ``report`` (derive's JSON) to ``out``, its links relative to ``out``'s folder."""
    page = derive_html(report, documents_of(report), base=os.path.dirname(out) or ".")
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(page)


def main(argv=None) -> int:
    """``python -m mathcheck.render.html REPORT.json OUT.html``: a saved ``derive --json`` report as a page."""
    import json

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(
            "usage: python -m mathcheck.render.html REPORT.json OUT.html (REPORT.json: what "
            "`mathcheck derive --json` printed)",
            file=sys.stderr,
        )
        return 2
    try:
        with open(args[0], encoding="utf-8") as fh:
            report = json.load(fh)
        report["files"], report["status"]  # the shape, checked before any work
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(
            f"{args[0]!r}: not a `mathcheck derive --json` report ({type(exc).__name__}: {exc}); "
            f"write one with `mathcheck derive FILE... --json > REPORT.json`",
            file=sys.stderr,
        )
        return 2
    write(report, args[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
