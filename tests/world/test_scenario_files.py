"""Scenarios as TOML files. Every built-in scenario is a file and loads bit-identical to the scenario
the Python code built before the move (pins recorded before it: tests/_support/scenario_pins.py); bad files give one
line naming the file, the key and what was expected (exit 2), and nothing is written."""

import json
from pathlib import Path

import numpy as np
import pytest
from scenario_pins import (
    PINS,
    RESULT_CASES,
    added_fields_at_defaults,
    case_key,
    result_fingerprint,
    scenario_fingerprints,
)

from boundcheck import api
from boundcheck.cli import main
from boundcheck.model.posterior import use_arithmetic
from boundcheck.world import get_scenario, load_scenario, register_generator, scenario_names
from boundcheck.world.catalogue import scenario_files
from boundcheck.world.scenario_files import ScenarioFileError, apply_overrides, read_toml

PINNED = json.loads(PINS.read_text())


def test_every_builtin_scenario_is_a_file_and_bit_identical_to_its_pin():
    files = scenario_files()
    assert set(PINNED["scenarios"]) <= set(files) <= set(scenario_names())
    for name, want in PINNED["scenarios"].items():
        assert read_toml(files[name])["name"] == name == files[name].stem
        sc = get_scenario(name)
        assert sc.source == str(files[name])
        assert scenario_fingerprints(sc) == want, name  # every array, number and text
        assert not added_fields_at_defaults(sc), name


# the cheaper half of the recorded result pins (the scenario pins above already cover every array of all of them)
TESTED = [c for c in RESULT_CASES if c[1] in ("pe_sensors_misspecified", "rkhs_norm_exceeds", "rosenbrock",
                                              "sensors_004_replication", "rkhs_paper_matern_replication")]


@pytest.mark.parametrize("case", TESTED, ids=case_key)
def test_results_of_scenarios_outside_the_regression_pins_are_bit_identical(case):
    want = PINNED["results"][case_key(case)]
    with use_arithmetic("reference"):  # the pins were recorded with the first engine's arithmetic
        got = result_fingerprint(*case)
    # the generic conformance claim came later: a sanity identity here (no shadow runs), left out
    extra = [c for c in got["claims"] if c["id"] == "conformance"]
    assert all(c["kind"] == "identity" and c["violations"] == 0 for c in extra)
    got["claims"] = [c for c in got["claims"] if c["id"] != "conformance"]
    assert got["claims"] == want["claims"] and got["regret"] == want["regret"] and got["bound"] == want["bound"]
    for table, cols in want["tables"].items():
        for col, h in cols.items():
            assert got["tables"][table].get(col) == h, f"{table}.{col} changed"


def test_package_data_ships_the_files():
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"boundcheck.papers" = ["*/scenarios/*.toml", "*/power/*.json"]' in text
    package = Path(__file__).resolve().parents[2] / "boundcheck"
    files = {k: p for k, p in scenario_files().items() if package in p.parents}  # an installed plugin ships its own
    assert len(files) >= 17 and all(p.is_file() and p.parent.parent.parent.name == "papers" for p in files.values())


USER = """
name = "my_problem"
description = "2-d Matérn-3/2 on ${n_points} points from a CSV"
horizon = 12
delta = 0.05
noise = 0.1
runs = 7

[generator]
name = "test.count"

[domain]
csv = "points.csv"

[kernel]
family = "matern"
nu = 1.5
lengthscale = 0.3

[[priors]]
name = "model"
mean = 0.0

[truth]
prior = "model"

[availability]
kind = "alternating"
restricted = [0, 1, 2, 3, 4, 5]
note = "the first six points on even t"
"""


@pytest.fixture
def user_file(tmp_path):
    register_generator("test.count", lambda points: {"n_points": len(points)}, replace=True)
    rng = np.random.default_rng(1)
    pts = rng.uniform(size=(30, 2))
    (tmp_path / "points.csv").write_text("x,y\n" + "\n".join(f"{a},{b}" for a, b in pts) + "\n")
    path = tmp_path / "my_problem.toml"
    path.write_text(USER)
    return path


def test_a_user_file_loads_validates_and_verifies(user_file, tmp_path, capsys):
    sc = load_scenario(user_file)
    assert sc.domain.n == 30 and sc.domain.dim == 2 and sc.default_runs == 7
    assert sc.description == "2-d Matérn-3/2 on 30 points from a CSV"
    assert sc.availability.mask(2).sum() == 6 and sc.availability.mask(1).all()
    assert main(["scenario", "validate", str(user_file)]) == 0
    assert main(["scenario", "show", str(user_file), "--json"]) == 0
    capsys.readouterr()
    out = tmp_path / "out"
    args = ["verify", "--theorem", "gp_ucb", "--scenario", str(user_file), "--jobs", "1", "--out", str(out),
            "--no-report", "--json"]
    # X_t alternates: outside Theorem 1 (a fixed decision set), so not applicable unless run anyway
    assert main(args) == 3 and not out.exists()
    assert "decision set" in json.loads(capsys.readouterr().out)["out_of_theory_reasons"][0]
    assert main(args + ["--allow-out-of-theory"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["scenario"] == "my_problem" and s["runs"] == 7 and s["horizon"] == 12 and s["delta"] == 0.05
    assert api.build_study("gp_ucb", user_file, runs=3).runs == 3  # flags win over the file


def test_overrides_set_dotted_keys(user_file):
    data = read_toml(user_file)
    changed = apply_overrides(data, {"kernel.lengthscale": 0.1, "priors.*.eps": 0.2, "noise": 0.3})
    assert data["kernel"]["lengthscale"] == 0.3  # the original is untouched
    sc = load_scenario(user_file, {"kernel.lengthscale": 0.1, "priors.*.eps": 0.2})
    assert sc.candidates[0].eps == 0.2 and changed["noise"] == 0.3
    assert not np.allclose(sc.candidates[0].K, load_scenario(user_file).candidates[0].K)


BAD = [
    ('s|horizon = 12|horizon = -3|', "key 'horizon': expected an integer ≥ 1, got -3"),
    ('s|delta = 0.05|delta = 1.5|', "key 'delta': expected a probability δ in (0, 1), got 1.5"),
    ('s|lengthscale = 0.3|lengthscale = "wide"|', "key 'kernel.lengthscale': expected a positive number, got 'wide'"),
    ('s|nu = 1.5|nu = 2.0|', "key 'kernel.nu': expected 0.5, 1.5 or 2.5, got 2.0"),
    ('s|prior = "model"|prior = "modle"|', "key 'truth.prior': expected the name of one of the [[priors]]"),
    ('s|csv = "points.csv"|csv = "nope.csv"|', "key 'domain.csv': expected a CSV file of points"),
    ('s|runs = 7|rnus = 7|', "unknown key 'rnus'; expected one of"),
    ('s|\\[kernel\\]|[kernel|', "malformed TOML"),
    ('s|noise = 0.1||', "key 'noise': expected a value (required)"),
    ('s|name = "test.count"|name = "test.nope"|', "key 'generator.name': expected a registered generator"),
    ('s|restricted = \\[0, 1, 2, 3, 4, 5\\]|restricted = [99]|', "key 'availability.restricted': expected indices"),
    ('s|mean = 0.0|mean = [1.0, 2.0]|', "key 'priors.0.mean': expected a number or a list of 30 numbers"),
    ('s|family = "matern"|matrix = [[1.0, 2.0], [2.0, 1.0]]|', "key 'kernel.matrix': expected a square matrix on the "
                                                               "domain of shape 30 × 30"),
    ('s|family = "matern"|family = "matern"\\nmatrix = [[1.0]]|', "key 'kernel': expected either family"),
]


@pytest.mark.parametrize("edit, message", BAD, ids=[b[1][:30] for b in BAD])
def test_bad_files_are_one_line_errors_naming_the_file_and_key(user_file, tmp_path, capsys, edit, message):
    import re

    pattern, _, rest = edit[2:].partition("|")
    repl = rest.rsplit("|", 1)[0]
    bad = tmp_path / "bad.toml"
    bad.write_text(re.sub(pattern, repl, user_file.read_text(), count=1))
    with pytest.raises(ScenarioFileError) as exc:
        load_scenario(bad)
    assert str(exc.value).startswith(f"{bad}: ") and message in str(exc.value)
    assert main(["scenario", "validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and str(bad) in err
    out = tmp_path / "never"
    assert main(["verify", "--theorem", "gp_ucb", "--scenario", str(bad), "--out", str(out)]) == 2
    assert not out.exists()  # nothing written


def test_a_non_psd_matrix_and_a_missing_file(tmp_path):
    path = tmp_path / "psd.toml"
    path.write_text('name = "x"\nhorizon = 3\ndelta = 0.1\nnoise = 0.1\n[domain]\nindices = {n = 2}\n'
                    '[kernel]\nmatrix = [[1.0, 2.0], [2.0, 1.0]]\n[[priors]]\nname = "p"\n[truth]\nprior = "p"\n')
    with pytest.raises(ScenarioFileError, match=r"psd.toml: key 'priors.0': .*not positive semi-definite"):
        load_scenario(path)
    with pytest.raises(ScenarioFileError, match="scenario file .*absent.toml not found"):
        load_scenario(tmp_path / "absent.toml")


def test_the_example_scenario_file_is_valid():
    root = Path(__file__).resolve().parents[2] / "examples"
    for path in root.glob("*.toml"):
        assert main(["scenario", "validate", str(path)]) == 0
    sc = load_scenario(root / "my_problem.toml")
    assert sc.domain.n == 60 and sc.default_runs == 100 and sc.truth_index == 0


# ------------------------------------------------------------------ a file format for every family
def _reference_builders() -> dict:
    import scenario_builders

    return {name: fn for table in scenario_builders.TABLES for name, fn in table.items()}


def _family_names() -> list[str]:
    import scenario_builders

    return [name for table in scenario_builders.TABLES for name in table]


@pytest.mark.parametrize("name", _family_names())
def test_family_files_build_the_python_builders_scenario_bit_for_bit(name):
    """Each built-in scenario of papers 001–003 is a file whose scenario equals, field by field and array by array
    (dtype, shape and bytes), what its Python builder built before the move."""
    from boundcheck.utils.blas import scenario_blas
    from boundcheck.utils.hashing import canonical

    files = scenario_files()
    with scenario_blas():  # as every scenario is built (files and builders alike), whatever the environment says
        built = _reference_builders()[name]()
    sc = get_scenario(name)
    assert sc.source == str(files[name]) and files[name].stem == name
    assert type(sc) is type(built)
    assert canonical(sc) == canonical(built)


def test_every_builtin_scenario_is_a_file():
    rows = api.scenario_list()
    assert len(rows) >= 63 and all(r["file"] for r in rows), [r["name"] for r in rows if not r["file"]]


def test_the_schema_is_published_and_covers_every_file(capsys):
    from boundcheck.world.scenario_files import _ROOT_KEYS, file_families, schema
    from boundcheck.world.scenario_stationary import BOX_ONLY_KEYS

    assert main(["scenario", "schema"]) == 0
    doc = json.loads(capsys.readouterr().out)
    branches = {b["title"].split("'")[1]: b for b in doc["oneOf"]}
    assert {"stationary", *file_families()} == set(branches)
    # the reader's keys are the schema's (a box file's own keys beside them)
    assert set(branches["stationary"]["properties"]) == _ROOT_KEYS | BOX_ONLY_KEYS
    for name, path in scenario_files().items():
        data = read_toml(path)
        node = branches[data.get("family", "stationary")]
        assert set(node["required"]) <= set(data) <= set(node["properties"]), name
        for key, value in data.items():  # the tables' keys too (one level down)
            sub = node["properties"][key]
            if isinstance(value, dict) and sub.get("additionalProperties") is False:
                assert set(sub.get("required", ())) <= set(value) <= set(sub["properties"]), f"{name}: {key}"
    assert main(["scenario", "schema", "--family", "et_gp_ucb.eps_chain"]) == 0
    assert json.loads(capsys.readouterr().out)["properties"]["family"] == {"const": "et_gp_ucb.eps_chain"}
    assert main(["scenario", "schema", "--family", "nope"]) == 2
    assert "unknown scenario-file family 'nope'" in capsys.readouterr().err
    assert schema("et_gp_ucb.eps_chain")["required"][0] == "family"


EPS_CHAIN = """
family = "et_gp_ucb.eps_chain"
name = "it"
horizon = 40
delta = 0.1

[grid]
points_per_axis = 12
dim = 2

[model]
kernel = "se"
lengthscale = 0.2
eps = 0.0
noise_var = 0.02

[truth]
lengthscale = 0.1
"""


def test_a_users_variation_budget_file(tmp_path):
    path = tmp_path / "drift.toml"
    path.write_text(VARIATION)
    sc = load_scenario(path)
    assert sc.in_theory and sc.domain.n == 30 and sc.truth.kind == "switch" and sc.truth.n_switches == 2
    assert sc.model_noise == "1+2/H" and "Matérn-5/2 ℓ = 0.2" in sc.candidates[0].name
    assert api.scenario_info(path, "sw_gp_ucb")["applicability"]["applies"]
    from boundcheck.study.sweep import vary_scenario

    swept = vary_scenario(get_scenario("vb_rotation"), {"sequence.P_T": 1.0})  # sweeps vary a family's keys
    assert swept.truth.P_T == 1.0 and swept.window != get_scenario("vb_rotation").window
    told = load_scenario(path, {"theorem.P_T": 1.0})  # the theorem told less than the sequence's budget
    app = api.scenario_applicability(told, "sw_gp_ucb")
    assert not app["applies"] and any(r["predicate"] == "variation_budget_within" and r["ok"] is False
                                      for r in app["rows"])


def test_a_users_misspecified_eps_chain_is_not_applicable_and_violated_when_run_anyway(tmp_path, capsys):
    """A user's misspecified ε chain: truth ℓ = 0.1, model ℓ = 0.2: exit 3 naming the predicate; exit 1 (a violation,
    outside the theorem) with --allow-out-of-theory; scenario show says why, predicate by predicate."""
    path = tmp_path / "it.toml"
    path.write_text(EPS_CHAIN)
    sc = load_scenario(path)
    assert not sc.in_theory and sc.out_of_theory_reason == "the truth has lengthscale 0.1, the model 0.2"
    info = api.scenario_info(path, "et_gp_ucb")["applicability"]
    assert not info["applies"]
    rows = {r["predicate"]: r["ok"] for r in info["rows"]}
    assert rows["scenario_kind"] is True and rows["truth_in_candidates"] is False and rows["noise_matches"] is True
    assert main(["scenario", "show", str(path), "--theorem", "et_gp_ucb"]) == 0
    out = capsys.readouterr().out
    assert "NO  truth_in_candidates" in out and "does not apply" in out and "OUT OF THEORY" in out
    args = ["verify", "--theorem", "et_gp_ucb", "--scenario", str(path), "--runs", "20", "--jobs", "1",
            "--no-report", "--out", str(tmp_path / "out")]
    assert main(args) == 3 and not (tmp_path / "out").exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not applicable" in err and "[predicate truth_in_candidates]" in err
    assert main(args + ["--allow-out-of-theory"]) == 1
    assert "violated (outside the theorem" in capsys.readouterr().out
    # the same chain with the model's lengthscale: in theory, and the theorem applies
    path.write_text(EPS_CHAIN.replace("lengthscale = 0.1", "lengthscale = 0.2"))
    assert load_scenario(path).in_theory and api.scenario_info(path, "et_gp_ucb")["applicability"]["applies"]
    # a theorem of another kind of scenario: refused, and show says so
    app = api.scenario_info(path, "igp_ucb")["applicability"]
    assert not app["applies"] and app["rows"][0]["predicate"] == "scenario_kind"


VARIATION = """
family = "r_sw_gp_ucb.variation_budget"
name = "drift"
horizon = 50
delta = 0.1
noise = 0.1

[domain]
line = 30

[kernel]
family = "matern"
lengthscale = 0.2

[sequence]
kind = "switch"
P_T = 2.0
B = 1.0
switches = 2

[theorem]
lambda = "1+2/H"
"""

DAG_FILE = """
family = "combinatorial.dag_paths"
name = "diamond"
horizon = 20
delta = 0.1
noise = 0.5

[graph]
nodes = [[0.0, 0.0], [1.0, 1.0], [1.0, -1.0], [2.0, 0.0], [3.0, 0.0]]
edges = [[0, 1], [0, 2], [1, 3], [2, 3], [1, 2], [3, 4], [0, 3]]
start = 0
goal = 4

[kernel]
family = "se"
lengthscale = 1.0

[availability]
closure_probability = 0.2
"""

ROAD_FILE = """
family = "combinatorial.road"
name = "my_roads"
horizon = 20
delta = 0.1

[network]
nodes_csv = "nodes.csv"
edges_csv = "roads.csv"

[vehicle]
m = 1500.0

[route]
start = 0
goal = 15
stretch = 1.5

[kernel]
feature_lengthscale = 1.0
"""

TOPK_FILE = """
family = "combinatorial.top_k"
name = "bernoulli"
horizon = 30
delta = 0.1
noise = 0.5

[domain]
uniform = {n = 15, dim = 3, seed = 7}

[kernel]
family = "se"
lengthscale = 0.4

[actions]
k = 3
p_available = 0.5
"""

CONTEXTS_FILE = """
family = "combinatorial.contexts"
name = "ctx"
horizon = 30
delta = 0.1
noise = 0.5

[features]
frequencies = 8
dim = 2
lengthscale = 0.3
seed = 1

[actions]
slots = 6
k = 2

[truth]
noise_scale = 2.0
"""


def _road_csvs(folder: Path) -> None:
    """A 4 × 4 street grid, 500 m apart, every street both ways."""
    nodes = ["x,y,elevation"] + [f"{500 * j},{500 * i},{5 * i + 3 * j}" for i in range(4) for j in range(4)]
    roads, speeds = ["tail,head,speed_kmh"], [30, 50, 70, 90]
    for i in range(4):
        for j in range(4):
            v = 4 * i + j
            for c, w in enumerate(([v + 1] if j < 3 else []) + ([v + 4] if i < 3 else [])):
                roads += [f"{v},{w},{speeds[(v + c) % 4]}", f"{w},{v},{speeds[(v + c) % 4]}"]
    (folder / "nodes.csv").write_text("\n".join(nodes) + "\n")
    (folder / "roads.csv").write_text("\n".join(roads) + "\n")


def test_users_combinatorial_files(tmp_path):
    from boundcheck.papers.combinatorial.catalogue import VEHICLE, edge_energy
    from boundcheck.papers.combinatorial.world import BernoulliArms, EdgeClosures, RoadPaths

    for name, text in (("dag", DAG_FILE), ("road", ROAD_FILE), ("topk", TOPK_FILE), ("ctx", CONTEXTS_FILE)):
        (tmp_path / f"{name}.toml").write_text(text)
    _road_csvs(tmp_path)
    dag = load_scenario(tmp_path / "dag.toml")
    assert dag.actions.dag.k_max == 4 and dag.domain.n == 7 and isinstance(dag.availability, EdgeClosures)
    assert np.allclose(dag.domain.points[0], [0.5, 0.5])  # the edges' midpoints
    assert api.scenario_applicability(dag, "comb_gp_ucb")["applies"]
    # the same DAG from CSV files
    (tmp_path / "n.csv").write_text("x,y\n0,0\n1,1\n1,-1\n2,0\n3,0\n")
    (tmp_path / "e.csv").write_text("tail,head\n0,1\n0,2\n1,3\n2,3\n1,2\n3,4\n0,3\n")
    (tmp_path / "dag2.toml").write_text(DAG_FILE.replace("nodes = [[0.0, 0.0], [1.0, 1.0], [1.0, -1.0], [2.0, 0.0], "
                                                         "[3.0, 0.0]]", 'nodes_csv = "n.csv"')
                                        .replace("edges = [[0, 1], [0, 2], [1, 3], [2, 3], [1, 2], [3, 4], [0, 3]]",
                                                 'edges_csv = "e.csv"'))
    dag2 = load_scenario(tmp_path / "dag2.toml")
    assert np.array_equal(dag2.domain.points, dag.domain.points) and np.array_equal(dag2.truth.K, dag.truth.K)
    road = load_scenario(tmp_path / "road.toml")
    assert isinstance(road.actions, RoadPaths) and road.actions.dag.start != road.actions.dag.goal
    assert road.in_theory and "road network of roads.csv (16 intersections, 48 directed roads)" in road.description
    assert "stretch 1.5" in road.notes[-1]
    # eq. (8) with the file's vehicle mass: the prior mean is −E_det of the corridor's roads
    heavier = load_scenario(tmp_path / "road.toml", {"vehicle.m": VEHICLE["m"]})
    assert not np.array_equal(heavier.truth.mean, road.truth.mean)
    assert edge_energy(np.array([100.0]), np.array([0.0]), np.array([10.0]))[0] > 0
    topk = load_scenario(tmp_path / "topk.toml")
    assert isinstance(topk.availability, BernoulliArms) and topk.availability.minimum == 3
    assert topk.domain.dim == 3 and topk.actions.K == 3
    ctx = load_scenario(tmp_path / "ctx.toml")
    assert ctx.noise_law == "gaussian:2.0"
    app = api.scenario_applicability(ctx, "comb_gp_ucb_infinite")
    assert not app["applies"] and {"noise_matches"} <= {r["predicate"] for r in app["rows"] if r["ok"] is False}


FAMILY_BAD = [
    ("dag", "[0, 3]]", "[0, 3], [4, 0]]", "key 'graph': "),
    ("dag", "goal = 4", "goal = 9", "key 'graph': "),
    ("dag", "closure_probability = 0.2", "closure_probability = 1.0", "key 'availability.closure_probability'"),
    ("road", "m = 1500.0", "mass = 1500.0", "unknown key 'vehicle.mass'; expected one of A, C_d, C_r"),
    ("road", 'edges_csv = "roads.csv"', 'edges_csv = "roads.csv"\nsynthetic = {nodes = 9, side = 1.0, '
     'neighbours = 2, seed = 1}',
     "key 'network': expected exactly one of synthetic, nodes_csv with edges_csv, or graphml"),
    ("road", 'nodes_csv = "nodes.csv"', 'nodes_csv = "roads.csv"', "key 'network.nodes_csv': expected a CSV whose "
     "header names x, y, elevation"),
    ("road", "goal = 15", "goal = 0", "key 'route': expected distinct start and goal"),
    ("topk", "p_available = 0.5", "p_available = 0.5\navailable = 4", "key 'actions': expected exactly one of "
     "available, p_available"),
    ("topk", "k = 3", "k = 30", "key 'actions.available'"),
    ("ctx", "k = 2", "k = 7", "key 'actions.k': expected at most slots = 6, got 7"),
    ("ctx", "seed = 1", "seed = -1", "key 'features.seed': expected an integer ≥ 0, got -1"),
    ("variation", "line = 30", "line = 30\ngrid = 5", "key 'domain': expected exactly one of line, grid"),
    ("variation", 'kind = "switch"', 'kind = "rotation"', "key 'sequence.switches': expected no switches for kind"),
    ("variation", "P_T = 2.0", "P_T = 20.0", "drift.toml: sequence 'switch (P_T = 20)': a switch between points"),
    ("variation", "noise = 0.1", "noise = 0.1\nnoise_law = \"cauchy\"", "unknown noise law 'cauchy'"),
    ("variation", 'lambda = "1+2/H"', 'lambda = "2"', "key 'theorem.lambda': expected one of '1', '1+2/H'"),
    ("eps_chain", "lengthscale = 0.1", "lengthscale = -0.1", "key 'truth.lengthscale': expected a positive"),
    ("eps_chain", "eps = 0.0", "eps = 1.5", "key 'model.eps': expected an ε in [0, 1], got 1.5"),
    ("eps_chain", "kernel = \"se\"", "kernel = \"cubic\"", "key 'model.kernel': expected one of 'se'"),
    ("eps_chain", "dim = 2", "dim = 2\nsize = 3", "unknown key 'grid.size'; expected one of dim, points_per_axis"),
    ("eps_chain", "horizon = 40", "", "key 'horizon': expected a value (required)"),
    ("eps_chain", "horizon = 40", "horizon = 40\nin_theory = true", "key 'in_theory': expected false"),
    ("eps_chain", 'family = "et_gp_ucb.eps_chain"', 'family = "et_gp_ucb.nope"',
     "key 'family': expected one of 'stationary'"),
]


@pytest.mark.parametrize("which, old, new, message", FAMILY_BAD, ids=[b[3][:30] for b in FAMILY_BAD])
def test_bad_family_files_are_one_line_errors_naming_the_key(tmp_path, capsys, which, old, new, message):
    text = {"eps_chain": EPS_CHAIN, "variation": VARIATION, "dag": DAG_FILE, "road": ROAD_FILE, "topk": TOPK_FILE,
            "ctx": CONTEXTS_FILE}[which]
    assert old in text
    _road_csvs(tmp_path)
    bad = tmp_path / ("drift.toml" if which == "variation" else "bad.toml")
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(ScenarioFileError) as exc:
        load_scenario(bad)
    assert str(exc.value).startswith(f"{bad}: ") and message in str(exc.value)
    assert main(["scenario", "validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_a_family_of_ones_own(tmp_path):
    """A paper of one's own adds a family (what FILE_FAMILIES does for an installed one); its keys come from its
    schema, its errors name their keys the same way."""
    from boundcheck.papers.et_gp_ucb.catalogue import tv_grid
    from boundcheck.world import FileFamily, register_file_family
    from boundcheck.world.scenario_files import COMMON_PROPERTIES, finish_common, object_schema, read_common

    def parse(f, root):
        common = read_common(f, root)
        n = f.integer(root, "points", "")
        return finish_common(f, tv_grid(common.name, points_per_axis=n, dim=1, horizon=common.horizon), common)

    schema_ = object_schema({**COMMON_PROPERTIES, "family": {"const": "mine.line"}, "points": {"type": "integer"}},
                            ("family", "name", "horizon", "points"))
    with pytest.raises(Exception, match="<paper id>.<name>"):
        register_file_family(FileFamily("line", parse, schema_))
    register_file_family(FileFamily("mine.line", parse, schema_, "a line"), replace=True)
    path = tmp_path / "mine.toml"
    path.write_text('family = "mine.line"\nname = "l"\nhorizon = 5\npoints = 7\nruns = 3\nnotes = ["mine"]\n')
    sc = load_scenario(path)
    assert sc.domain.n == 7 and sc.default_runs == 3 and sc.notes[-1] == "mine" and sc.source == str(path)
    path.write_text('family = "mine.line"\nname = "l"\nhorizon = 5\npoints = 0\n')
    with pytest.raises(ScenarioFileError, match=r"key 'points': expected an integer ≥ 1, got 0"):
        load_scenario(path)
    path.write_text('family = "mine.line"\nname = "l"\nhorizon = 5\n')
    with pytest.raises(ScenarioFileError, match=r"key 'points': expected a value \(required\)"):
        load_scenario(path)
    assert "mine.line" in api.scenario_schema()["oneOf"][-1]["title"]


# ------------------------------------------------------------------------------------ GraphML
def _graphml(path: Path, nodes: list[dict], edges: list[tuple], *, directed: bool = True, defaults: dict | None = None,
             head: str = '<?xml version="1.0" encoding="UTF-8"?>\n', graph_extra: str = "") -> Path:
    """A GraphML file: ``nodes`` (attribute dicts, ids n0, n1, ...), ``edges`` (source, target, attribute dict)
    with a <key> per attribute (``defaults``: their <default>s)."""
    defaults = defaults or {}
    names = {"node": sorted({k for n in nodes for k in n} | {k for k in defaults if k != "speed_kmh"}),
             "edge": sorted({k for e in edges for k in e[2]} | ({"speed_kmh"} & set(defaults)))}
    keys = [f'<key id="{w}_{a}" for="{w}" attr.name="{a}" attr.type="double">'
            + (f"<default>{defaults[a]}</default>" if a in defaults else "") + "</key>"
            for w in ("node", "edge") for a in names[w]]
    body = [f'<node id="n{i}">' + "".join(f'<data key="node_{k}">{v}</data>' for k, v in n.items()) + "</node>"
            for i, n in enumerate(nodes)]
    body += [f'<edge source="{s}" target="{t}">' + "".join(f'<data key="edge_{k}">{v}</data>' for k, v in a.items())
             + "</edge>" for s, t, a in edges]
    path.write_text(head + '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n' + "\n".join(keys)
                    + f'\n<graph id="G" edgedefault="{"directed" if directed else "undirected"}">\n' + "\n".join(body)
                    + f"\n{graph_extra}</graph>\n</graphml>\n")
    return path


def _road_graphml(folder: Path, name: str = "roads.graphml", **kw) -> Path:
    """The street grid of :func:`_road_csvs`, as GraphML (the same numbers, the same order)."""
    _road_csvs(folder)
    rows = [r.split(",") for r in (folder / "nodes.csv").read_text().split()[1:]]
    nodes = [{"x": x, "y": y, "elevation": z} for x, y, z in rows]
    edges = [(f"n{t}", f"n{h}", {"speed_kmh": s}) for t, h, s in
             (r.split(",") for r in (folder / "roads.csv").read_text().split()[1:])]
    return _graphml(folder / name, nodes, edges, **kw)


def _summary(result) -> dict:
    return {k: result[k] for k in ("verdict", "claims", "bound", "tightness", "regret", "runs", "horizon")}


def test_a_graphml_road_network_is_the_csv_one(tmp_path):
    """The same road grid from CSV files and from a GraphML file: the same scenario, bit for bit (every pinned
    array and number), and the same summary of a short verify at a fixed seed."""
    from scenario_pins import PINNED_FIELDS

    _road_graphml(tmp_path)
    (tmp_path / "csv.toml").write_text(ROAD_FILE)
    (tmp_path / "gml.toml").write_text(ROAD_FILE.replace('nodes_csv = "nodes.csv"\nedges_csv = "roads.csv"',
                                                         'graphml = "roads.graphml"'))
    a, b = load_scenario(tmp_path / "csv.toml"), load_scenario(tmp_path / "gml.toml")
    assert "road network of roads.graphml (16 intersections, 48 directed roads)" in b.description
    assert "truth" in PINNED_FIELDS and scenario_fingerprints(a)["numbers"] == scenario_fingerprints(b)["numbers"]
    assert np.array_equal(a.truth.K, b.truth.K) and np.array_equal(a.truth.mean, b.truth.mean)
    kw = dict(runs=3, horizon=8, seed=5, jobs=1, out=None, report=False)
    assert _summary(api.verify("comb_gp_ucb", a, **kw)) == _summary(api.verify("comb_gp_ucb", b, **kw))


def test_comb_road_1_exported_as_undirected_graphml_is_comb_road_1(tmp_path):
    """comb_road_1's synthetic network written as an undirected GraphML graph (one <edge> per road, the most
    common speed as the key's <default>): an undirected edge is a road both ways, the reverse roads after the
    file's, so the scenario is the built-in one, bit for bit."""
    from boundcheck.papers.combinatorial.catalogue import SCENARIO_DIR, road_network

    net = road_network(120, 3000.0, 4, 2025)
    m = net.n_edges // 2
    assert np.array_equal(net.tail[:m], net.head[m:]) and np.array_equal(net.speed[:m], net.speed[m:])
    kmh = np.round(net.speed[:m] * 3.6)
    nodes = [{"x": repr(float(x)), "y": repr(float(y)), "elevation": repr(float(z))}
             for (x, y), z in zip(net.xy, net.elevation, strict=True)]
    edges = [(f"n{t}", f"n{h}", {} if s == 50 else {"speed_kmh": repr(float(s))})
             for t, h, s in zip(net.tail[:m], net.head[:m], kmh, strict=True)]
    _graphml(tmp_path / "lux.graphml", nodes, edges, directed=False, defaults={"speed_kmh": 50})
    text = (SCENARIO_DIR / "comb_road_1.toml").read_text()
    synthetic = "synthetic = {nodes = 120, side = 3000.0, neighbours = 4, seed = 2025}"
    assert synthetic in text
    (tmp_path / "r1.toml").write_text(text.replace(synthetic, 'graphml = "lux.graphml"'))
    sc = load_scenario(tmp_path / "r1.toml")
    assert scenario_fingerprints(sc)["numbers"] == scenario_fingerprints(get_scenario("comb_road_1"))["numbers"]


def test_a_graphml_dag_is_the_inline_one(tmp_path):
    nodes = [{"x": x, "y": y} for x, y in ((0.0, 0.0), (1.0, 1.0), (1.0, -1.0), (2.0, 0.0), (3.0, 0.0))]
    pairs = [(0, 1), (0, 2), (1, 3), (2, 3), (1, 2), (3, 4), (0, 3)]
    _graphml(tmp_path / "dag.graphml", nodes, [(f"n{t}", f"n{h}", {}) for t, h in pairs])
    (tmp_path / "inline.toml").write_text(DAG_FILE)
    inline = DAG_FILE.split("[graph]\n")[1].split("start")[0]
    (tmp_path / "gml.toml").write_text(DAG_FILE.replace(inline, 'graphml = "dag.graphml"\n'))
    a, b = load_scenario(tmp_path / "inline.toml"), load_scenario(tmp_path / "gml.toml")
    assert scenario_fingerprints(a) == scenario_fingerprints(b)  # texts too: the DAG's description is the same
    assert np.array_equal(b.actions.dag.tail, [t for t, _ in pairs]) and b.actions.dag.k_max == 4
    # start and goal may be the file's node ids
    (tmp_path / "ids.toml").write_text((tmp_path / "gml.toml").read_text().replace("start = 0", 'start = "n0"')
                                       .replace("goal = 4", 'goal = "n4"'))
    assert scenario_fingerprints(load_scenario(tmp_path / "ids.toml")) == scenario_fingerprints(b)
    (tmp_path / "ids.toml").write_text((tmp_path / "gml.toml").read_text().replace("goal = 4", 'goal = "n9"'))
    with pytest.raises(ScenarioFileError, match=r"key 'graph.goal': expected a node index or the id of a <node> of "
                                                r"the GraphML file \('n0', 'n1', 'n2', 'n3', 'n4'\), got 'n9'"):
        load_scenario(tmp_path / "ids.toml")
    (tmp_path / "ids.toml").write_text(DAG_FILE.replace("goal = 4", 'goal = "n4"'))
    with pytest.raises(ScenarioFileError, match=r"key 'graph.goal': expected a node index \(a node's id only with"):
        load_scenario(tmp_path / "ids.toml")


def _bomb(folder: Path) -> None:
    lol = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    (folder / "roads.graphml").write_text('<?xml version="1.0"?>\n<!DOCTYPE graphml [<!ENTITY l0 "lol">' + lol
                                          + ']>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">&l9;</graphml>')


def _huge(folder: Path) -> None:
    from boundcheck.world.scenario_files import MAX_DATA_BYTES

    with open(folder / "roads.graphml", "wb") as fh:  # sparse: nothing is written to the disk
        fh.truncate(MAX_DATA_BYTES + 1)


GRAPHML_BAD = [  # (table, how the file is spoilt, the message)
    ("network", lambda d: (d / "roads.graphml").unlink(), "expected a GraphML file, got 'roads.graphml (not found)'"),
    ("network", lambda d: (d / "roads.graphml").write_text("x,y,elevation\n0,0,0\n"), "malformed XML"),
    ("network", lambda d: ((d / "roads.graphml").unlink(), (d / "roads.graphml").mkdir()),
     "key 'network.graphml': roads.graphml is not a file: it is a directory"),
    ("network", _bomb, "without a DOCTYPE or entity declarations (refused: they can expand a small file into "
                       "gigabytes), got a DOCTYPE"),
    ("network", _huge, f"roads.graphml is too large ({16 * 1024**2 + 1} bytes; at most {16 * 1024**2}"),
    ("network", lambda d: _road_graphml(d, directed=True, head="").write_text(
        (d / "roads.graphml").read_text().replace('<data key="node_elevation">0</data>', "", 1)),
     "expected every node to have elevation"),
    ("network", lambda d: (d / "roads.graphml").write_text(
        (d / "roads.graphml").read_text().replace('<data key="node_x">500</data>', '<data key="node_x">far</data>',
                                                  1)), "expected a number for x of node 'n1', got 'far'"),
    ("network", lambda d: (d / "roads.graphml").write_text(
        (d / "roads.graphml").read_text().replace('<data key="edge_speed_kmh">30</data>',
                                                  '<data key="edge_speed_kmh">inf</data>', 1)),
     "expected a finite number for speed_kmh of edge 'n0' → 'n1', got 'inf'"),
    ("network", lambda d: (d / "roads.graphml").write_text(
        (d / "roads.graphml").read_text().replace('target="n4"', 'target="n99"', 1)), "to unknown node 'n99'"),
    ("network", lambda d: _road_graphml(d, graph_extra='<hyperedge><endpoint node="n0"/></hyperedge>\n'),
     "hyperedges are not read"),
    ("network", lambda d: _road_graphml(d, graph_extra='<node id="sub"><graph edgedefault="directed"/></node>\n'),
     "nested graphs"),
    ("network", lambda d: (d / "roads.graphml").write_text((d / "roads.graphml").read_text().replace(
        "</graphml>", '<graph edgedefault="directed"/></graphml>')), "exactly one <graph> in the file, got 2 graphs"),
    ("network", lambda d: (d / "roads.graphml").write_text(
        (d / "roads.graphml").read_text().replace('target="n1"', 'target="n0"', 1)),
     "key 'network.graphml': road ends must be distinct"),  # the CSV path's check, naming the GraphML key
    ("graph", lambda d: (d / "dag.graphml").write_text(
        (d / "dag.graphml").read_text().replace('source="n3" target="n4"', 'source="n3" target="n0"')),
     "key 'graph.graphml': the graph has a directed cycle"),
    ("graph", lambda d: (d / "dag.graphml").write_text(
        (d / "dag.graphml").read_text().replace('"directed"', '"undirected"')), "expected a directed graph"),
    ("graph", lambda d: (d / "dag.graphml").write_text((d / "dag.graphml").read_text().replace(
        '<data key="node_y">', '<data key="d9">', 1)), "expected <data key> declared by a <key for=\"node\">"),
]


@pytest.mark.parametrize("table, spoil, message", GRAPHML_BAD, ids=[b[2][:40] for b in GRAPHML_BAD])
def test_hostile_graphml_is_one_line_naming_the_key(tmp_path, capsys, table, spoil, message):
    _road_graphml(tmp_path)
    _graphml(tmp_path / "dag.graphml", [{"x": float(i), "y": 0.0} for i in range(5)],
             [(f"n{t}", f"n{h}", {}) for t, h in ((0, 1), (1, 2), (2, 3), (3, 4), (0, 3))])
    if table == "network":
        text = ROAD_FILE.replace('nodes_csv = "nodes.csv"\nedges_csv = "roads.csv"', 'graphml = "roads.graphml"')
    else:
        text = DAG_FILE.replace(DAG_FILE.split("[graph]\n")[1].split("start")[0], 'graphml = "dag.graphml"\n')
    (tmp_path / "ok.toml").write_text(text)
    assert load_scenario(tmp_path / "ok.toml").name  # the file is fine before it is spoilt
    spoil(tmp_path)
    with pytest.raises(ScenarioFileError) as exc:
        load_scenario(tmp_path / "ok.toml")
    assert f"key '{table}.graphml'" in str(exc.value) and message in str(exc.value), str(exc.value)
    assert main(["scenario", "validate", str(tmp_path / "ok.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and f"{table}.graphml" in err


def test_graphml_is_one_way_of_giving_the_graph(tmp_path, capsys):
    from boundcheck.world.scenario_files import schema

    _road_graphml(tmp_path)
    both = ROAD_FILE.replace('edges_csv = "roads.csv"', 'edges_csv = "roads.csv"\ngraphml = "roads.graphml"')
    (tmp_path / "both.toml").write_text(both)
    with pytest.raises(ScenarioFileError, match="exactly one of synthetic, nodes_csv with edges_csv, or graphml"):
        load_scenario(tmp_path / "both.toml")
    (tmp_path / "dag.toml").write_text(DAG_FILE.replace("goal = 4", 'goal = 4\ngraphml = "roads.graphml"'))
    with pytest.raises(ScenarioFileError, match=r"key 'graph.edges': expected nothing else with graph.graphml"):
        load_scenario(tmp_path / "dag.toml")
    for fam, table in (("combinatorial.road", "network"), ("combinatorial.dag_paths", "graph")):
        assert "graphml" in schema(fam)["properties"][table]["properties"]
    assert main(["scenario", "schema", "--family", "combinatorial.road"]) == 0
    assert "an undirected graph (or edge) is a road both ways" in capsys.readouterr().out


def test_the_graphml_example_and_the_csv_cap(tmp_path, capsys):
    """examples/my_roads.toml (docs/scenarios.md's GraphML example) validates; the CSV files have the GraphML
    file's size cap."""
    from boundcheck.world.scenario_files import MAX_DATA_BYTES

    example = Path(__file__).resolve().parents[2] / "examples" / "my_roads.toml"
    assert main(["scenario", "validate", str(example)]) == 0
    sc = load_scenario(example)
    assert "road network of roads.graphml (16 intersections, 48 directed roads)" in sc.description
    capsys.readouterr()
    _road_csvs(tmp_path)
    (tmp_path / "road.toml").write_text(ROAD_FILE)
    with open(tmp_path / "nodes.csv", "ab") as fh:
        fh.truncate(MAX_DATA_BYTES + 1)
    assert main(["scenario", "validate", str(tmp_path / "road.toml")]) == 2
    assert "key 'network.nodes_csv': nodes.csv is too large" in capsys.readouterr().err
