"""The compiled build of the matching hot path (``consensus_metrics._native``) is the source.

``setup.py`` compiles the modules of ``_native.COMPILED`` (lexer, token rules, normalize,
relations, anchors, segment plan, text index, matching) with Cython, from their ``.py`` files alone (Cython's pure-Python
mode: no ``.pxd`` files). These tests check that the compiled modules are what runs here and
that their declarations took effect, that they give exactly what the ``.py`` sources give (on
real solutions, hostile input and generated math text), that an edited source is never shadowed
by an older build, that the sources run without Cython, and that the doctests of the compiled
modules pass in both builds.
"""

import ast
import doctest
import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from test_hostile_inputs import HOSTILE, PIECES

import consensus_metrics
from consensus_metrics._native import COMPILED, PURE_ENV, native_modules

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "consensus_metrics"
DATA = REPO / "lm_eval_tasks" / "consensusbench" / "data"
QWEN = REPO / "tests" / "fixtures" / "metrics" / "qwen_math_sample.jsonl"
compiled_only = pytest.mark.skipif(not native_modules(), reason="no compiled build here (pure-Python install)")

# the hostile texts of the budget tests, up to a size the source build tokenises in moments
HOSTILE_TEXTS = [text for text in HOSTILE.values() if len(text) <= 120_000]


def _cases():
    """(text, nodes) pairs: sampled solutions, reference solutions of the shipped data, hostile text."""
    with open(QWEN, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            for text in row["responses"]:
                yield text, row["nodes"]
    for name in ("math500", "gsm8k", "aime24", "aime25"):
        with open(DATA / f"{name}.jsonl", encoding="utf-8") as handle:
            records = [json.loads(line) for line in handle]
        for r in records[::5]:
            yield r["solution"], r["nodes"]
    for text in HOSTILE_TEXTS:
        yield text, ["24", "x = 3/4", "x + 1"]


def _results(cm, cases):
    """What a build makes of the cases: tokens of every text and its node matches (JSON-able)."""
    out = []
    for text, nodes in cases:
        toks = cm.tokenize(text)
        matches = cm.match_nodes(text, nodes, budget_s=None, symbolic=False)
        out.append([toks.keys, toks.kinds, toks.starts, toks.ends, toks.spaced, toks.breaks, toks.implicit,
                    [list(m) for m in matches]])
    return out


def test_the_compiled_build_runs_where_cython_is_installed():
    if importlib.util.find_spec("Cython") is None:
        pytest.skip("Cython is not installed: the package runs pure Python")
    if os.environ.get(PURE_ENV) == "1":
        pytest.skip(f"{PURE_ENV}=1: the sources run by request")
    assert native_modules() == list(COMPILED), (
        "compiled modules missing or older than their sources: run `make compile`")
    for name in COMPILED:
        assert not getattr(consensus_metrics, name).__file__.endswith(".py")


def test_the_declarations_live_in_the_sources():
    # the contributor workflow is "edit a .py, run pytest": no second declaration file
    assert sorted(p.name for p in PACKAGE.glob("*.pxd")) == []


def test_every_cython_name_the_sources_use_has_a_stand_in():
    from consensus_metrics import _cython_shadow
    used = set()
    for name in COMPILED:
        tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
        used |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                 and isinstance(node.value, ast.Name) and node.value.id == "cython"}
    assert {"cclass", "declare", "locals"} <= used
    assert not [attr for attr in used if not hasattr(_cython_shadow, attr)]


def test_the_sources_run_without_cython():
    script = ("import sys\nclass NoCython:\n    def find_spec(self, name, path=None, target=None):\n"
              "        if name.split('.')[0] in ('cython', 'Cython'):\n            raise ImportError(name)\n"
              "sys.meta_path.insert(0, NoCython())\nimport consensus_metrics as cm\n"
              "from consensus_metrics import token_rules\nassert token_rules.cython.compiled is False\n"
              "assert cm.canonical_key('\\\\frac{3}{4} x') == '#3/4 * x'\n"
              "print([m.covered for m in cm.match_nodes('so x = 3/4', ['x = 0.75', '4'])])")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO,
                          env=dict(os.environ, **{PURE_ENV: "1"}), timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[True, False]"


@compiled_only
def test_the_compiled_build_uses_the_declarations():
    # extension types (no instance __dict__), C functions: what the pure-Python mode declares
    from consensus_metrics import anchors, text_index, token_rules
    for obj in (token_rules.Tokens(), token_rules.TokenBuilder("x"), text_index.TextIndex("x = 1")):
        assert not hasattr(obj, "__dict__"), type(obj)
    assert type(anchors.find_anchor).__name__ == "cython_function_or_method"
    with pytest.raises(TypeError):
        anchors.find_anchor(b"45", "#45")  # typed str argument


@compiled_only
def test_compiled_and_source_builds_agree_on_real_and_hostile_text():
    script = ("import json, sys\nsys.path.insert(0, sys.argv[1])\nimport consensus_metrics as cm\n"
              "from test_native import _cases, _results\nprint(json.dumps(_results(cm, list(_cases()))))")
    env = dict(os.environ, **{PURE_ENV: "1"})
    done = subprocess.run([sys.executable, "-c", script, str(REPO / "tests")], capture_output=True, text=True,
                          env=env, cwd=REPO, check=True, timeout=600)
    pure = json.loads(done.stdout)
    compiled = json.loads(json.dumps(_results(consensus_metrics, list(_cases()))))
    assert len(compiled) == len(pure) > 100
    for case, (mine, theirs) in enumerate(zip(compiled, pure)):
        assert mine == theirs, f"case {case}: the compiled build differs from the source"


@pytest.fixture(scope="module")
def source_build(tmp_path_factory):
    """The package's ``.py`` files alone, importable as ``consensus_metrics_source``."""
    root = tmp_path_factory.mktemp("source_build")
    shutil.copytree(PACKAGE, root / "consensus_metrics_source", ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.json"))
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module("consensus_metrics_source")
        assert module._native.native_modules() == []
        yield module
    finally:
        sys.path.remove(str(root))


# the pieces of the hostile-input properties, plus list markers, subscripts and sentence ends
MATH_PIECES = PIECES + ["- ", "1) ", "(a) ", "x1", "3/4", ". So ", "hours", " apples", "\n2. ", "Step 3: ", "°C", "(dollars)",
                        "\\lvert", "\\mathrm{m}", "\\pmod{7}", "(mod 7)", "\\[\n- ", "n! ", "\\frac{-3}"]
math_text = st.lists(st.sampled_from(MATH_PIECES), max_size=60).map("".join)


@compiled_only
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                            HealthCheck.function_scoped_fixture])
@given(text=math_text, forms=st.lists(math_text.filter(str.strip), min_size=1, max_size=3))
def test_property_compiled_and_source_builds_agree(source_build, text, forms):
    cases = [(text, forms), (text + " so " + forms[0] + ".", forms)]
    assert _results(consensus_metrics, cases) == _results(source_build, cases)


class _Text(str):
    """A str subclass, as numpy.str_ and some dataset string types are."""

    def find(self, *args):  # never called: the package works on a plain copy
        raise AssertionError("a str subclass's own methods were used")


@pytest.mark.parametrize("build", ["compiled", "source"])
def test_str_subclasses_are_accepted_by_both_builds(source_build, build):
    cm = consensus_metrics if build == "compiled" else source_build
    text, nodes = "So $x = \\frac{3}{4}$, hence 24 apples and $y^2 = 9$.", ["x = 3/4", "24", "y^2=9", "7"]
    want = [list(m) for m in cm.match_nodes(text, nodes)]
    assert [list(m) for m in cm.match_nodes(_Text(text), nodes)] == want
    assert [m[1] for m in want] == [True, True, True, False]
    score = cm.score_trajectory(_Text(text + " The answer is \\boxed{24}."), nodes, "24")
    assert score["acc"] == 1 and score["covered"] == ["n1", "n2", "n3"]
    assert cm.tokenize(_Text(text)).keys == cm.tokenize(text).keys


def _import_copy(tmp_path, env_extra=None, edit=None, drop_source=None):
    """Import ``consensus_metrics`` from a copy of the package (compiled modules included) in a
    fresh process; returns (module name -> file it was loaded from, stderr)."""
    shutil.copytree(PACKAGE, tmp_path / "consensus_metrics", ignore=shutil.ignore_patterns("__pycache__"))
    if edit:  # a source of the package: name.py
        with open(tmp_path / "consensus_metrics" / edit, "a", encoding="utf-8") as handle:
            handle.write("\n# edited after the build\n")
    if drop_source:
        os.remove(tmp_path / "consensus_metrics" / f"{drop_source}.py")
    script = ("import json, consensus_metrics as cm\n"  # and the mixed builds work together
              "assert [m.covered for m in cm.match_nodes('so x = 3/4', ['x = 0.75', '4'])] == [True, False]\n"
              f"print(json.dumps({{n: getattr(cm, n).__file__ for n in {list(COMPILED)!r}}}))")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop(PURE_ENV, None)
    env.update(env_extra or {})
    done = subprocess.run([sys.executable, "-W", "always", "-c", script], capture_output=True, text=True,
                          env=env, cwd=tmp_path, check=True, timeout=120)
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


@compiled_only
@pytest.mark.parametrize("edit", ["anchors.py", "normalize.py", "token_rules.py", "lexer.py", "text_index.py",
                                  "matching.py"])
def test_an_edited_source_runs_instead_of_its_older_build(tmp_path, edit):
    # normalize is imported by every other compiled module: they must load beside its source
    name = edit.split(".")[0]
    files, stderr = _import_copy(tmp_path, edit=edit)
    assert files[name] == str(tmp_path / "consensus_metrics" / f"{name}.py")
    assert all(not files[other].endswith(".py") for other in COMPILED if other != name)
    assert f"consensus_metrics.{name}: the compiled module was built from another version" in stderr


@compiled_only
def test_a_compiled_module_without_its_source_runs_compiled(tmp_path):
    files, stderr = _import_copy(tmp_path, drop_source="relations")
    assert all(not files[name].endswith(".py") for name in COMPILED)
    assert "RuntimeWarning" not in stderr


@compiled_only
def test_the_pure_python_switch_runs_every_source(tmp_path):
    files, stderr = _import_copy(tmp_path, env_extra={PURE_ENV: "1"})
    assert all(files[name].endswith(f"{name}.py") for name in COMPILED)
    assert "RuntimeWarning" not in stderr


@pytest.mark.parametrize("name", COMPILED)
def test_doctests_of_the_compiled_modules(name):
    module = getattr(consensus_metrics, name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in doctest.DocTestFinder().find(module) if t.examples]
    for test in tests:
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert tests and results.attempted and not results.failed


@compiled_only
def test_doctests_of_the_sources_of_the_compiled_modules():
    # pytest skips these files while they run compiled (conftest.py); run them from source
    files = [str(PACKAGE / f"{name}.py") for name in COMPILED]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-modules", *files],
                          capture_output=True, text=True, env=dict(os.environ, **{PURE_ENV: "1"}), cwd=REPO,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout
