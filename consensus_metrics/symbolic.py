r"""The bounded symbolic fallback: is a text span algebraically the node? (docs/SPEC.md §3 rule 3)

Used only after the token rules failed, only for equation/expression nodes that contain a
variable, and only on a few candidate chain sides that use the same variables and the same
numbers (other than 0 and 1) -- what a rearrangement preserves. Both sides are
rebuilt as LaTeX *from validated canonical tokens* (digits, single-letter variables, ``+ - * /
^ ( )``, ``\sqrt``, ``\sin``-like functions: never raw model text), with size limits
(:data:`MAX_TOKENS`, exponents at most :data:`MAX_EXPONENT`, factorials at most
:data:`MAX_FACTORIAL`, bracket depth at most :data:`MAX_DEPTH`). They are parsed with
latex2sympy2_extended in the sandbox worker (never ``sympify``/``parse_expr``), and compared:

* expressions ``a`` and ``b`` of the same shape (number of terms and factors): ``a - b == 0``;
* equations ``L1 = R1`` and ``L2 = R2``: ``(L1 - R1) - (L2 - R2) == 0`` or ``(L1 - R1) + (L2 - R2)
  == 0`` -- a rearrangement (``2x - 10 = 0`` ~ ``2x = 10``), never a rescaling (``x = 5`` is
  not ``2x = 10``: the trajectory has not concluded ``x = 5`` yet). A factored form and an
  expanded one never confirm each other: the factorisation is a step of its own. Neither
  equation may be an identity (``L - R == 0`` for every value: a factorisation or an
  expansion): every identity would rearrange into every other of the same variables
  (``x^4 - 1 = (x-1)(x+1)(x^2+1)`` is not ``x^2 - 2 = (x + \sqrt{2})(x - \sqrt{2})``); those
  are matched side by side or not at all.

Rational expressions (numbers, variables, ``+ - * /``, integer powers, factorials) are decided
in-process by exact evaluation at three pseudo-random rational points (Schwartz-Zippel: a
non-zero rational function of low degree vanishes at all three with negligible probability);
only expressions with roots, functions or pi go to sympy in the sandbox, where zero-testing
evaluates at random points first (a fast "no") and confirms with ``sympy.simplify``. Results
are cached across calls.

>>> to_latex(*__import__("consensus_metrics.normalize", fromlist=["x"]).tokenize_form("2x^{2}+\\frac{3}{4}"))
'2\\cdot x^{2}+\\frac{3}{4}'
"""

from __future__ import annotations

import math
import random
import threading
from collections import OrderedDict
from fractions import Fraction
from functools import lru_cache

from . import sandbox
from .budget import Deadline
from .normalize import CLOSE, FUNC, ID, NUM, OP, OPEN

MAX_TOKENS = 48
MAX_EXPONENT = 32
MAX_FACTORIAL = 30
MAX_DEPTH = 6
MAX_NUMBER_DIGITS = 12
#: At most this many sandbox checks per trajectory, and per node.
MAX_CHECKS_PER_TEXT = 12
MAX_CHECKS_PER_NODE = 4
#: Each check gets at most this many seconds (and never more than the trajectory has left).
CHECK_TIMEOUT_S = 0.3

_GREEK_LATEX = {
    "α": "\\alpha", "β": "\\beta", "γ": "\\gamma", "δ": "\\delta", "θ": "\\theta", "λ": "\\lambda",
    "μ": "\\mu", "π": "\\pi", "σ": "\\sigma", "φ": "\\phi", "ω": "\\omega",
}
_FUNC_LATEX = {"@sin": "\\sin", "@cos": "\\cos", "@tan": "\\tan", "@log": "\\log", "@ln": "\\ln", "@exp": "\\exp"}


def _atom(key: str, kind: int) -> str | None:
    if kind == NUM:
        body = key[1:]
        if not body.replace("/", "").isdigit() or len(body) > 2 * MAX_NUMBER_DIGITS:
            return None
        if "/" in body:
            a, b = body.split("/")
            return f"\\frac{{{a}}}{{{b}}}"
        return body
    if kind == ID:
        if key in _GREEK_LATEX:
            return _GREEK_LATEX[key]
        base, _, sub = key.partition("_")
        if len(base) != 1 or not base.isascii() or not base.isalpha():
            return None
        if sub:
            if not sub.isalnum() or len(sub) > 3:
                return None
            return f"{base}_{{{sub}}}"
        return base
    return None


def to_latex(keys, kinds) -> str | None:
    """Rebuild safe LaTeX from canonical tokens, or ``None`` if outside the validated subset.

    One loop over the tokens with its bracket state (depth, pending closers, a pending ``^``/``\\sqrt``
    argument); it is longer than 60 lines because that state is shared by every token kind, and
    splitting it would pass the state around rather than shorten anything."""
    if not keys or len(keys) > MAX_TOKENS:
        return None
    out: list[str] = []
    depth = 0
    closers: list[str] = []  # what each open bracket closes with
    pending_brace = 0  # the next operand is the argument of ^ or \sqrt
    i = 0
    n = len(keys)
    while i < n:
        key, kind = keys[i], kinds[i]
        if kind in (NUM, ID):
            atom = _atom(key, kind)
            if atom is None:
                return None
            if pending_brace:
                if kind == NUM and out and out[-1] == "^{" and key[1:].isdigit() and int(key[1:]) > MAX_EXPONENT:
                    return None
                out.append(atom + "}")
                pending_brace -= 1
            else:
                out.append(atom)
        elif kind == OPEN:
            if key not in "([":
                return None
            depth += 1
            if depth > MAX_DEPTH:
                return None
            if pending_brace:
                closers.append("}")
                pending_brace -= 1
                out.append("")  # the brace opened by ^{ or \sqrt{ holds the group
            else:
                closers.append(")")
                out.append("(")
        elif kind == CLOSE:
            if not closers:
                return None
            depth -= 1
            out.append(closers.pop())
        elif kind == OP:
            if key in ("+", "-"):
                out.append(key)
            elif key == "neg":
                out.append("-")
            elif key == "*":
                out.append("\\cdot ")
            elif key == "/":
                out.append("/")
            elif key == "^":
                out.append("^{")
                pending_brace += 1
            elif key == "!":
                prev = keys[i - 1] if i else ""
                if not prev.startswith("#") or not prev[1:].isdigit() or int(prev[1:]) > MAX_FACTORIAL:
                    return None
                out.append("!")
            else:
                return None
        elif kind == FUNC:
            if key == "√":
                out.append("\\sqrt{")
                pending_brace += 1
            elif key in _FUNC_LATEX:
                out.append(_FUNC_LATEX[key] + " ")
            else:
                return None
        else:
            return None
        i += 1
    if pending_brace or closers:
        return None
    return "".join(out)


# ----------------------------------------------------------------------------- exact evaluation
class _Unsupported(Exception):
    pass


class _Evaluator:
    """Evaluate canonical tokens of a rational expression at a point, exactly (``Fraction``).

    Grammar: sums, products, quotients, unary minus, integer powers (|exponent| <= MAX_EXPONENT),
    factorials (<= MAX_FACTORIAL), brackets, numbers and variables. Anything else (roots,
    functions, constants like pi) raises :class:`_Unsupported` and goes to sympy instead.
    """

    def __init__(self, keys, kinds, point: dict):
        self.keys, self.kinds, self.point, self.i = keys, kinds, point, 0

    def run(self) -> Fraction:
        value = self.expr()
        if self.i != len(self.keys):
            raise _Unsupported()
        return value

    def _peek(self):
        return self.keys[self.i] if self.i < len(self.keys) else None

    def expr(self) -> Fraction:
        value = self.term()
        while self._peek() in ("+", "-"):
            op = self.keys[self.i]
            self.i += 1
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self) -> Fraction:
        value = self.factor()
        while self._peek() in ("*", "/"):
            op = self.keys[self.i]
            self.i += 1
            rhs = self.factor()
            if op == "*":
                value *= rhs
            elif rhs == 0:
                raise ZeroDivisionError
            else:
                value /= rhs
        return value

    def factor(self) -> Fraction:
        if self._peek() == "neg":
            self.i += 1
            return -self.factor()
        base = self.atom()
        while self._peek() == "!":
            self.i += 1
            if base.denominator != 1 or not 0 <= base <= MAX_FACTORIAL:
                raise _Unsupported()
            base = Fraction(math.factorial(int(base)))
        if self._peek() == "^":
            self.i += 1
            exponent = self.factor()
            if exponent.denominator != 1 or abs(exponent) > MAX_EXPONENT:
                raise _Unsupported()
            if base == 0 and exponent < 0:
                raise ZeroDivisionError
            return base ** int(exponent)
        return base

    def atom(self) -> Fraction:
        if self.i >= len(self.keys):
            raise _Unsupported()
        key, kind = self.keys[self.i], self.kinds[self.i]
        self.i += 1
        if kind == NUM:
            body = key[1:]
            if not body.replace("/", "", 1).isdigit() or len(body) > 2 * MAX_NUMBER_DIGITS:
                raise _Unsupported()
            return Fraction(body)
        if kind == ID:
            if key not in self.point:
                raise _Unsupported()
            return self.point[key]
        if kind == OPEN and key in "([":
            value = self.expr()
            if self._peek() not in (")", "]"):
                raise _Unsupported()
            self.i += 1
            return value
        raise _Unsupported()


_PROBES = 3


def _probe_points(names) -> list[dict]:
    rng = random.Random("|".join(sorted(names)))  # deterministic: same variables, same points
    return [{n: Fraction(rng.randint(10**5, 10**9), rng.randint(10**2, 10**5)) for n in names} for _ in range(_PROBES)]


def values_at_points(tokens, names) -> list[Fraction] | None:
    """The exact values of a rational expression's ``(keys, kinds)`` at the deterministic random
    points of :func:`exact_equivalent` (the same points for the same ``names``); ``None`` outside
    the rational subset or at a pole.

    >>> from consensus_metrics.normalize import tokenize_form
    >>> a, b = values_at_points(tokenize_form("2x + 2"), ["x"]), values_at_points(tokenize_form("x + 1"), ["x"])
    >>> {x / y for x, y in zip(a, b)}
    {Fraction(2, 1)}
    """
    try:
        return [_Evaluator(*tokens, point).run() for point in _probe_points(names)]
    except (_Unsupported, ZeroDivisionError, OverflowError, RecursionError):
        return None


def exact_equivalent(a, b, mode: str, names) -> bool | None:
    """Decide equivalence by exact evaluation at random rational points (Schwartz-Zippel).

    ``a``/``b`` are (keys, kinds) of expressions, or of ``[L, R]`` pairs in ``eq`` mode. Returns
    ``None`` when the tokens are outside the rational subset (roots, functions, pi).
    """
    zero_a = zero_b = True
    same = opposite = True
    try:
        for point in _probe_points(names):
            if mode == "expr":
                va, vb = _Evaluator(*a, point).run(), _Evaluator(*b, point).run()
                if va != vb:
                    return False
                continue
            da = _Evaluator(*a[0], point).run() - _Evaluator(*a[1], point).run()
            db = _Evaluator(*b[0], point).run() - _Evaluator(*b[1], point).run()
            zero_a &= da == 0
            zero_b &= db == 0
            same &= da == db
            opposite &= da == -db
            if not (same or opposite):
                return False
    except (_Unsupported, ZeroDivisionError, OverflowError, RecursionError):
        return None
    if mode == "expr":
        return True
    return (same or opposite) and not zero_a and not zero_b


# ----------------------------------------------------------------------------- sandbox side
def _is_zero(expr) -> bool:
    import random

    import sympy

    free = sorted(expr.free_symbols, key=str)
    rng = random.Random(20260)
    for _ in range(3):
        point = {s: sympy.Rational(rng.randint(2, 97), rng.randint(2, 13)) for s in free}
        try:
            value = complex(expr.xreplace(point).evalf(30))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            continue
        if abs(value) > 1e-9 * (1 + abs(value)):
            return False
    return sympy.simplify(expr) == 0


def equivalent_in_process(a: str, b: str, mode: str) -> bool:
    """Compare two validated LaTeX spans (``mode`` ``expr``) or equations ``L|R`` (``eq``)."""
    from latex2sympy2_extended import latex2sympy

    if mode == "expr":
        return bool(_is_zero(latex2sympy(a) - latex2sympy(b)))
    la, ra = a.split("|", 1)
    lb, rb = b.split("|", 1)
    da = latex2sympy(la) - latex2sympy(ra)
    db = latex2sympy(lb) - latex2sympy(rb)
    if da == 0 or db == 0 or _is_zero(da) or _is_zero(db):
        return False  # an identity (a factorisation, an expansion) holds for every value: any two agree
    return bool(_is_zero(da - db) or _is_zero(da + db))


# ----------------------------------------------------------------------------- caller side
_CACHE: "OrderedDict[tuple, bool | None]" = OrderedDict()
_CACHE_SIZE = 20000


_CACHE_LOCK = threading.Lock()


def _cached(key):
    with _CACHE_LOCK:
        hit = _CACHE.get(key, "miss")
        if hit != "miss":
            _CACHE.move_to_end(key)
        return hit


def _store(key, value):
    with _CACHE_LOCK:
        _CACHE[key] = value
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)


def _ids(kinds, keys) -> frozenset:
    return frozenset(k for k, kind in zip(keys, kinds) if kind == ID)


def _shape(keys, kinds) -> tuple[int, int]:
    """(depth-0 terms, depth-0 factors) of an expression: ``(2s-5)(2s+9)`` -> (1, 2)."""
    terms, factors, depth = 1, 1, 0
    for k, (key, kind) in enumerate(zip(keys, kinds)):
        if kind == OPEN:
            depth += 1
        elif kind == CLOSE:
            depth -= 1
        elif depth == 0 and kind == OP and k:
            if key in ("+", "-"):
                terms += 1
            elif key == "*" and terms == 1:
                factors += 1
    return terms, factors


def _numbers(keys, kinds) -> frozenset:
    """Number keys other than 0 and 1 (rearranging an equation keeps the others' magnitudes)."""
    return frozenset(k for k, kind in zip(keys, kinds) if kind == NUM and k not in ("#0", "#1"))


def _factored(keys, kinds) -> bool:
    """A product with a parenthesised factor: the form a factorisation step produces."""
    terms, factors = _shape(keys, kinds)
    return terms == 1 and factors >= 2 and OPEN in kinds


@lru_cache(maxsize=16384)
def _node_profile(sides, rels):
    """What the symbolic step compares candidates with, per node form (cached: a form is checked
    against many sentences): its LaTeX sides, identifiers, shape, factored-ness, numbers and
    length; ``None`` when the form is out of the symbolic step's scope."""
    if len(rels) > 1 or (rels and rels[0] != "="):
        return None
    node_latex = tuple(to_latex(keys, kinds) for keys, kinds in sides)
    if any(x is None for x in node_latex):
        return None
    node_ids = frozenset().union(*(_ids(kinds, keys) for keys, kinds in sides))
    # Equal value is not equal form: a factorisation node is not covered by the expanded
    # polynomial (nor the reverse), and an expression only by one of the same shape.
    node_shape = _shape(*sides[0]) if not rels else None
    node_factored = any(_factored(keys, kinds) for keys, kinds in sides)
    node_numbers = frozenset().union(*(_numbers(keys, kinds) for keys, kinds in sides))
    node_len = sum(len(keys) for keys, _ in sides)
    return node_latex, node_ids, node_shape, node_factored, node_numbers, node_len


class SymbolicChecker:
    """Callable used by the matcher: ``checker(index, sides, rels) -> (start, end) | None``."""

    def __init__(self, deadline: Deadline):
        self.deadline = deadline
        self.checks = 0
        # a worker killed during this call is not restarted by it (start-up would blow the budget)
        self.kills_at_start = sandbox.kills()

    def _ask(self, a: str, b: str, mode: str) -> bool:
        key = (a, b, mode)
        hit = _cached(key)
        if hit != "miss":
            return bool(hit)
        if self.checks >= MAX_CHECKS_PER_TEXT:
            return False
        if sandbox.kills() != self.kills_at_start and not sandbox.is_warm():
            return False
        timeout = min(CHECK_TIMEOUT_S, self.deadline.remaining())
        if timeout <= 0.01:
            return False
        self.checks += 1
        try:
            result = bool(sandbox.call("equivalent", {"a": a, "b": b, "mode": mode}, timeout=timeout))
        except sandbox.SandboxTimeout:
            _store(key, False)  # too expensive to decide: not covered, and don't retry
            return False
        except sandbox.SandboxError:
            result = False
        _store(key, result)
        return result

    def __call__(self, index, sides, rels):
        profile = _node_profile(sides, rels)
        if profile is None:
            return None
        node_latex, node_ids, node_shape, node_factored, node_numbers, node_len = profile
        candidates = []
        toks = index.toks
        side_ids = index.side_ids  # identifiers per text side, computed once for all nodes
        for chain in index.chains:
            if rels:
                pairs = [(chain.sides[p], chain.sides[p + 1]) for p in range(len(chain.rels)) if chain.rels[p] == "="]
            else:
                pairs = [(side,) for side in chain.sides]
            for pair in pairs:
                if any(not s.key for s in pair):
                    continue
                length = sum(s.hi - s.lo for s in pair)
                if length > 3 * node_len + 4 or 3 * length + 4 < node_len:
                    continue
                ids = frozenset()
                for side in pair:
                    found = side_ids.get((side.lo, side.hi))
                    if found is None:
                        found = side_ids[(side.lo, side.hi)] = _ids(toks.kinds[side.lo:side.hi], toks.keys[side.lo:side.hi])
                    ids |= found
                if ids != node_ids:
                    continue
                spans = [(toks.keys[s.lo:s.hi], toks.kinds[s.lo:s.hi]) for s in pair]
                if node_shape is not None and _shape(*spans[0]) != node_shape:
                    continue
                if any(_factored(*span) for span in spans) != node_factored:
                    continue
                if frozenset().union(*(_numbers(*span) for span in spans)) != node_numbers:
                    continue
                candidates.append(pair)
        tried = 0
        for pair in sorted(candidates, key=lambda p: p[-1].end):
            spans = [(toks.keys[s.lo:s.hi], toks.kinds[s.lo:s.hi]) for s in pair]
            if tried >= MAX_CHECKS_PER_NODE or self.deadline.expired():
                break
            tried += 1
            key = ("exact", tuple(sides), tuple((tuple(k), tuple(c)) for k, c in spans), bool(rels))
            ok = _cached(key)
            if ok == "miss":
                if rels:
                    ok = exact_equivalent(list(sides), spans, "eq", node_ids)
                else:
                    ok = exact_equivalent(sides[0], spans[0], "expr", node_ids)
                _store(key, ok)
            if ok is None:  # roots, functions, pi: sympy in the sandbox decides
                latex = [to_latex(*span) for span in spans]
                if any(x is None for x in latex):
                    continue
                if rels:
                    ok = self._ask("|".join(node_latex), "|".join(latex), "eq")
                else:
                    ok = self._ask(node_latex[0], latex[0], "expr")
            if ok:
                return min(s.start for s in pair), max(s.end for s in pair)
        return None
