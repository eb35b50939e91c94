"""The installed TRL is one dynamic_sampling.py was tested with, and its private hooks still exist.

``training_recipes.dynamic_sampling`` overrides private ``GRPOTrainer`` methods. When TRL changes
them the override silently stops running, so this test fails first, with what to do.
"""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest

trl = pytest.importorskip("trl")

from training_recipes.dynamic_sampling import (PRIVATE_HOOKS, TESTED_TRL, check_trl_compat,  # noqa: E402
                                               untested_trl_message)

ROOT = Path(__file__).resolve().parent.parent


def test_installed_trl_is_a_tested_release():
    message = untested_trl_message(trl.__version__)
    assert message is None, message


def test_private_hooks_exist_with_the_expected_parameters():
    check_trl_compat()  # raises with the hook and its parameters named


def test_setup_cfg_bounds_trl_to_the_tested_releases():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    spec = [line.strip() for line in config["options.extras_require"]["train"].splitlines()
            if line.strip().startswith("trl")]
    assert spec == [f"trl>={TESTED_TRL[0]},<{TESTED_TRL[-1].split('.')[0]}.{int(TESTED_TRL[-1].split('.')[1]) + 1}"]


def test_an_untested_release_gets_a_clear_message():
    message = untested_trl_message("1.17.2")
    assert "TRL 1.17.2" in message and "_generate_and_score_completions" in message and "setup.cfg" in message


def test_a_renamed_or_reshaped_hook_is_refused():
    class Renamed:
        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
            return None

    with pytest.raises(RuntimeError, match="has no _generate_and_score_completions"):
        check_trl_compat(Renamed, version="9.0.0")

    class Reshaped:
        def _generate_and_score_completions(self, inputs, mode):
            return None

        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
            return None

    with pytest.raises(RuntimeError, match="expects \\('self', 'inputs'\\)"):
        check_trl_compat(Reshaped, version="9.0.0")
    assert set(PRIVATE_HOOKS) == {"_generate_and_score_completions", "_calculate_rewards"}
