"""``index.html``: one self-contained page (inline CSS, PNG figures as base64 data URIs, a few
lines of inline JavaScript to sort the leaderboard by any column; nothing fetched).

Rendered with a Jinja2 template with autoescaping on: model outputs and node texts are
untrusted and always escaped; the only markup added to them is :func:`highlight_spans`'
``<mark>`` around node matches, built from escaped pieces.

Example::

    >>> str(highlight_spans("x = 4 so 4", "", 10, {"n1": [0, 5, 3]}))
    '<mark title="n1">x = 4</mark> so 4'
"""

from __future__ import annotations

import base64
import math
from typing import Any

from jinja2 import Environment
from markupsafe import Markup, escape

TEMPLATE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
:root { --fg:#212529; --muted:#6c757d; --line:#dee2e6; --band:#f8f9fa; --accent:#1c7ed6;
        --good:#2b8a3e; --good-bg:#ebfbee; --bad:#c92a2a; --bad-bg:#fff5f5; }
* { box-sizing: border-box; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg);
       margin: 0; background: #fff; }
header { background: #1b2a41; color: #fff; padding: 18px 32px 12px; }
header h1 { margin: 0 0 4px; font-size: 24px; }
header p { margin: 2px 0; color: #ced4da; }
header code { color: #fff; }
nav a { color: #a5d8ff; margin-right: 14px; text-decoration: none; font-weight: 600; }
main { padding: 8px 32px 40px; max-width: 1600px; }
section { margin-top: 26px; }
h2 { font-size: 19px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin-bottom: 6px; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: right; vertical-align: top; }
table.board td { white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
th { background: var(--band); font-weight: 600; }
td.text, th.text { text-align: left; }
table.board td.small { white-space: normal; min-width: 200px; max-width: 290px; font-size: 11.5px; color: #495057; }
tbody tr:nth-child(even) { background: #fcfcfd; }
table.board th.sortable { cursor: pointer; user-select: none; }
table.board th.sortable:hover { background: #e7f5ff; }
table.board th.sorted-desc::after { content: " ▼"; color: var(--accent); }
table.board th.sorted-asc::after { content: " ▲"; color: var(--accent); }
table.board td.best { font-weight: 700; background: #e7f5ff; }
.se { color: var(--muted); font-size: 12px; }
.muted { color: var(--muted); }
.notes { background: #fff9db; border: 1px solid #ffe066; padding: 6px 16px; border-radius: 4px; }
.notes h2 { border: 0; margin: 6px 0; font-size: 16px; }
figure { margin: 10px 0; }
figure { max-width: 640px; }
figure img { max-width: 100%; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: 12px; }
.grid { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
td.better { color: var(--good); background: var(--good-bg); font-weight: 600; }
td.worse { color: var(--bad); background: var(--bad-bg); font-weight: 600; }
td.changed { color: #5f3dc4; }
.pill { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; color: #fff; }
.pill.c-right-covered { background: #2b8a3e; } .pill.c-right-missing { background: #f59f00; }
.pill.c-near-miss { background: #1c7ed6; } .pill.c-wrong-uncovered { background: #c92a2a; }
.example { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; margin: 12px 0; }
.example:target { outline: 3px solid var(--accent); }
.example h3 { margin: 4px 0; }
.example dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 6px 0; }
.example dt { color: var(--muted); } .example dd { margin: 0; }
pre.trajectory { white-space: pre-wrap; word-break: break-word; background: var(--band);
                 padding: 8px; max-height: 420px; overflow: auto; font-size: 12.5px; }
mark { background: #b2f2bb; }
ul.nodes { list-style: none; padding-left: 0; margin: 4px 0; }
ul.nodes li.hit::before { content: "✓ "; color: var(--good); font-weight: 700; }
ul.nodes li.miss::before { content: "✗ "; color: var(--bad); font-weight: 700; }
code, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
details summary { cursor: pointer; color: var(--accent); }
</style>
</head>
<body>
<header>
  <h1>{{ title }}</h1>
  <p>{{ runs|length }} run{{ "s" if runs|length != 1 }} · benchmarks: {{ keys|join(", ") or "none" }}
     · built {{ built }} with <code>{{ command }}</code></p>
  <nav>
    <a href="#leaderboard">Leaderboard</a><a href="#plots">Acc · NCR · TPN</a>
    <a href="#difficulty">MATH-500 levels</a><a href="#mismatch">Process–outcome</a>
    <a href="#nodes">Node diagnostics</a>{% if comparison %}<a href="#comparison">Comparison</a>{% endif %}
    <a href="#examples">Examples</a><a href="#runs">Runs</a>
  </nav>
</header>
<main>
{% if intro %}
<section id="about">
  <h2>About these runs</h2>
  <ul>{% for line in intro %}<li>{{ line }}</li>{% endfor %}</ul>
</section>
{% endif %}
<section id="leaderboard">
  <h2>Leaderboard</h2>
  <p class="muted">Sorted by <code>{{ board.sorted_by }}</code>{{ " (ascending)" if board.ascending else "" }}.
     Click a column header to sort by it. Mean ± standard error over problems; best value per column in bold.</p>
  <div class="scroll"><table class="board" id="leaderboard-table">
    <thead>
      <tr><th class="text" colspan="{{ board.text_columns }}" rowspan="1"></th>
      {% for group in board.groups %}<th colspan="{{ group.span }}" title="{{ group.title }}">{{ group.name }}</th>{% endfor %}</tr>
      <tr>
      {% for column in board.columns %}<th class="sortable {{ 'text' if column.text }}{{ ' sorted-asc' if column.sorted == 'asc' }}{{ ' sorted-desc' if column.sorted == 'desc' }}" data-col="{{ loop.index0 }}" data-dir="{{ column.direction }}" title="{{ column.title }}">{{ column.label }}</th>{% endfor %}
      </tr>
    </thead>
    <tbody>
    {% for row in board.rows %}<tr>
      {% for cell in row %}<td class="{{ cell.cls }}" data-sort="{{ cell.sort }}">{{ cell.html }}</td>{% endfor %}
    </tr>{% endfor %}
    </tbody>
  </table></div>
  <p class="muted">Acc: final answer (math-verify); with sampling it is pass@1, the mean over samples.
    pass@k: unbiased estimator. NCR: node coverage rate. TPN: tokens per node reached (lower is better).
    Tokens: mean generated tokens. {% if board.mean_note %}{{ board.mean_note }}{% endif %}
    Files: <a href="leaderboard.csv">leaderboard.csv</a>, <a href="leaderboard.md">leaderboard.md</a>.</p>
  {% if repeats %}
  <h3>Repeated runs</h3>
  <table id="repeats-table"><thead><tr><th class="text">Model</th><th class="text">Benchmark</th><th>Runs</th>
    {% for metric in repeats.metrics %}<th>{{ metric }}</th>{% endfor %}</tr></thead>
  <tbody>{% for row in repeats.rows %}<tr><td class="text">{{ row.model }}</td><td class="text">{{ row.key }}</td><td>{{ row.repeats }}</td>
    {% for cell in row.cells %}<td>{{ cell }}</td>{% endfor %}</tr>{% endfor %}</tbody></table>
  <p class="muted">Mean over the repeated runs of one model (rows <em>#1</em>, <em>#2</em>, … above) and the standard
    deviation between them: the run-to-run spread to weigh differences against. <a href="repeats.csv">repeats.csv</a></p>
  {% endif %}
</section>

{% if notes %}
<section class="notes" id="notes">
  <h2>What this report cannot show</h2>
  <ul>{% for note in notes %}<li>{{ note }}</li>{% endfor %}</ul>
</section>
{% endif %}

<section id="plots">
  <h2>Acc vs NCR, TPN and tokens</h2>
  <div class="grid">
  {% for fig in figures.main %}<figure><img alt="{{ fig.alt }}" src="{{ fig.src }}"><figcaption>{{ fig.caption }}</figcaption></figure>{% endfor %}
  </div>
  {% if not figures.main %}<p class="muted">No metric to plot.</p>{% endif %}
</section>

<section id="difficulty">
  <h2>MATH-500 by difficulty level</h2>
  {% if levels.rows %}
  {% for fig in figures.levels %}<figure><img alt="{{ fig.alt }}" src="{{ fig.src }}"><figcaption>{{ fig.caption }}</figcaption></figure>{% endfor %}
  <div class="scroll"><table id="levels-table"><thead><tr><th class="text">Run</th>{% for level in levels.levels %}<th>Level {{ level }}<br><span class="se">Acc / NCR</span></th>{% endfor %}</tr></thead>
  <tbody>{% for row in levels.rows %}<tr><td class="text">{{ row.run }}</td>{% for cell in row.cells %}<td title="{{ cell.title }}">{{ cell.text }}</td>{% endfor %}</tr>{% endfor %}</tbody></table></div>
  <p class="muted">Per generation, from the samples files (hover a cell for n and standard errors). <a href="by_level.csv">by_level.csv</a></p>
  {% else %}<p class="muted">{{ levels.missing }}</p>{% endif %}
</section>

<section id="mismatch">
  <h2>Process–outcome mismatch</h2>
  {% if mismatch.rows %}
  <p>Each generation is placed in one cell by its final answer (Acc) and its node coverage (NCR) against the
     threshold <strong>τ = {{ threshold }}</strong>: high coverage means NCR ≥ {{ threshold }}.
     Shares are over generations of problems that have nodes; <em>no nodes</em> counts the others.</p>
  <table id="mismatch-table"><thead><tr><th class="text">Run</th>
    {% for cell in mismatch.cells %}<th title="{{ cell.help }}"><span class="pill {{ cell.cls }}">{{ cell.name }}</span></th>{% endfor %}
    <th>no nodes</th><th>generations</th></tr></thead>
  <tbody>{% for row in mismatch.rows %}<tr><td class="text">{{ row.run }}</td>
    {% for cell in row.cells %}<td>{{ cell.share }} <span class="se">({{ cell.count }})</span>
      {% for ex in cell.examples %}<a href="#{{ ex.anchor }}" title="example {{ loop.index }}">[{{ loop.index }}]</a>{% endfor %}</td>{% endfor %}
    <td>{{ row.no_nodes }}</td><td>{{ row.generations }}</td></tr>{% endfor %}</tbody></table>
  <ul class="muted">{% for cell in mismatch.cells %}<li><strong>{{ cell.name }}</strong>: {{ cell.help }}</li>{% endfor %}</ul>
  {% for fig in figures.mismatch %}<figure><img alt="{{ fig.alt }}" src="{{ fig.src }}"><figcaption>{{ fig.caption }}</figcaption></figure>{% endfor %}
  {% if mismatch.by_benchmark %}<details><summary>Per benchmark</summary>
  <table><thead><tr><th class="text">Run</th><th class="text">Benchmark</th>{% for cell in mismatch.cells %}<th>{{ cell.name }}</th>{% endfor %}<th>no nodes</th></tr></thead>
  <tbody>{% for row in mismatch.by_benchmark %}<tr><td class="text">{{ row.run }}</td><td class="text">{{ row.key }}</td>{% for value in row.cells %}<td>{{ value }}</td>{% endfor %}<td>{{ row.no_nodes }}</td></tr>{% endfor %}</tbody></table>
  </details>{% endif %}
  <p class="muted"><a href="mismatch.csv">mismatch.csv</a> · <a href="generations.csv">generations.csv</a> (every generation with its cell)</p>
  {% else %}<p class="muted">{{ mismatch.missing }}</p>{% endif %}
</section>

<section id="nodes">
  <h2>Node diagnostics</h2>
  {% if nodes.tables %}
  <p>The nodes missed most: miss rate = 1 − the share of a run's generations that reached the node, averaged over
     the runs that saw the problem (each run counts once; <em>attempts</em> = generations over all runs). The
     per-run columns give each run's share of generations reaching the node (– : problem not in that run). Below,
     the share of nodes reached by where they sit in the reference solutions (0 = start, 1 = end).</p>
  {% for table in nodes.tables %}
  <h3>{{ table.key }}: most-missed nodes</h3>
  <table class="nodes-table"><thead><tr><th class="text">Problem</th><th class="text">Node</th><th class="text">Kind</th><th>Support</th><th>Position</th><th>Runs</th><th>Attempts</th><th>Miss rate</th>
    {% for run in table.runs %}<th title="share of this run's generations that reached the node">{{ run }}</th>{% endfor %}</tr></thead>
  <tbody>{% for row in table.rows %}<tr><td class="text mono">{{ row.problem_id }}</td><td class="text mono">{{ row.node_text }}</td><td class="text">{{ row.kind }}</td><td>{{ row.support }}</td><td>{{ row.position }}</td><td>{{ row.n_runs }}</td><td>{{ row.attempts }}</td><td>{{ row.miss_rate }}</td>
    {% for value in row.runs %}<td>{{ value }}</td>{% endfor %}</tr>{% endfor %}</tbody></table>
  {% endfor %}
  {% for fig in figures.nodes %}<figure><img alt="{{ fig.alt }}" src="{{ fig.src }}"><figcaption>{{ fig.caption }}</figcaption></figure>{% endfor %}
  <p class="muted"><a href="missed_nodes.csv">missed_nodes.csv</a> · <a href="coverage_by_position.csv">coverage_by_position.csv</a></p>
  {% else %}<p class="muted">{{ nodes.missing }}</p>{% endif %}
</section>

{% if comparison %}
<section id="comparison">
  <h2>Comparison with the baseline <code>{{ comparison.baseline }}</code></h2>
  <p>Δ = run − baseline, ± the combined standard error. <span class="pill c-right-covered">better</span>
     <span class="pill c-wrong-uncovered">worse</span> by each metric's direction (TPN: lower is better; tokens: no direction).
     ▲/▼ say whether the value went up or down.</p>
  {% if comparison.rows %}
  <table id="comparison-table"><thead><tr><th class="text">Run</th><th class="text">Benchmark</th>
    {% for metric in comparison.metrics %}<th>Δ {{ metric }}</th>{% endfor %}</tr></thead>
  <tbody>{% for row in comparison.rows %}<tr><td class="text">{{ row.run }}</td><td class="text">{{ row.key }}</td>
    {% for cell in row.cells %}<td class="{{ cell.cls }}" title="{{ cell.title }}">{{ cell.text }}</td>{% endfor %}</tr>{% endfor %}</tbody></table>
  {% for fig in figures.comparison %}<figure><img alt="{{ fig.alt }}" src="{{ fig.src }}"><figcaption>{{ fig.caption }}</figcaption></figure>{% endfor %}
  <p class="muted"><a href="comparison.csv">comparison.csv</a></p>
  {% else %}<p class="muted">No benchmark in common with the baseline.</p>{% endif %}
</section>
{% endif %}

<section id="examples">
  <h2>Examples</h2>
  {% if examples %}
  <p class="muted">Up to {{ examples_per_cell }} generations per run and cell, the clearest first. Node matches are highlighted.</p>
  {% for ex in examples %}
  <div class="example" id="{{ ex.anchor }}">
    <h3><span class="pill {{ ex.cls }}">{{ ex.category }}</span> {{ ex.run }} · {{ ex.key }} · <span class="mono">{{ ex.problem_id }}</span>{% if ex.n_gen > 1 %} · sample {{ ex.gen + 1 }}{% endif %}</h3>
    <dl>
      <dt>Problem</dt><dd>{{ ex.problem }}</dd>
      <dt>Gold / predicted</dt><dd><code>{{ ex.gold }}</code> / <code>{{ ex.pred or "(none)" }}</code> — Acc {{ ex.acc }}</dd>
      <dt>NCR / TPN / tokens</dt><dd>{{ ex.ncr }} / {{ ex.tpn }} / {{ ex.n_tokens }}{% if ex.level %} · level {{ ex.level }}{% endif %}</dd>
      {% if ex.think %}<dt>Thinking</dt><dd>{{ ex.think }}</dd>{% endif %}
      <dt>Nodes</dt><dd><ul class="nodes">{% for node in ex.nodes %}<li class="{{ 'hit' if node.covered else 'miss' }}"><span class="mono">{{ node.id }}</span> <code>{{ node.text }}</code></li>{% endfor %}</ul></dd>
    </dl>
    <pre class="trajectory">{{ ex.text }}</pre>
  </div>
  {% endfor %}
  {% else %}<p class="muted">{{ examples_missing }}</p>{% endif %}
</section>

<section id="runs">
  <h2>Runs</h2>
  <table><thead><tr><th class="text">Run</th><th class="text">Model</th><th class="text">Backend / args</th><th class="text">Settings</th><th class="text">Tasks (samples file?)</th><th class="text">Results files</th></tr></thead>
  <tbody>{% for run in runs %}<tr><td class="text">{{ run.label }}</td><td class="text">{{ run.model }}</td><td class="text mono">{{ run.backend }}</td><td class="text">{{ run.settings }}</td>
    <td class="text">{% for task in run.tasks %}{{ task.name }} ({{ "yes" if task.samples else "no" }}){{ ", " if not loop.last }}{% endfor %}</td>
    <td class="text mono">{% for path in run.paths %}{{ path }}<br>{% endfor %}</td></tr>{% endfor %}</tbody></table>
  {% if run_notes %}<ul class="muted">{% for note in run_notes %}<li>{{ note }}</li>{% endfor %}</ul>{% endif %}
</section>
</main>
<script>
(function () {
  var table = document.getElementById("leaderboard-table");
  if (!table) return;
  var heads = table.tHead.rows[1].cells;
  function key(cell) { var v = cell.getAttribute("data-sort"); var n = parseFloat(v);
    return v === "" ? null : (isNaN(n) ? v.toLowerCase() : n); }
  Array.prototype.forEach.call(heads, function (th) {
    th.addEventListener("click", function () {
      var col = +th.getAttribute("data-col");
      var asc = th.classList.contains("sorted-desc") ? true :
                th.classList.contains("sorted-asc") ? false : th.getAttribute("data-dir") === "asc";
      var rows = Array.prototype.slice.call(table.tBodies[0].rows);
      rows.sort(function (a, b) {
        var x = key(a.cells[col]), y = key(b.cells[col]);
        if (x === null) return y === null ? 0 : 1; if (y === null) return -1;
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1); });
      rows.forEach(function (r) { table.tBodies[0].appendChild(r); });
      Array.prototype.forEach.call(heads, function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
      th.classList.add(asc ? "sorted-asc" : "sorted-desc");
    });
  });
})();
</script>
</body>
</html>
"""


def data_uri(png: bytes) -> str:
    """``data:image/png;base64,...`` for an inline ``<img src>``."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _merge_spans(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    merged: list[tuple[int, int, str]] = []
    for start, end, name in sorted(spans):
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), f"{last[2]}, {name}")
        else:
            merged.append((start, end, name))
    return merged


def _mark_segment(text: str, offset: int, spans: list[tuple[int, int, str]]) -> Markup:
    """Escape ``text`` (which starts at ``offset`` of the generation), wrapping spans in
    ``<mark>``."""
    out = Markup("")
    cursor = 0
    for start, end, name in spans:
        lo, hi = max(start - offset, 0), min(end - offset, len(text))
        if hi <= lo or lo < cursor:
            continue
        out += escape(text[cursor:lo]) + Markup('<mark title="{}">').format(name) \
            + escape(text[lo:hi]) + Markup("</mark>")
        cursor = hi
    return out + escape(text[cursor:])


def highlight_spans(head: str, tail: str, length: int, positions: dict[str, Any]) -> Markup:
    """The (possibly shortened) generation as escaped HTML, node matches in ``<mark>``.

    ``positions`` maps node id -> ``[start, end, ...]`` (character span in the full text, end
    exclusive). ``head``/``tail`` are the first/last characters kept when the text was long.
    """
    spans = []
    for name, value in (positions or {}).items():
        if isinstance(value, (list, tuple)) and len(value) >= 2 \
                and all(isinstance(v, (int, float)) for v in value[:2]):
            spans.append((int(value[0]), int(value[1]), str(name)))
    spans = _merge_spans(spans)
    html = _mark_segment(head, 0, spans)
    if tail:
        omitted = length - len(head) - len(tail)
        html += Markup('\n<span class="muted">[… {} characters not shown …]</span>\n').format(omitted)
        html += _mark_segment(tail, length - len(tail), spans)
    return html


def number(value: Any, digits: int = 3) -> str:
    """``0.333``; ``–`` for NaN/None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def render(context: dict[str, Any]) -> str:
    """Fill the template (autoescaped) with ``context``."""
    environment = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return environment.from_string(TEMPLATE).render(**context)
