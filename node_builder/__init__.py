"""node_builder — build ConsensusBench consensus nodes from solution trajectories (SPEC §6).

Data flow, one module per stage::

    importers/ (reference, AoPS, GSM8K, JSONL dumps, AIME 2025 markdown)   backends/ (vllm, openai, hf)
                         \\                                              /
                          -> Problem(trajectories) -> filter (math-verify) -> miner (rules)
                             [+ llm_extractor] -> expand (equivalent forms) -> refine -> record
                                                     workdir (resumable JSONL) -> cli

The public entry point is the CLI: ``python -m node_builder build ...`` and
``python -m node_builder build-all --raw RAW_DIR --out-dir DATA_DIR``.
"""

__version__ = "0.1.0"
BUILDER_VERSION = f"node_builder {__version__}"
