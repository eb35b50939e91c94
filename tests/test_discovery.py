"""The plain lm-eval CLI finds the ConsensusBench tasks after ``pip install`` (no --include_path).

The slow tests install this project into throwaway virtual environments and drive the real
``lm_eval`` console script in subprocesses:

* a wheel (built offline from a copy of the checkout) — ``lm_eval ls tasks``, ``lm_eval validate``,
  ``lm_eval run`` (lm-eval's own ``dummy`` model: no weights, every answer "lol"), ``TaskManager()``
  and the entry point; then ``pip uninstall`` and the tasks are gone;
* an editable install (``pip install -e``) — ``TaskManager()`` sees the tasks.

How the throwaway environments get lm-eval without the network: ``python -m venv --without-pip``
from this interpreter, plus one ``.pth`` line naming this interpreter's site-packages (where
lm-eval, torch, ... are installed). A path added by a ``.pth`` line is searched but its own
``.pth`` files are not run, so a hook installed in the outer environment stays inactive in the
throwaway one; only the throwaway environment's own install can make the tasks visible. pip is
this interpreter's, pointed at the throwaway environment with ``pip --python``; the console
script is this environment's ``lm_eval`` file run by the throwaway interpreter.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from consensus_metrics._native import COMPILED
from lm_eval_tasks import TASKS_DIR, discovery

REPO = Path(__file__).resolve().parent.parent
FIXTURE_DATA = REPO / "tests" / "fixtures" / "lm_eval" / "data"
LM_EVAL_SCRIPT = Path(sys.executable).with_name("lm_eval")
OUR_TASKS = {"consensusbench", "consensusbench_math500", "consensusbench_gsm8k", "consensusbench_aime24",
             "consensusbench_aime25", "consensusbench_pass16"}
SEEN_TASKS_SCRIPT = (
    "import json, sys; from lm_eval.tasks import TaskManager; "
    "print(json.dumps(sorted(t for t in TaskManager().all_tasks if t.startswith('consensusbench'))))"
)


# ----------------------------------------------------------------------------- fast

def test_our_folder_goes_first_and_only_once():
    ours = TASKS_DIR
    assert discovery._with_our_folder(None) == [ours]
    assert discovery._with_our_folder("/mine") == [ours, "/mine"]
    assert discovery._with_our_folder(["/a", Path("/b")]) == [ours, "/a", Path("/b")]
    assert discovery._with_our_folder([Path(ours)]) == [Path(ours)]


def test_patched_task_manager_respects_include_defaults_false(tmp_path):
    from lm_eval.tasks import TaskManager

    class Probe(TaskManager):
        """A subclass of its own, so patching it leaves lm-eval's TaskManager untouched."""

    discovery.patch_task_manager(Probe)
    discovery.patch_task_manager(Probe)  # idempotent
    assert getattr(Probe.__init__, "_consensusbench_include_path")
    (tmp_path / "mine.yaml").write_text("task: my_probe_task\ndataset_path: x\n", encoding="utf-8")
    manager = Probe(include_path=str(tmp_path), include_defaults=False)
    assert manager.all_tasks == ["my_probe_task"]


class _EntryPointTaskManager:
    """A stand-in for the ``TaskManager`` of an lm-eval that discovers ``lm_eval.tasks`` entry
    points (lm-eval PR #4015). Simulated because no lm-eval release has the group yet: this class
    resolves the entry points of :attr:`entry_points` (real ``importlib.metadata.EntryPoint``
    objects, the registry a plugin's install would fill) to their package folders, appends the
    ``include_path`` folders, and records every folder it scans; task names are read from the
    YAMLs' ``task:``/``group:`` lines, as lm-eval indexes them."""

    entry_points: list = []

    def __init__(self, verbosity=None, include_path=None, include_defaults=True, metadata=None):
        folders = [os.path.dirname(ep.load().__file__) for ep in self.entry_points]
        if include_path:
            folders += list(include_path) if isinstance(include_path, (list, tuple)) else [include_path]
        self.scanned = [os.path.realpath(os.fspath(folder)) for folder in folders]
        names = set()
        for folder in self.scanned:
            for yaml_file in Path(folder).glob("*.yaml"):
                for line in yaml_file.read_text(encoding="utf-8").splitlines():
                    if line.startswith(("task: ", "group: ")):
                        names.add(line.split(":", 1)[1].strip())
        self.all_tasks = sorted(names)


def _simulated_lm_eval(declared):
    """A task manager class like lm-eval's once it reads the ``lm_eval.tasks`` entry points
    (``declared``: ``(name, module)`` pairs), with the discovery patch applied."""
    from importlib.metadata import EntryPoint

    class Manager(_EntryPointTaskManager):
        entry_points = [EntryPoint(name=name, value=value, group="lm_eval.tasks") for name, value in declared]

    discovery.patch_task_manager(Manager)
    return Manager


def test_the_hook_steps_aside_when_lm_eval_discovers_our_entry_point(tmp_path):
    ours = os.path.realpath(TASKS_DIR)
    manager_cls = _simulated_lm_eval([("consensusbench", "lm_eval_tasks.consensusbench")])
    manager = manager_cls()
    assert manager.scanned == [ours]  # found through the entry point, scanned once
    assert "consensusbench_math500" in manager.all_tasks
    user = manager_cls(include_path=str(tmp_path))
    assert user.scanned == [ours, os.path.realpath(tmp_path)]  # the user's path passed as given


def test_the_hook_adds_our_folder_when_the_entry_point_is_not_discovered(tmp_path):
    ours = os.path.realpath(TASKS_DIR)
    other_plugin = _simulated_lm_eval([("json", "json")])  # an entry point of someone else only
    assert other_plugin().scanned == [os.path.dirname(os.path.realpath(json.__file__)), ours]
    none = _simulated_lm_eval([])  # lm-eval 0.4.13: no entry points at all
    assert none(include_path=str(tmp_path)).scanned == [ours, os.path.realpath(tmp_path)]
    assert "consensusbench_math500" in none().all_tasks
    assert none(include_defaults=False).scanned == []  # include_defaults=False still respected


def test_the_real_lm_eval_does_not_discover_entry_points_yet():
    """lm-eval 0.4.13 (pinned): the probe says no, so the hook adds our folder."""
    from lm_eval.tasks.manager import TaskManager

    original = getattr(TaskManager.__init__, "__wrapped__", TaskManager.__init__)
    assert discovery.lm_eval_finds_our_tasks(TaskManager, original) is False


def _run_python(python, code, env_extra=None, cwd=None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(env_extra or {})
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=600)


def test_startup_hook_patches_task_manager_on_first_import(tmp_path):
    hook = Path(discovery.__file__).with_name("_startup_hook.py")
    code = (
        f"import runpy, sys; runpy.run_path({str(hook)!r}); "
        "assert 'lm_eval' not in sys.modules; "
        "import lm_eval.tasks.manager as m; "
        "print(getattr(m.TaskManager.__init__, '_consensusbench_include_path', False)); "
        "print(any(type(f).__name__ == 'ConsensusBenchTaskFinder' for f in sys.meta_path))"
    )
    done = _run_python(sys.executable, code, {"PYTHONPATH": str(REPO)}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]  # patched, and the finder left sys.meta_path
    disabled = _run_python(sys.executable, code, {"PYTHONPATH": str(REPO),
                                                  "CONSENSUSBENCH_LM_EVAL_HOOK": "0"}, cwd=tmp_path)
    assert disabled.returncode == 0, disabled.stderr
    assert disabled.stdout.split() == ["False", "False"]


# ----------------------------------------------------------------------------- slow: real installs

def _make_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    python = path / "bin" / "python"
    site = Path(_run_python(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                .stdout.strip())
    (site / "_outer_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return python


def _pip(python: Path, *args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), *args,
                           "--no-input", "--disable-pip-version-check"],
                          capture_output=True, text=True, timeout=600, env={**os.environ, **(env_extra or {})})
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _site_packages(python: Path) -> Path:
    return Path(_run_python(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())


def _lm_eval(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", CONSENSUSBENCH_DATA_DIR=str(FIXTURE_DATA))
    return subprocess.run([str(python), str(LM_EVAL_SCRIPT), *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=600)


def _copy_checkout(dest: Path) -> Path:
    """A copy of the checkout to install from. It keeps ``build/``: the Cython translations and
    objects ``make compile`` left there are reused by setuptools where they are newer than their
    sources (it compares times; copies keep them), so the installs carry the compiled modules
    without compiling them again (2.5 min on 2 cores); a stale or missing build is redone."""
    ignore = shutil.ignore_patterns(".git", ".venv*", ".cache", "dist", "*.egg-info",
                                    "__pycache__", ".pytest_cache", "runs")
    shutil.copytree(REPO, dest, ignore=ignore)
    return dest


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = _copy_checkout(tmp_path_factory.mktemp("checkout") / "consensusbench")
    out = tmp_path_factory.mktemp("wheel")
    _pip(Path(sys.executable), "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(out), str(source))
    (built,) = out.glob("consensusbench-*.whl")
    return built


@pytest.mark.slow
def test_wheel_install_ls_validate_run_then_uninstall(wheel, tmp_path):
    python = _make_venv(tmp_path / "venv")
    work = tmp_path / "work"
    work.mkdir()
    _pip(python, "install", "--no-deps", "--no-index", str(wheel))
    site = _site_packages(python)
    assert (site / "consensusbench_lm_eval.pth").read_text() == "import consensusbench_lm_eval_hook\n"
    assert (site / "consensusbench_lm_eval_hook.py").is_file()
    assert (site / "lm_eval_tasks" / "consensusbench" / "consensusbench_gsm8k.yaml").is_file()

    # The wheel carries the compiled hot path with the sources it was built from
    # (consensus_metrics/_native.py checks them), so it runs compiled where it was built.
    if importlib.util.find_spec("Cython") is not None:
        native = _run_python(python, "from consensus_metrics._native import native_modules; "
                                     "print(' '.join(native_modules()))", cwd=work)
        assert native.stdout.split() == list(COMPILED), native.stderr
        assert (site / "consensus_metrics" / "token_rules.py").is_file()

    # Start-up costs nothing visible: neither lm-eval nor our package is imported.
    idle = _run_python(python, "import sys; print('lm_eval' in sys.modules, 'lm_eval_tasks' in sys.modules)",
                       cwd=work)
    assert idle.stdout.split() == ["False", "False"], idle.stderr

    listed = _lm_eval(python, "ls", "tasks", cwd=work)
    assert listed.returncode == 0, listed.stderr
    for name in OUR_TASKS:
        assert f"|{name} " in listed.stdout, name
    assert str(site / "lm_eval_tasks" / "consensusbench" / "consensusbench.yaml") in listed.stdout

    validated = _lm_eval(python, "validate", "--tasks", "consensusbench,consensusbench_aime24", cwd=work)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "All tasks found and valid" in validated.stdout

    ran = _lm_eval(python, "run", "--model", "dummy", "--tasks", "consensusbench", "--limit", "1",
                   "--output_path", str(work / "out"), cwd=work)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    (results_file,) = (work / "out").rglob("results_*.json")
    results = json.loads(results_file.read_text())["results"]
    assert set(results) == {"consensusbench", "consensusbench_math500", "consensusbench_gsm8k",
                            "consensusbench_aime24", "consensusbench_aime25"}
    assert results["consensusbench"]["acc,none"] == 0.0  # "lol" is never right
    assert "ncr,none" not in results["consensusbench_aime25"]  # no nodes: NCR undefined
    assert "ncr_undefined,none" not in results["consensusbench_aime25"]  # a diagnostic, not a score
    assert "ConsensusBench consensusbench_aime25: of 1 generations, 1 NCR undefined" in ran.stderr

    seen = _run_python(python, SEEN_TASKS_SCRIPT, cwd=work)
    assert seen.returncode == 0, seen.stderr
    assert OUR_TASKS <= set(json.loads(seen.stdout))
    hidden = _run_python(python, SEEN_TASKS_SCRIPT, {"CONSENSUSBENCH_LM_EVAL_HOOK": "0"}, cwd=work)
    assert json.loads(hidden.stdout) == []

    entry_point = _run_python(
        python,
        "from importlib.metadata import entry_points; "
        "(ep,) = [e for e in entry_points(group='lm_eval.tasks') if e.name == 'consensusbench' "
        "and e.dist.name == 'consensusbench' and 'venv' in str(e.dist.locate_file(''))]; "
        "import os; print(os.path.dirname(ep.load().__file__))",
        cwd=work,
    )
    assert entry_point.returncode == 0, entry_point.stderr
    assert entry_point.stdout.strip() == str(site / "lm_eval_tasks" / "consensusbench")

    _pip(python, "uninstall", "-y", "consensusbench")
    assert not (site / "consensusbench_lm_eval.pth").exists()
    assert not (site / "consensusbench_lm_eval_hook.py").exists()
    gone = _run_python(python, SEEN_TASKS_SCRIPT, cwd=work)
    assert gone.returncode == 0, gone.stderr
    assert json.loads(gone.stdout) == []


@pytest.mark.slow
def test_editable_install_sees_the_tasks_of_the_checkout(tmp_path):
    source = _copy_checkout(tmp_path / "consensusbench")
    python = _make_venv(tmp_path / "venv")
    work = tmp_path / "work"
    work.mkdir()
    # What this test checks is discovery; the compiled modules are the wheel test's (and `make
    # setup`'s). An editable build compiles them in a fresh temporary folder every time (1.5 min
    # on 2 cores), so this one installs the pure-Python package (setup.py: CONSENSUS_PURE_PYTHON).
    _pip(python, "install", "--no-deps", "--no-build-isolation", "--no-index", "-e", str(source),
         env_extra={"CONSENSUS_PURE_PYTHON": "1"})
    site = _site_packages(python)
    assert (site / "consensusbench_lm_eval.pth").read_text() == "import consensusbench_lm_eval_hook\n"
    seen = _run_python(
        python,
        SEEN_TASKS_SCRIPT.replace(
            "print(json.dumps(",
            "import lm_eval_tasks; print(lm_eval_tasks.TASKS_DIR); print(json.dumps(",
        ),
        cwd=work,
    )
    assert seen.returncode == 0, seen.stderr
    folder, tasks = seen.stdout.strip().splitlines()[-2:]
    assert folder == str(source / "lm_eval_tasks" / "consensusbench")  # the checkout, not a copy
    assert OUR_TASKS <= set(json.loads(tasks))
    _pip(python, "uninstall", "-y", "consensusbench")
    assert not (site / "consensusbench_lm_eval.pth").exists()


def test_this_environment_has_the_hook_installed():
    """The other lm-eval tests call plain ``lm_eval`` (no --include_path): they need this project
    installed here (``pip install -e .``)."""
    spec = importlib.util.find_spec("consensusbench_lm_eval_hook")
    assert spec is not None, "run `pip install -e .` in this environment first"
    assert (Path(spec.origin).parent / "consensusbench_lm_eval.pth").is_file()
