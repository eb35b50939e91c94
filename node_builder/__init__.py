"""node_builder — build ConsensusBench consensus nodes from solution trajectories (`docs/SPEC.md` §6).

Data flow, one module per stage::

    importers/ (reference, AoPS, GSM8K, JSONL dumps, AIME 2025 markdown, model runs, samples)
        \\
         -> Problem(trajectories) -> [generate: backends/ (vllm, openai, hf) samples]
            -> filter (the metric's acc) -> miner (rules) [+ llm_extractor] -> expand (equivalent forms)
            -> refine -> record (pipeline) ... all records -> finalize -> file
    build (one file, resumable through workdir) <- cli (parses, calls) ; shipped (what build-all builds)

The public entry point is the CLI: ``python -m node_builder build ...`` and
``python -m node_builder build-all --raw RAW_DIR [--out-dir ROOT]``; in Python,
:func:`node_builder.build.build_file`.
"""

__version__ = "0.2.0"
BUILDER_VERSION = f"node_builder {__version__}"
