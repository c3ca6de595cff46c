"""Names to objects, once: a theorem id or file, a scenario name or file, an algorithm (registered name, class,
factory, ``FILE.py:CLASS``), planted defects; and the study they make (:func:`build_study`). Everything resolved
here crosses process boundaries as objects, never as names looked up again in a worker."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BoundcheckError
from .usercode import _call_factory, _check_policy_protocol, _load_object, _ours

if TYPE_CHECKING:

    from theory import Theorem

    from ..claims.defects import Defect
    from ..policies import PolicySpec
    from ..study.spec import StudySpec
    from ..world.scenario import Scenario


DEFAULT_RUNS = 200

PolicyLike = "str | PolicySpec | type | Callable"  # a string: PolicySpec is imported only when a study is built


def resolve_theorem(theorem: str | Theorem) -> Theorem:
    """A theorem id, a :class:`theory.Theorem`, or a theorem of your own: ``FILE.py:NAME`` or
    ``package.module:NAME`` naming a Theorem that declares the theorem it is checked like (``family="gp_ucb"``;
    docs/extending.md). A theorem from a file is registered under its id for the rest of the process (the reports
    read it back by id); its id must not be a built-in theorem's."""
    if isinstance(theorem, str) and ":" in theorem:
        return _theorem_from_file(theorem)
    if isinstance(theorem, str) and theorem.endswith(".py"):
        raise BoundcheckError(f"{theorem}: name the theorem in the file too, FILE.py:NAME")
    import theory

    try:
        return theory.get(theorem)
    except theory.UnknownTheorem as exc:
        raise BoundcheckError(exc.args[0]) from None


_USER_THEOREMS: dict[str, str] = {}  # id -> the reference it was loaded from (a file may be loaded again)


def _theorem_from_file(ref: str) -> Theorem:
    import theory
    from theory import Theorem

    from ..claims.families import family_for

    th = _load_object(ref, "theorem")
    if not isinstance(th, Theorem):
        raise BoundcheckError(f"{ref} is a {type(th).__name__}, not a theory.Theorem")
    if type(th) is not Theorem:  # a subclass defined in the file would not be importable in a worker process
        raise BoundcheckError(f"{ref} is a {type(th).__name__}: build a theory.Theorem itself, not a subclass")
    builtin = theory.loaded(th.id) is not None or theory.plugins.paper_of_theorem(th.id) is not None
    if builtin and theory.get(th.id) is th:  # an installed paper's theorem named by its module (pkg.mod:NAME)
        return th
    if not th.family:
        raise BoundcheckError(f"theorem {th.id!r} ({ref}) does not say which family checks it: add "
                              "family=\"<theorem id>\" (e.g. \"gp_ucb\"; see `boundcheck list`)")
    target, _, attr = ref.rpartition(":")
    where = f"{Path(target).resolve()}:{attr}" if target.endswith(".py") else ref  # one file, however it is named
    owner = _USER_THEOREMS.get(th.id)
    if owner is not None and owner != where:
        raise BoundcheckError(f"theorem id {th.id!r} ({ref}) is taken by {owner} in this process")
    # the papers' manifests declare their theorem ids: no theory module is imported to find a clash
    if owner is None and builtin:
        raise BoundcheckError(f"theorem id {th.id!r} ({ref}) is a built-in theorem's: give yours another id")
    family_for(th)  # one line now, not in the middle of a study, if the family cannot check it
    _USER_THEOREMS[th.id] = where
    return theory.register(th, replace=True)  # the same file loaded again (an edited bound) replaces it


def resolve_scenario(scenario: str | Path | Scenario | None, theorem: Theorem, horizon: int | None = None,
                     delta: float | None = None) -> Scenario:
    """A scenario object, a built-in name or a scenario file (``FILE.toml``; default: the theorem's default
    scenario), at ``horizon``/``delta``."""
    from ..world.catalogue import get_scenario
    from ..world.scenario import Scenario
    from ..world.scenario_files import load_scenario

    if scenario is None:
        scenario = theorem.default_scenario
    if isinstance(scenario, Scenario):
        return scenario.at(horizon, delta)
    if isinstance(scenario, Path) or (isinstance(scenario, str) and _is_scenario_file(scenario)):
        return load_scenario(scenario).at(horizon, delta)
    if isinstance(scenario, str):
        return get_scenario(scenario, horizon, delta)
    raise BoundcheckError(f"cannot use {scenario!r} as a scenario: give a name, a scenario file or a Scenario")


def _is_scenario_file(ref: str) -> bool:
    """A scenario reference that names a file (``.toml``, or a path that exists) rather than a built-in."""
    return ref.endswith(".toml") or "/" in ref or "\\" in ref or Path(ref).is_file()


def resolve_policy(policy: PolicyLike) -> PolicySpec:
    """A registered name, a ``FILE.py:CLASS`` / ``pkg.mod:CLASS`` reference, a class, a factory or a spec."""
    from ..policies import policy_spec

    if isinstance(policy, str) and ":" in policy:
        obj = _load_object(policy)
        _check_policy_protocol(policy, obj)
        if callable(obj) and not isinstance(obj, type) and not _ours(str(getattr(obj, "__module__", ""))):
            _call_factory(policy, obj)
        return policy_spec(obj)
    return policy_spec(policy)


def recorded_by(spec: PolicySpec, scenario: Scenario) -> frozenset[str]:
    """What a study will hold about a policy: its declared per-step and final records, its own truth-side
    monitors, and the engine's monitors (through its posterior, or the engine's reference posterior when it
    exposes none; not for uninformed references, nor when the scenario names no reference prior)."""
    d = spec.declared
    return frozenset(d.records) | frozenset(d.final_records) | monitors_of(spec, scenario)


def monitors_of(spec: PolicySpec, scenario: Scenario) -> frozenset[str]:
    """The truth-side monitors a study records for a policy: its own (``monitors``, which include what its
    family's observers compute for it) and the engine's."""
    from ..study.engine import ENGINE_MONITORS

    d = spec.declared
    have = frozenset(d.monitors)
    monitored = getattr(d, "provides_posterior", False) or getattr(d, "role", "baseline") != "uninformed"
    if monitored and (scenario.truth_index is not None or scenario.reference_index is not None):
        have |= ENGINE_MONITORS if scenario.actions.K == 1 else frozenset({"z_all"})
    return have


def _as_sequence(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, list | tuple) else [x]


def build_study(theorem: str | Theorem, scenario: str | Scenario | None = None, *, runs: int | None = None,
                horizon: int | None = None, delta: float | None = None, seed: int = 0, beta_scale: float = 1.0,
                policies: Sequence[PolicyLike] | None = None, chunk_size: int = 25,
                algorithm: PolicyLike | Sequence[PolicyLike] | None = None) -> StudySpec:
    """Resolve everything a study needs, once.

    ``policies``: the algorithms to run, the checked one first (default: the theorem's algorithm and its
    baselines). ``algorithm``: one or several user algorithms (classes, ``FILE.py:CLASS`` references, specs) that
    take the role of the theorem's algorithm: their claims are checked, and ``policies`` run alongside as paired
    baselines on the same functions and noise, each keeping the random stream it has without them.
    ``runs``: default the scenario's ``runs`` (scenario files), else :data:`DEFAULT_RUNS`."""
    from ..claims.conformance import shadow_fills
    from ..claims.families import family_for
    from ..claims.table import not_applicable as not_applicable_claims
    from ..study.engine import record_clashes
    from ..study.spec import StudySpec
    from ..utils.validation import check_int, check_positive, check_seed

    th = resolve_theorem(theorem)
    fam = family_for(th)
    sc = resolve_scenario(scenario, th, horizon, delta)
    fam.check_scenario(sc)
    specs = tuple(resolve_policy(p) for p in (policies if policies is not None else th.algorithms))
    users = tuple(resolve_policy(a) for a in _as_sequence(algorithm))
    checked: tuple[str, ...] = ()
    if users:  # baselines keep the streams of a study without the user's algorithms; users get the next ones
        specs = tuple(replace(s, stream=j) for j, s in enumerate(specs))
        users = tuple(replace(u, stream=len(specs) + k) for k, u in enumerate(users))
        specs = users + specs
        checked = tuple(u.name for u in users)
    if not specs:
        raise BoundcheckError("a study needs at least one policy")
    names = [s.name for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise BoundcheckError(f"policy names must be distinct, got {', '.join(names)} ({', '.join(dup)} twice; give "
                              "a user policy class a `name` attribute)")
    for s in specs:  # one column per name in the steps table: a record and a monitor must not share one
        clash = record_clashes(s.declared.records, monitors_of(s, sc))
        if clash:
            raise BoundcheckError(f"policy {s.name!r} declares the record(s) {', '.join(clash)}, which are also "
                                  "truth-side monitors of the study: rename the record(s)")
    not_applicable, on_shadow = {}, {}
    own = _shadow_of(th) if users else None
    for s in (users or specs[:1]):
        have = recorded_by(s, sc)
        # what the theorem's algorithm, run beside the code as its conformance shadow, records at the code's actions
        fills = shadow_fills(own.declared, s.declared) if own is not None and s != own else frozenset()
        missing = sorted(fam.requires - have - fills)
        if missing:
            raise BoundcheckError(f"the checks of {th.id} read {', '.join(missing)} for every claim, which policy "
                                  f"{s.name!r} does not record: implement the batched Policy protocol with these "
                                  "records (see docs/architecture.md)")
        not_applicable[s.name] = not_applicable_claims(fam.claims, have | fills)
        # claim -> what it reads that the code does not record (judged on the shadow's records instead)
        on_shadow[s.name] = {c: need for c, need in not_applicable_claims(fam.claims, have).items()
                             if c not in not_applicable[s.name]}
    runs = runs if runs is not None else (sc.default_runs or DEFAULT_RUNS)
    return StudySpec(family=fam, scenario=sc, policies=specs, runs=check_int("runs", runs), seed=check_seed(
        "seed", seed), beta_scale=check_positive("beta scale", beta_scale),
        chunk_size=check_int("chunk size", chunk_size), checked=checked,
        not_applicable={k: v for k, v in not_applicable.items() if v},
        on_shadow={k: v for k, v in on_shadow.items() if v})


def _shadow_of(theorem: Theorem) -> PolicySpec | None:
    """The theorem's own algorithm where it can run as a conformance shadow (else None)."""
    try:
        own = resolve_policy(theorem.algorithm)
    except BoundcheckError:
        return None
    return own if own.declared.conformance_monitors else None


def conformance_shadows(spec: StudySpec, conformance: bool = True) -> tuple[StudySpec, dict[str, PolicySpec]]:
    """The study with its conformance claim settled, and the shadows to run (:mod:`boundcheck.claims.conformance`):
    every checked algorithm that is not the theorem's own unwrapped algorithm runs beside a shadow, a fresh
    instance of that algorithm (checked name -> its spec). ``conformance=False`` (``--no-conformance``) or a
    theorem's algorithm that cannot run as a shadow: the claim is not applicable to those algorithms."""
    from ..claims.conformance import CONFORMANCE, NO_SHADOW, OFF_REASON

    if not any(c.id == CONFORMANCE for c in spec.family.claims):
        return spec, {}
    try:
        own = resolve_policy(spec.theorem.algorithm)
    except BoundcheckError:
        own = None
    by_name = {p.name: p for p in spec.policies}
    shadows, skip = {}, {}
    for name in spec.checked_algorithms:
        if not conformance:
            skip[name] = OFF_REASON
        elif own is not None and by_name[name] == own:
            continue  # the theorem's own algorithm: conforms by construction (a sanity identity)
        elif own is None or not own.declared.conformance_monitors:
            skip[name] = f"{spec.theorem.algorithm} cannot run as a shadow (no conformance check for it yet)"
        else:
            shadows[name] = own
    if skip:
        na = {k: dict(v) for k, v in spec.not_applicable.items()}
        on_shadow = {k: dict(v) for k, v in spec.on_shadow.items()}
        for name, why in skip.items():
            na.setdefault(name, {})[CONFORMANCE] = why
            # the claims that would have been judged on the shadow's records: not applicable without it
            for cid, need in on_shadow.pop(name, {}).items():
                na[name][cid] = f"{need} ({NO_SHADOW}: {why})"
        spec = replace(spec, not_applicable=na, on_shadow=on_shadow)
    return replace(spec, shadowed=tuple(shadows)), shadows


def resolve_defects(theorem: Theorem, defects: Sequence[str | Defect] | None) -> list[Defect]:
    """Defect names or objects, each checked to apply to the theorem (one-line error otherwise)."""
    from ..claims.defects import Defect, defects_for, get_defect

    out = []
    for d in defects or ():
        d = d if isinstance(d, Defect) else get_defect(str(d))
        if not d.applies(theorem.id):
            raise BoundcheckError(f"defect {d.name!r} does not apply to {theorem.id}; its defects: "
                                  f"{', '.join(x.name for x in defects_for(theorem.id))}")
        out.append(d)
    return out


def applicability(theorem: str | Theorem, scenario: str | Scenario | None = None, *, horizon: int | None = None,
                  delta: float | None = None) -> list[str]:
    """Why ``theorem`` does not apply to ``scenario`` (empty: every assumption holds)."""
    from ..claims.families import family_for
    from ..world.assumptions import Conditions

    th = resolve_theorem(theorem)
    sc = resolve_scenario(scenario, th, horizon, delta)
    return family_for(th).unmet_assumptions(sc, Conditions())


#: folder names a verify's default output folder never takes below ``reports/<theorem>/`` (what a verify writes
#: there, and power's default folder)
_RESERVED_FOLDERS = frozenset({"results", "figures", "tables", "power"})


def _folder_part(name: str) -> str:
    part = "".join(ch if ch.isalnum() or ch in "._+-" else "_" for ch in str(name)).strip(".") or "_"
    return f"{part}-algorithm" if part in _RESERVED_FOLDERS else part


def _reference_name(ref) -> str:
    """The name a checked algorithm's default folder takes, read without importing it: a ``FILE.py:CLASS`` or
    ``pkg.mod:CLASS`` reference's CLASS, a registered name as it is, a class's or factory's ``__name__``."""
    if isinstance(ref, str):
        return ref.rsplit(":", 1)[-1]
    name = getattr(ref, "name", None)  # a policy spec's, or a class's own `name`
    if isinstance(name, str) and name:
        return name
    return str(getattr(ref, "__name__", None) or type(ref).__name__)


def default_out(theorem: str | Theorem, scenario: str | Scenario | None = None,
                algorithm: PolicyLike | Sequence[PolicyLike] | None = None) -> Path:
    """A verify's output folder when none is given: ``reports/<theorem>`` for the theorem's own algorithm on its
    default scenario; with ``--algorithm`` (the checked algorithms' names, joined by ``+``) and/or another scenario
    (``on-<scenario>``: a file's stem, a built-in's name) one folder below it, e.g. ``reports/gp_ucb/MyGPUCB``,
    ``reports/gp_ucb/MyGPUCB-on-my_problem``. Studies of different code or worlds thus never share a folder by
    default (a second one would be refused as a different configuration)."""
    th = resolve_theorem(theorem) if isinstance(theorem, str) else theorem
    base = Path("reports") / th.id
    names = [_reference_name(a) for a in _as_sequence(algorithm)]
    if scenario is None:
        where = None
    elif isinstance(scenario, str):
        where = Path(scenario).stem if scenario.endswith(".toml") else scenario
    else:
        where = getattr(scenario, "name", None)
    if where == th.default_scenario:
        where = None
    part = "+".join(names) + (f"-on-{where}" if names and where else f"on-{where}" if where else "")
    return base / _folder_part(part) if part else base
