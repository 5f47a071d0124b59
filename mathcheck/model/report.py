"""The model report: per module path and kind, then the model-level properties; text and JSON."""

from __future__ import annotations

from dataclasses import dataclass, field

from mathcheck.conform.report import LABEL, _num


def _status(results) -> str:
    statuses = {r.status for r in results}
    return "fails" if "fails" in statuses else "inconclusive" if "inconclusive" in statuses else "holds"


@dataclass
class ModuleResult:
    path: str
    kind: str
    properties: list = field(default_factory=list)  # mathcheck.conform.run.Result
    setting: list = field(default_factory=list)     # conform's lines: the precision measured, the eps tested at

    @property
    def status(self) -> str:
        return _status(self.properties)

    def tally(self) -> str:
        judged = [r for r in self.properties if r.expected == "holds"]
        held = sum(r.status == "holds" for r in judged)
        extra = len(self.properties) - len(judged)
        return f"{held}/{len(judged)}" + (f" (+{extra} not expected to hold or reported)" if extra else "")

    def to_json(self) -> dict:
        return {"path": self.path, "kind": self.kind, "setting": self.setting,
                "properties": [r.to_json() for r in self.properties], "status": self.status}


@dataclass
class ModelReport:
    model: str
    config: dict
    seed: int
    replay: str
    modules: list = field(default_factory=list)
    properties: list = field(default_factory=list)
    notes: list = field(default_factory=list)  # what the run could not see, said once

    @property
    def status(self) -> str:
        return _status([r for m in self.modules for r in m.properties] + self.properties)

    @property
    def exit_code(self) -> int:
        return {"holds": 0, "fails": 1, "inconclusive": 3}[self.status]

    def failures(self) -> list[str]:
        out = [f"{m.path} {r.name}" for m in self.modules for r in m.properties if r.status == "fails"]
        return out + [r.name for r in self.properties if r.status == "fails"]

    def to_json(self) -> dict:
        props = [{"name": r.name, "claim": r.claim, "status": r.status, "expected": r.expected,
                  "max_abs_err": r.to_json()["max_abs_err"], "tolerance": r.to_json()["tolerance"],
                  "note": r.note or None, "counterexample": r.counterexample} for r in self.properties]
        return {"model": self.model, "config": self.config, "seed": self.seed, "notes": self.notes,
                "modules": [m.to_json() for m in self.modules], "properties": props, "status": self.status}

    def lines(self) -> list[str]:
        cfg = ", ".join(f"{k} {v}" for k, v in self.config.items())
        out = [f"model {self.model}  seed {self.seed}", f"  config: {cfg}"] + [f"  note: {n}" for n in self.notes]
        wp = max([len(m.path) for m in self.modules] + [10])
        wk = max([len(m.kind) for m in self.modules] + [9])
        for m in self.modules:
            out.append(f"  {m.path:<{wp}}  {m.kind:<{wk}}  {LABEL[m.status]} {m.tally()}")
            if m.status != "holds":
                out += [f"      {line}" for line in m.setting]
            for r in m.properties:
                if r.status in ("fails", "inconclusive"):
                    out += _detail(r, self.replay, "      ")
        out.append("  model-level properties:")
        wn = max(len(r.name) for r in self.properties)
        wc = max(len(r.claim) for r in self.properties)
        for r in self.properties:
            head = f"    {LABEL[r.status]:<20}  {r.name:<{wn}}  {r.claim:<{wc}}"
            if r.status in ("holds", "fails") and r.tolerance is not None and r.max_abs_err is not None:
                head += f"  max |err| {_num(r.max_abs_err)}, tolerance {_num(r.tolerance)}"
            out.append(head.rstrip())
            if r.note:
                out.append(f"        {r.note}")
            if r.status == "fails" and r.counterexample:
                cx = r.counterexample
                if cx.get("compared"):
                    out.append(f"        compared: {cx['compared']}")
                out.append(f"        claim: {r.claim} (mathcheck show {r.claim})" if r.claim != "-" else
                           "        claim: none (an engineering property)")
                out.append(f"        replay: {cx.get('replay', self.replay)}")
        fails = self.failures()
        tail = {"holds": "every expected property holds",
                "fails": f"{len(fails)} failing: " + ", ".join(fails),
                "inconclusive": "inconclusive: a derived side could not be evaluated"}[self.status]
        out.append(f"status: {self.status} ({tail})")
        return out


def _detail(r, replay, pad) -> list[str]:
    out = [f"{pad}{LABEL[r.status]}  {r.name}  {r.claim}" +
           (f"  max |err| {_num(r.max_abs_err)}, tolerance {_num(r.tolerance)}" if r.tolerance is not None else "")]
    out.append(f"{pad}  property: {r.doc}")
    if r.note:
        out.append(f"{pad}  {r.note}")
    cx = r.counterexample or {}
    if cx.get("sizes"):
        out.append(f"{pad}  smallest input found: {' '.join(f'{k}={v}' for k, v in cx['sizes'].items())} "
                   f"({cx.get('values', 'standard normal')} values)")
    if cx.get("compared"):
        out.append(f"{pad}  compared: {cx['compared']}")
    if cx.get("entry") is not None:
        out.append(f"{pad}  first differing entry {tuple(cx['entry'])}: derived {_num(cx.get('derived'))}, "
                   f"yours {_num(cx.get('user'))}")
    if r.claim != "-":
        out.append(f"{pad}  claim: {r.claim} (mathcheck show {r.claim})")
    out.append(f"{pad}  replay: {replay}")
    return out
