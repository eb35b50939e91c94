"""Stage 1a, generation: sample solutions with a backend, keep them in the work dir, attach them.

A sampling build (``--backend``) gives every problem ``n`` sampled solutions of one model::

    problems without samples --solve_messages--> backend.generate(..., n) --> WORKDIR/samples.jsonl
    samples.jsonl line --attach--> problem.trajectories += n x Trajectory("sample:<backend>", voice=<model>)

Contract:

* a problem is sampled at most once per work dir: :meth:`Generation.sample` skips problems the
  log already holds, so a killed build reruns without regenerating what it kept;
* one line per problem, appended (and fsync'ed) as soon as its batch returns:
  ``{"id", "backend": Backend.describe(), "samples": [TEXT] * n, "problem", "answer"}`` -- the
  format the ``samples:`` source reads back (:mod:`node_builder.importers.samples`);
* attached samples are one voice, the model's name (:func:`~node_builder.importers.samples.sample_voice`);
  with ``samples_only`` the imported solutions are dropped first, except samples that came in
  through a ``samples:`` source (another model's earlier sampling build);
* :meth:`GenerationConfig.identity` is what pins a work dir: other settings, another work dir.

Example (a stand-in backend; the real ones are in :mod:`node_builder.backends`):
    >>> import tempfile
    >>> from node_builder.schema import Problem
    >>> from node_builder.workdir import JsonlLog
    >>> class Echo:
    ...     def generate(self, conversations, n): return [["\\\\boxed{4}"] * n for _ in conversations]
    ...     def describe(self): return "hf:/models/Echo-1B"
    >>> stage = Generation(GenerationConfig("hf", "/models/Echo-1B", n=2),
    ...                    JsonlLog(tempfile.mkdtemp() + "/samples.jsonl"))
    >>> problem = Problem("toy/1", "toy", "What is 2+2?", "4")
    >>> stage.sample([problem], Echo())
    >>> stage.attach(problem)
    >>> [(t.source, t.voice) for t in problem.trajectories]
    [('sample:hf:/models/Echo-1B', 'Echo-1B'), ('sample:hf:/models/Echo-1B', 'Echo-1B')]
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from node_builder.backends import Backend, SamplingConfig, make_backend, solve_messages
from node_builder.importers.samples import trajectories as sample_trajectories
from node_builder.schema import Problem
from node_builder.workdir import JsonlLog


@dataclass(frozen=True)
class GenerationConfig:
    """How a sampling build samples.

    ``backend``/``model``: :func:`~node_builder.backends.make_backend` arguments; ``options``:
    the backend's own keyword arguments (server URL, tensor parallelism, ...: how to run, not
    what to sample, so they do not pin the work dir); ``batch_size``: problems per
    ``generate`` call; ``samples_only``: see the module docstring.
    """

    backend: str
    model: str
    n: int = 16
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    samples_only: bool = False
    batch_size: int = 64
    options: dict[str, Any] = field(default_factory=dict)

    def identity(self) -> dict[str, Any]:
        """The settings that decide what the samples are (the work dir's ``inputs.backend``)."""
        return {"backend": self.backend, "model": self.model, "n": self.n,
                "sampling": asdict(self.sampling), "samples_only": self.samples_only}

    def make_backend(self) -> Backend:
        return make_backend(self.backend, self.model, self.sampling, **self.options)


class Generation:
    """The generation stage of one build: the samples kept so far (``samples``: id -> log line)."""

    def __init__(self, config: GenerationConfig, log: JsonlLog):
        self.config = config
        self.log = log
        self.samples: dict[str, dict[str, Any]] = log.load()

    def sample(self, problems: list[Problem], backend: Backend) -> None:
        """Generate ``n`` samples for each problem the log lacks (one ``generate`` call), and log them."""
        need = [p for p in problems if p.id not in self.samples]
        if not need:
            return
        texts = backend.generate([solve_messages(p.problem) for p in need], n=self.config.n)
        for problem, outs in zip(need, texts):
            entry = {"id": problem.id, "backend": backend.describe(), "samples": outs,
                     "problem": problem.problem, "answer": problem.answer}
            self.log.append(entry)
            self.samples[problem.id] = entry

    def attach(self, problem: Problem) -> None:
        """Add ``problem``'s logged samples to its trajectories (see the module docstring)."""
        attach_samples(problem, self.samples[problem.id], self.config.samples_only)

    def attach_kept(self, problems: list[Problem], skip: set[str]) -> None:
        """Attach the logged samples of ``problems`` not in ``skip`` (problems built in an earlier
        run: their samples still count as background for the build-wide steps)."""
        for problem in problems:
            if problem.id in self.samples and problem.id not in skip:
                self.attach(problem)


def attach_samples(problem: Problem, entry: dict[str, Any], samples_only: bool) -> None:
    """Add a samples-log line's samples to ``problem`` (voice: the model); ``samples_only`` drops
    the imported solutions first but keeps samples of ``samples:`` sources."""
    if samples_only:
        problem.trajectories = [t for t in problem.trajectories if t.source.startswith("sample:")]
    problem.trajectories.extend(sample_trajectories(entry["backend"], entry["samples"]))
