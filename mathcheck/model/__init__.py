"""``mathcheck model SPEC``: hold a whole Transformer to the derivations (docs/model.md).

A model is loaded (:mod:`.load`), run once under a trace that records every attention call and
module output (:mod:`.trace`), its sub-layers are held to their kinds (:mod:`.sublayers`: norms
through ``conform``, attention calls against the derived formula) and the model to the
model-level claims (:mod:`.properties`: causality, KV cache, permutation equivariance,
determinism); :mod:`.run` collects the report (:mod:`.report`).
"""

# the public modules
__all__ = ["heads", "load", "properties", "report", "run", "sublayers", "tiny", "trace"]
