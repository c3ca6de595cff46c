"""Paper-literal against restored constants: for a theorem with a ``<id>_literal`` sibling in the theory layer (the
bound as printed in the paper, e.g. ``r_gp_ucb_literal``), both bounds term by term at the values a study used, so a
report shows where the paper's constants are smaller than the ones its proof supports."""

from __future__ import annotations

import math

__all__ = ["literal_comparison"]


def literal_comparison(theorem, values: dict) -> dict | None:
    """``{"restored": id, "literal": id, "rows": [(term, restored, literal)], "total": (restored, literal)}`` or
    None when the theorem has no paper-literal sibling (or the values do not cover its symbols)."""
    import theory

    if theorem is None:
        return None
    base_id = theorem.id.removesuffix("_literal")
    # siblings are defined in the theorem's own module, registered with it: nothing else is imported (the
    # other papers' modules cost ≈ 0.2 s of sympy)
    base = theorem if theorem.id == base_id else theory.loaded(base_id)
    lit = theorem if theorem.id != base_id else theory.loaded(base_id + "_literal")
    if base is None or lit is None:
        return None
    if set(base.symbols) != set(lit.symbols) or any(k not in values for k in base.symbols):
        return None
    b, li = base.evaluate(values), lit.evaluate(values)
    names = list(dict.fromkeys([*base.bound_terms, *lit.bound_terms]))
    rows = [(n, float(b["terms"][n]) if n in b["terms"] else math.nan,
             float(li["terms"][n]) if n in li["terms"] else math.nan) for n in names]
    return {"restored": base.id, "literal": lit.id, "rows": rows,
            "total": (float(b["value"]), float(li["value"]))}
