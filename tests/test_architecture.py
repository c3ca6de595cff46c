"""The layering, objects across process boundaries, declared protocols, K-arm actions."""

import ast
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boundcheck import api
from boundcheck.errors import BoundcheckError
from boundcheck.model.kernels import RBF
from boundcheck.model.posterior import BatchedPosterior
from boundcheck.model.priors import GPPrior
from boundcheck.policies import Policy, PolicySpec, policy_names
from boundcheck.study.store import ResultStore
from boundcheck.testing import check_policy, run_check
from boundcheck.world import AlwaysAvailable, SingleArm, TopK, get_scenario

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------------------------------- layers
# papers sit above the core layers they use (a paper's figures use the report layer) and below the api, which
# reaches them only through the registries (never by import: see test_the_core_never_imports_a_paper)
LAYERS = {"errors": 0, "utils": 0, "runtime": 0.5, "model": 1, "world": 2, "policies": 3, "adapters": 3.5,
          "claims": 4, "study": 5, "report": 6, "papers": 6.5, "api": 7, "commands": 7, "results": 7, "cli": 8,
          "testing": 8, "__init__": 8, "__main__": 8}
#: the theory layer's shared modules (every other module of theory/ is one paper's)
THEORY_CORE = {"__init__", "core", "empirical", "information_gain", "plugins"}


def _layer(path: Path) -> int:
    rel = path.relative_to(ROOT / "boundcheck").parts
    return LAYERS[rel[0].removesuffix(".py")]


def _imports(path: Path) -> list[str]:
    """Absolute module names imported by ``path`` (relative imports resolved)."""
    tree = ast.parse(path.read_text())
    pkg = list(path.relative_to(ROOT).with_suffix("").parts)[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
                out += [mod] if node.module else [f"{mod}.{a.name}" for a in node.names]
            else:
                out.append(node.module)
    return out


def test_lower_layers_never_import_higher_ones():
    bad = []
    for path in (ROOT / "boundcheck").rglob("*.py"):
        me = _layer(path)
        for mod in _imports(path):
            parts = mod.split(".")
            if parts[0] != "boundcheck" or len(parts) < 2:
                continue
            if parts[1] == "__version__":  # the package version, defined in the root __init__
                continue
            them = LAYERS[parts[1]]
            if them > me:
                bad.append(f"{path.relative_to(ROOT)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_the_core_never_imports_a_paper():
    """What belongs to one paper lives in ``boundcheck/papers/<slug>/`` and ``theory/<slug>.py``; the core (every
    other module of boundcheck and theory's shared modules) reaches a paper only through the registries that
    read the ``boundcheck.papers`` entry points, never by importing it (imports inside functions included)."""
    papers = {p.name for p in (ROOT / "boundcheck" / "papers").iterdir() if p.is_dir() and p.name != "__pycache__"}
    paper_theory = {p.stem for p in (ROOT / "theory").glob("*.py")} - THEORY_CORE
    assert papers and paper_theory <= papers, (papers, paper_theory)  # one slug per paper, everywhere
    bad = []
    core = [p for p in (ROOT / "boundcheck").rglob("*.py") if "papers" not in p.relative_to(ROOT).parts]
    core += [ROOT / "theory" / f"{m}.py" for m in THEORY_CORE]
    for path in core:
        for mod in _imports(path):
            parts = mod.split(".")
            if parts[:2] == ["boundcheck", "papers"] or (parts[0] == "theory" and len(parts) > 1
                                                         and parts[1] in paper_theory):
                bad.append(f"{path.relative_to(ROOT)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_a_paper_imports_no_other_paper():
    """A paper may use what the core offers and its own modules; another paper's objects it reaches by name
    (a policy or scenario name through the registries), so that papers stay separable."""
    bad = []
    for folder in (ROOT / "boundcheck" / "papers").iterdir():
        if not folder.is_dir() or folder.name == "__pycache__":
            continue
        for path in folder.rglob("*.py"):
            for mod in _imports(path):
                parts = mod.split(".")
                if parts[:2] == ["boundcheck", "papers"] and len(parts) > 2 and parts[2] != folder.name:
                    bad.append(f"{path.relative_to(ROOT)} imports {mod}")
                if parts[0] == "theory" and len(parts) > 1 and parts[1] not in THEORY_CORE | {folder.name}:
                    bad.append(f"{path.relative_to(ROOT)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_every_builtin_paper_is_an_entry_point_and_declares_what_it_registers():
    """One entry-point line per paper (pyproject.toml); each manifest's declared theorems, policies and scenarios
    are exactly what its parts register (a look-up by name imports only the paper that declares the name)."""
    import tomllib

    import theory
    from theory import plugins

    eps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["boundcheck.papers"]
    folders = {p.name for p in (ROOT / "boundcheck" / "papers").iterdir() if (p / "__init__.py").is_file()}
    assert set(eps) == folders and all(v == f"boundcheck.papers.{k}:PAPER" for k, v in eps.items())
    found = plugins.papers()
    assert set(eps) <= set(found)
    for pid in eps:
        paper = found[pid]
        assert paper.id == pid
        th = paper.part("theory")
        assert tuple(t.id for t in th.THEOREMS) == paper.theorems, pid
        assert all(theory.get(t).id == t for t in paper.theorems)
        pol = paper.part("policies")
        assert tuple(n for n, _, _ in (pol.POLICIES if pol else ())) == paper.policies, pid
        cat = paper.part("scenarios")
        names = list(getattr(cat, "SCENARIOS", {}))
        if getattr(cat, "SCENARIO_DIR", None) is not None:
            names += sorted(p.stem for p in cat.SCENARIO_DIR.glob("*.toml"))
        assert sorted(names) == sorted(paper.scenarios), pid
        if paper.power_dir is not None and paper.power_dir.is_dir():
            assert {p.stem for p in paper.power_dir.glob("*.json")} <= set(paper.theorems), pid


def test_runtime_imports_nothing_above_utils():
    """boundcheck.runtime (pools, warm-up, caches) is the layer just above utils: the layers above register what
    it runs (boundcheck.runtime.warmup), it never names them."""
    bad = []
    for path in (ROOT / "boundcheck" / "runtime").rglob("*.py"):
        for mod in _imports(path):
            parts = mod.split(".")
            if parts[0] == "boundcheck" and len(parts) > 1 and parts[1] not in ("runtime", "utils", "errors"):
                bad.append(f"{path.relative_to(ROOT)} imports {mod}")
    assert not bad, "\n".join(bad)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """{module: the boundcheck modules it imports}, every import statement counted (inside functions too: a
    deferred import only hides a circle). ``from pkg import name`` counts ``pkg.name`` when that is a module,
    else ``pkg``; a module's own packages (imported first anyway) are not counted."""
    paths = {_module_name(p): p for p in (ROOT / "boundcheck").rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text())
        pkg = list(path.relative_to(ROOT).with_suffix("").parts)[:-1]
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = (".".join(pkg[: len(pkg) - node.level + 1] + ([node.module] if node.module else []))
                        if node.level else node.module)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in paths:  # a name inside a module: the module
                    t = t.rpartition(".")[0]
                if t and t != name and not name.startswith(t + "."):
                    found.add(t)
        graph[name] = found
    return graph


#: circles that another change removes (the world catalogue's scenario files move with the papers' split)
KNOWN_CIRCLES: list[set[str]] = []  # none left


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


def test_no_import_circles():
    circles = [c for c in _circles(_import_graph()) if c not in KNOWN_CIRCLES]
    assert not circles, "import circles:\n" + "\n".join(" ↔ ".join(sorted(c)) for c in circles)


def test_the_circle_check_sees_imports_inside_functions():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [{"a", "b", "c"}]
    g = _import_graph()
    assert "boundcheck.report.figures" in g["boundcheck.report.drawing"]  # imported inside draw_here



def test_theory_imports_nothing_from_boundcheck():
    for path in (ROOT / "theory").rglob("*.py"):
        assert not any(m.startswith("boundcheck") for m in _imports(path)), path


def _cli_may_import(module: str) -> bool:
    """The CLI's imports of boundcheck: itself, the api, the commands, the errors and the report layer's public
    wording functions (the report is below the CLI); never the model, world, policies, claims, study, runtime or
    utils, nor the theory package: everything it shows or runs goes through the api and the commands."""
    parts = module.split(".")
    if parts[0] == "theory":
        return False
    if parts[0] != "boundcheck":
        return True
    return len(parts) > 1 and (parts[1] in ("cli", "api", "commands", "errors", "__version__")
                               or (parts[1] == "report" and not any(p.startswith("_") for p in parts[2:])))


def test_the_cli_talks_only_to_the_api_the_commands_and_the_report_wording():
    bad, dynamic = [], []
    for path in (ROOT / "boundcheck" / "cli").rglob("*.py"):
        tree = ast.parse(path.read_text())
        bad += [f"{path.name} imports {m}" for m in _imports(path) if not _cli_may_import(m)]
        for node in ast.walk(tree):  # a private name of the report (``from ..report.context import _x``)
            if isinstance(node, ast.ImportFrom) and node.module and "report" in node.module.split("."):
                bad += [f"{path.name} imports {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
        dynamic += [f"{path.name}:{n.lineno}" for n in ast.walk(tree) if isinstance(n, ast.Call)
                    and getattr(n.func, "attr", getattr(n.func, "id", "")) in ("import_module", "__import__")]
    assert not bad, "\n".join(bad)
    assert not dynamic, f"the CLI imports modules by name at {dynamic}"


def test_the_cli_rule_refuses_the_engine():
    assert _cli_may_import("boundcheck.report.reproduce.model") and _cli_may_import("boundcheck.commands.verify")
    assert not any(_cli_may_import(m) for m in ("boundcheck.claims.empirical", "boundcheck.study.store",
                                                 "boundcheck.model", "theory", "boundcheck.utils.usercode"))


def test_the_api_imports_the_engine_lazily():
    """`boundcheck list` and `--help` import the api: it must not pull numpy, sympy or the theory in."""
    import subprocess
    import sys

    code = ("import sys, boundcheck.cli, boundcheck.api; "
            "print(sorted(m for m in ('numpy', 'sympy', 'theory', 'pandas', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]", out.stdout


def test_every_package_is_one_layer():
    names = {p.name for p in (ROOT / "boundcheck").iterdir() if not p.name.startswith((".", "__pycache__"))}
    assert {n.removesuffix(".py") for n in names} <= set(LAYERS), names


# ------------------------------------------------------------------------------ objects, not names
class CountingUCB(Policy):
    """A user policy defined in a test file (not importable by name in a worker process): plain GP-UCB."""

    name = "counting_ucb"
    label = "user UCB"
    records = frozenset({"mu", "sigma", "ucb"})
    provides_posterior = True

    def start(self, ctx):
        super().start(ctx)
        self.posterior = BatchedPosterior(ctx.candidates[:1], ctx.noise_var, ctx.runs)
        self.truth_prior = 0
        self.rows = np.arange(ctx.runs)

    def select(self, t, available):
        mu, sd = self.posterior.mean()[:, 0], self.posterior.sd()[:, 0]
        ucb = mu + self.ctx.beta[t] * sd
        a = self.ctx.actions.oracle(ucb, available)
        x = a[:, 0]
        self.record = {"mu": mu[self.rows, x], "sigma": sd[self.rows, x], "ucb": ucb[self.rows, x]}
        return a

    def update(self, t, action, y):
        self.posterior.condition_batch(action, y)


def _runs_table(path):
    df = ResultStore(path / "results").read_table("runs")
    df["algorithm"] = df["algorithm"].astype(str)
    return df


@pytest.mark.parametrize("backend", ["loky", "dask"])
def test_user_policy_class_runs_in_worker_processes(tmp_path, backend):
    if backend == "dask":
        pytest.importorskip("distributed")
    # two chunks: with loky the parent simulates one and a worker process the other
    kw = dict(runs=30, horizon=12, seed=3, policies=[CountingUCB, "gp_ei", "random"])
    one = run_check("gp_ucb", jobs=1, out=tmp_path / "one", **kw)
    two = run_check("gp_ucb", jobs=2, backend=backend, out=tmp_path / "two", **kw)
    pids = {info["pid"] for info in ResultStore(tmp_path / "two" / "results").read_manifest()["chunks"].values()}
    assert pids - {os.getpid()}, "no chunk ran in a worker process"
    assert one["main_algorithm"] == "counting_ucb"
    assert one["claims"] == two["claims"] and one["regret"] == two["regret"]
    pd.testing.assert_frame_equal(_runs_table(tmp_path / "one"), _runs_table(tmp_path / "two"))


def test_user_policy_is_the_same_as_the_builtin_it_copies():
    """The user copy of GP-UCB chooses exactly what the built-in does (common random numbers)."""
    a = run_check("gp_ucb", runs=4, horizon=10, seed=5, policies=[CountingUCB])
    b = run_check("gp_ucb", runs=4, horizon=10, seed=5)
    assert a["regret"]["counting_ucb"] == b["regret"]["gp_ucb"]


def test_resume_key_covers_the_scenario_content_not_its_name(tmp_path):
    sc = get_scenario("gp_sample_se")
    run_check("gp_ucb", scenario=sc, runs=4, horizon=6, seed=1, out=tmp_path)
    changed = replace(sc, noise=0.2)  # same name, different noise
    with pytest.raises(BoundcheckError, match="different configuration"):
        run_check("gp_ucb", scenario=changed, runs=4, horizon=6, seed=1, out=tmp_path)


def test_policy_reference_by_file_and_module(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text("from boundcheck.policies.gp_ucb import GPUCB\n"
                 "class Mine(GPUCB):\n    name = 'mine'\n"
                 "    def __init__(self):\n        super().__init__('mine', 'Mine')\n")
    spec = api.resolve_policy(f"{f}:Mine")
    assert spec.make().name == "mine"
    assert api.resolve_policy("boundcheck.policies.gp_ts:GPTS").name == "gp_ts"
    for bad in ("nope.py:X", "boundcheck.policies:Nope", "no_such_module_xyz:X", "noseparator"):
        with pytest.raises(BoundcheckError):
            api.resolve_policy(bad)


# ------------------------------------------------------------------------------------ declared protocols
@pytest.mark.parametrize("name", [n for n in policy_names() if n not in ("pe_gp_ucb", "mle", "fully_bayesian",
                                                                           "regret_balancing",
                                                                           "regret_balancing_literal",
                                                                           "oracle_tv_gp_ucb")])
def test_builtin_single_model_policies_pass_check_policy(name):
    check_policy(name)


@pytest.mark.parametrize("name", ["pe_gp_ucb", "mle", "fully_bayesian", "regret_balancing", "oracle_tv_gp_ucb"])
def test_builtin_prior_selection_policies_pass_check_policy(name):
    check_policy(name, scenario="pe_toy_tv")


class Undeclared(CountingUCB):
    records = frozenset({"mu"})


class CrossTalk(CountingUCB):
    def select(self, t, available):
        a = super().select(t, available)
        return np.full_like(a, a[0, 0])  # every run copies run 0's choice


class Unavailable(CountingUCB):
    def select(self, t, available):
        return np.full((self.ctx.runs, 1), -1)


@pytest.mark.parametrize("cls, match", [(Undeclared, "not declared"), (CrossTalk, "batched"),
                                        (Unavailable, "select\\(\\) must return|outside")])
def test_check_policy_catches_broken_policies(cls, match):
    with pytest.raises((AssertionError, BoundcheckError), match=match):
        check_policy(cls)


def test_claims_a_main_policy_does_not_record_for_are_not_applicable():
    """A checked policy without the records a claim reads gets "not applicable" for that claim (the
    engine's reference posterior still gives it the truth-side monitors); a family whose every claim needs a
    record refuses it with one line."""

    class Bare(Policy):
        name = "bare"

        def select(self, t, available):
            return np.zeros((self.ctx.runs, 1), dtype=np.int64)

        def update(self, t, action, y):
            pass

    spec = api.build_study("gp_ucb", runs=2, horizon=3, policies=[Bare])
    assert spec.not_applicable["bare"] == {"D1_optimism": "needs sigma, ucb", "D2_intermediate": "needs sigma, ucb",
                                           "D3_information": "needs sigma"}
    with pytest.raises(BoundcheckError, match="read .*prior.* which policy 'bare' does not record"):
        api.build_study("pe_gp_ucb", runs=2, horizon=3, policies=[Bare])


# ----------------------------------------------------------------------------------- K base arms
def test_topk_oracle_and_values():
    acts = TopK(AlwaysAvailable(5), k=2)
    f = np.array([[0.0, 3.0, 1.0, 3.0, -1.0], [5.0, 4.0, 0.0, 0.0, 0.0]])
    avail = np.array([[True, True, True, False, True], [True] * 5])
    a = acts.oracle(f, avail)
    np.testing.assert_array_equal(a, [[1, 2], [0, 1]])  # arm 3 unavailable in run 0; ties to the lowest index
    np.testing.assert_allclose(acts.best_value(f, avail), [4.0, 9.0])
    np.testing.assert_allclose(acts.value(f, np.array([[0, 4], [2, 3]])), [-1.0, 0.0])
    with pytest.raises(BoundcheckError, match="fewer than K"):
        TopK(AlwaysAvailable(5), k=3).oracle(f, np.array([True, True, False, False, False]))
    single = SingleArm(AlwaysAvailable(5))
    np.testing.assert_array_equal(single.oracle(f, avail), [[1], [0]])


def test_batch_condition_equals_sequential_and_joint_formula():
    rng = np.random.default_rng(0)
    x = np.linspace(0, 1, 9)[:, None]
    K = RBF(0.3)(x, x)
    prior = GPPrior("p", np.zeros(9), K)
    idx = np.array([[1, 4, 4], [0, 8, 2]])
    y = rng.normal(size=(2, 3))
    a = BatchedPosterior([prior], 0.1, 2)
    a.condition_batch(idx, y)
    b = BatchedPosterior([prior], 0.1, 2)
    for k in range(3):
        b.condition(idx[:, k], y[:, k])
    np.testing.assert_array_equal(a.mean(), b.mean())
    for r in range(2):  # joint Gaussian conditioning on the K values at once
        X = idx[r]
        G = K[np.ix_(X, X)] + 0.1 * np.eye(3)
        mu = K[:, X] @ np.linalg.solve(G, y[r])
        np.testing.assert_allclose(a.mean()[r, 0], mu, atol=1e-10)
        np.testing.assert_allclose(a.cov()[r], K - K[:, X] @ np.linalg.solve(G, K[X]), atol=1e-10)


class TopKUCB(CountingUCB):
    """Combinatorial GP-UCB over top-K super arms (for the engine test only)."""

    records = frozenset()

    def select(self, t, available):
        mu, sd = self.posterior.mean()[:, 0], self.posterior.sd()[:, 0]
        self.record = {}
        return self.ctx.actions.oracle(mu + self.ctx.beta[t] * sd, available)


def test_engine_runs_super_arms_with_noise_per_base_arm():
    from boundcheck.study.engine import simulate

    spec = api.build_study("gp_ucb", runs=3, horizon=6, seed=2, policies=["gp_ucb"])
    sc = replace(spec.scenario, action_set=TopK(spec.scenario.availability, k=3))
    inst = spec.family.instantiate(sc, 6, spec.delta)
    traj = simulate(sc, [PolicySpec("topk", TopKUCB), PolicySpec("random", api.resolve_policy("random").factory)],
                    [0, 1, 2], 2, inst)
    assert traj.noise_arms.shape == (3, 6, 3)
    assert np.unique(traj.noise_arms).size == 3 * 6 * 3  # one draw per base arm
    for tr in traj.algorithms.values():
        assert tr.actions.shape == (3, 6, 3) and tr.obs.shape == (3, 6, 3)
        assert all(len(set(a)) == 3 for a in tr.actions.reshape(-1, 3))  # K distinct base arms
        assert (tr.regret >= -1e-12).all()
    f = traj.truth["f"]
    top = np.sort(f, axis=1)[:, -3:].sum(axis=1)
    np.testing.assert_allclose(traj.f_opt, np.repeat(top[:, None], 6, axis=1))
