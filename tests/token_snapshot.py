r"""A snapshot of the normaliser's tokens on a fixed corpus, to prove that a refactoring of
``consensus_metrics`` changed no token.

``tests/fixtures/normalize/token_snapshot.json`` holds digests of the canonical tokens -- every
field: keys, kinds, spans, ``spaced``, ``breaks``, ``implicit`` -- that the normaliser gave on
five families of texts:

* ``statements``: problem, reference solution and answer of every record of the shipped data
  (``lm_eval_tasks/consensusbench/data/*.jsonl``);
* ``node_forms``: every node's text, forms and value in those files;
* ``model_runs``: every string of the shipped real model runs (``reports/demo/math500``);
* ``tests``: every string constant of ``tests/*.py`` and every string of ``tests/fixtures``;
* ``generated``: 20,000 texts composed at random (a fixed seed) from :data:`PIECES`, which name
  every LaTeX command, Unicode symbol and word the normaliser treats specially, and the
  fragments that trip it up (list markers, sizes of brackets, repeating decimals...).

Each text is read three ways: :func:`~consensus_metrics.normalize.tokenize` as a trajectory
(list markers are layout), as a node form (``markdown=False``), and
:func:`~consensus_metrics.normalize.tokenize_form`. The texts of a family are spread over
buckets by a hash of the text, and a bucket is keyed by a hash of the texts in it: when the
shipped data are rebuilt, the buckets whose texts changed are no longer compared (and are
counted), every other bucket still is.

The snapshot was first written by the normaliser as it was before it was split into lexer and
token rules (issue 18). After a deliberate change of the tokens, write it again; also when
rebuilt data leave fewer than a quarter of a family's buckets comparable (the test fails so)
while every bucket still compared agrees, so that the next rebuilds are measured from there::

    python tests/token_snapshot.py --write
"""

from __future__ import annotations

import ast
import glob
import hashlib
import json
import os
import random
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNAPSHOT = os.path.join(REPO, "tests", "fixtures", "normalize", "token_snapshot.json")
#: buckets per family (a bucket is compared only while all its texts are still in the corpus)
BUCKETS = {"statements": 512, "node_forms": 512, "model_runs": 64, "tests": 256, "generated": 128}
GENERATED_TEXTS = 20_000
GENERATED_SEED = 18

_COMMANDS = """Big Bigg Biggl Biggr Bigl Bigr Delta Gamma Lambda Leftarrow Leftrightarrow Longleftrightarrow
Longrightarrow Omega Phi Pi Psi Rightarrow Sigma Theta Upsilon Vert Xi allowbreak alpha angle approx arccos
arcsin arctan arg ast bar bcancel because begin beta big bigg biggl biggr bigl bigr bigskip binom
blacksquare bm bmod boldsymbol boxed bullet cancel cap cdot cdotp cdots ceil centerdot centering cfrac chi
choose circ cite color cong cos cosh cot csc cup dbinom ddot ddots deg degree degrees delta det dfrac
displaystyle div dot dots dotsb dotsc dotsm ell emph emptyset end ensuremath epsilon eqref equiv eta exp
fbox floor foo frac framebox gamma gcd ge geq geqslant gt hat hbox hline hphantom hspace iff impliedby
implies in infty int iota kappa lVert label lambda land langle lceil lcm ldots le left leq leqslant lfloor
lg lim limits ln lnot log longrightarrow lor lt lvert mapsto mathbb mathbf mathcal mathfrak mathit mathop
mathring mathrm mathsf max mbox medskip mid middle min mod mp mu ne neg neq newline nmid noindent nolimits
nonumber notag notin nu omega operatorname overleftrightarrow overline overrightarrow parallel percent perp
phantom phi pi pm pmod prime prod propto psi qed qquad quad rVert rangle rceil ref rfloor rho right
rightarrow rm rvert scriptstyle sec setminus sigma sim simeq sin sinh smallskip sqrt square subset subseteq
sum tag tan tanh tau tbinom text textbf textcolor textit textnormal textrm textsf textstyle texttt textup
tfrac therefore theta tilde times to triangle underline upsilon varepsilon varnothing varphi varpi varrho
varsigma vartheta vdots vec vee vert vphantom vspace wedge widehat widetilde xcancel xi zeta""".split()
_WORDS = """cents cm dollars ft hours hr hrs kg km kph lb lbs mg mi min mins minutes ml mm mph oz sec seconds secs
sq yd divided minus multiplied plus times by arccos arcsin arctan cos cosh cot csc exp gcd lcm ln log mod sin
sinh sqrt tan tanh Step Case Part step a A I is as the it's don't apples sprints meters eggs lire feet yard
dozen squared PM AM USD GB MB Celsius Fahrenheit C F K xy ab abc AB ABC n k m mi there must have been the
positive root x-axis non-negative 4-pack 2nd 21st""".split()
#: The fragments the ``generated`` family is composed of (frozen: the snapshot depends on them).
PIECES = sorted(set(
    list("0123456789xyzabnkmstABCFKI+-*/^_=(){}[]<>.,;:!|$&%?'\" \n\t\\")
    + ["**", "...", "==", ":=", "<=", ">=", "!=", "&=", "\\\\", "\\,", "\\!", "\\;", "\\ ", "\\(", "\\)", "\\[",
       "\\]", "\\{", "\\}", "\\%", "\\$", "\\|", "\\&", "\\#", "12", "0.75", ".5", "1,000", "1{,}000", "1\\,000",
       "007", "2.5", "3/4", "24", "100", "17", "0.", "1.2", "\\overline{36}", "\\overline{3}", "\\overline{9}",
       "\\frac{1}{2}", "\\frac{3}{4}", "\\frac{6}{8}", "\\frac12", "\\frac ab", "\\frac{-3}{4}", "\\sqrt[3]{",
       "\\left.", "\\right|", "\\left(", "\\right)", "\\left\\{", "\\right\\}", "\\text{ ", "\\mathrm{m}",
       "\\mathrm{km/h}", "\\mathrm{C}", "\\text{mod }", "\\color{red}", "\\textcolor{blue}{", "\\operatorname{lcm}",
       "^\\circ", "^{\\circ}", "^{2}", "_{1}", "x_1", "x1", "n!", "5!=", "(mod ", "(the positive root)",
       "(minutes)", "<think>", "</think>", "<answer>", "\n- ", "\n* ", "\n+ ", "\n1) ", "\n(a) ", "\n(ii) ",
       "\n12. ", "\n2. ", "\\[\n- ", "Step 3:", "Case 2.", "²", "¹⁰", "α", "Ω", "é", "中", "\u200b", "\ufeff",
       "\xa0", "°", "±", "·", "¼", "½", "¾", "×", "÷", "π", "\u2009", "–", "—", "\u202f", "′", "⅓", "⅔", "⅛",
       "→", "⇒", "−", "∙", "√", "∛", "∞", "∠", "∣", "∴", "≈", "≠", "≡", "≤", "≥", "⋅", "△", "⟹", "’"]
    + ["\\" + name for name in _COMMANDS]
    + [" " + word for word in _WORDS] + _WORDS
))


def _strings(value, out: list) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def _json_lines(path: str):
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line:
                yield json.loads(line)


def corpus() -> dict[str, list[str]]:
    """The texts of each family (see the module docstring), without repeats."""
    families: dict[str, list[str]] = {name: [] for name in BUCKETS}
    for path in sorted(glob.glob(os.path.join(REPO, "lm_eval_tasks", "consensusbench", "data", "*.jsonl"))):
        for record in _json_lines(path):
            families["statements"] += [str(record.get(field) or "") for field in ("problem", "solution", "answer")]
            for node in record.get("nodes") or []:
                families["node_forms"] += [node["text"], *node.get("forms", []), str(node.get("value") or "")]
    for path in sorted(glob.glob(os.path.join(REPO, "reports", "demo", "math500", "*.jsonl"))):
        for record in _json_lines(path):
            _strings(record, families["model_runs"])
    for path in sorted(glob.glob(os.path.join(REPO, "tests", "*.py"))):
        if os.path.basename(path) != "token_snapshot.py":
            with open(path, encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            families["tests"] += [node.value for node in ast.walk(tree)
                                  if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    for path in sorted(glob.glob(os.path.join(REPO, "tests", "fixtures", "**", "*.json*"), recursive=True)):
        if path == SNAPSHOT:
            continue
        try:
            rows = list(_json_lines(path)) if path.endswith(".jsonl") else [json.load(open(path, encoding="utf-8"))]
        except (ValueError, UnicodeDecodeError):
            continue
        for row in rows:
            _strings(row, families["tests"])
    rng = random.Random(GENERATED_SEED)
    families["generated"] = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 30)))
                             for _ in range(GENERATED_TEXTS)]
    return {name: sorted(set(texts)) for name, texts in families.items()}


def _text_hash(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()


def token_digest(texts: list[str], tokenize, tokenize_form) -> str:
    """Digest of every token field of ``texts`` read the three ways of the module docstring.
    ``tokenize(text, markdown)`` returns a :class:`~consensus_metrics.normalize.Tokens`."""
    digest = hashlib.blake2b(digest_size=8)
    for text in texts:
        for markdown in (True, False):
            toks = tokenize(text, markdown)
            flags = bytes(2 * bool(s) + 4 * bool(b) + bool(i) for s, b, i in zip(toks.spaced, toks.breaks, toks.implicit))
            digest.update(repr((toks.keys, toks.kinds, toks.starts, toks.ends)).encode("utf-8", "surrogatepass"))
            digest.update(flags)
        digest.update(repr(tokenize_form(text)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def buckets(family: str, texts: list[str]) -> dict[str, list[str]]:
    """``{bucket key: texts}``: texts spread by hash, a bucket keyed by a hash of its texts."""
    spread: dict[int, list[str]] = {}
    for text in texts:
        spread.setdefault(int.from_bytes(_text_hash(text), "big") % BUCKETS[family], []).append(text)
    keyed = {}
    for number, members in sorted(spread.items()):
        key = hashlib.blake2b(digest_size=8)
        for text in members:
            key.update(_text_hash(text))
        keyed[f"{number}:{key.hexdigest()}"] = members
    return keyed


def snapshot(tokenize, tokenize_form) -> dict:
    """``{family: {bucket key: token digest}}`` of today's corpus."""
    return {family: {key: token_digest(members, tokenize, tokenize_form) for key, members in buckets(family, texts).items()}
            for family, texts in corpus().items()}


def _current_normaliser():
    from consensus_metrics.normalize import tokenize, tokenize_form

    return (lambda text, markdown: tokenize(text, markdown=markdown)), tokenize_form


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print(__doc__)
        return 2
    digests = snapshot(*_current_normaliser())
    os.makedirs(os.path.dirname(SNAPSHOT), exist_ok=True)
    with open(SNAPSHOT, "w", encoding="utf-8") as handle:
        json.dump({"buckets": BUCKETS, "generated": [GENERATED_TEXTS, GENERATED_SEED], "digests": digests}, handle,
                  indent=0, sort_keys=True)
        handle.write("\n")
    print(f"{SNAPSHOT}: {sum(map(len, digests.values()))} buckets")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, REPO)
    sys.exit(main(sys.argv[1:]))
