"""The model report: per module path and kind, then the model-level properties (printed by
``mathcheck.render.text.model_report`` and ``render.json.model_report``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from mathcheck.outcome import ExitByStatus, worst


def _status(results) -> str:
    return worst((r.status for r in results), "holds").word


@dataclass
class ModuleResult:
    path: str
    kind: str
    properties: list = field(default_factory=list)  # mathcheck.conform.run.Result
    setting: list = field(default_factory=list)  # conform's lines: the precision measured, the eps tested at

    @property
    def status(self) -> str:
        return _status(self.properties)

    def tally(self) -> str:
        judged = [r for r in self.properties if r.expected == "holds"]
        held = sum(r.status == "holds" for r in judged)
        extra = len(self.properties) - len(judged)
        return f"{held}/{len(judged)}" + (f" (+{extra} not expected to hold or reported)" if extra else "")


@dataclass
class ModelReport(ExitByStatus):
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

    def failures(self) -> list[str]:
        out = [f"{m.path} {r.name}" for m in self.modules for r in m.properties if r.status == "fails"]
        return out + [r.name for r in self.properties if r.status == "fails"]

    def inconclusive(self) -> list[str]:
        """Each inconclusive property with why (its note), as ``failures`` names the failing ones: an
        inconclusive run always says which property could not be judged and why."""
        out = [(f"{m.path} {r.name}", r.note) for m in self.modules for r in m.properties if r.status == "inconclusive"]
        out += [(r.name, r.note) for r in self.properties if r.status == "inconclusive"]
        return [f"{name}: {note or 'no reason given'}" for name, note in out]
