r"""The vocabulary of the normaliser: the kinds of canonical tokens, the depth of groups it
reads, and what the LaTeX commands, Unicode symbols and English words that the token rules
(:mod:`consensus_metrics.token_rules`, :mod:`consensus_metrics.latex_commands`) treat specially
become. Data only; the rules that read it cite it by name.

>>> COMMAND_TOKENS["cdot"], COMMAND_TOKENS["le"], COMMAND_TOKENS["alpha"], COMMAND_TOKENS["bmod"]
(('*', 3, False), ('≤', 4, False), ('α', 1, False), ('@mod', 2, True))
>>> UNICODE_TOKENS["≤"], UNICODE_OPERATORS["−"], VULGAR_FRACTIONS["¾"]
(('≤', 4), '-', (3, 4))
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- token kinds
#: The kinds of canonical tokens: a number (key ``#3/4``), an identifier (``x``, ``x_1``, ``π``),
#: a function (``@sin``, ``√``), an operator, a relation, an opening and a closing bracket, a
#: prose word (``~the``), punctuation (``,``, ``⇒``, a sentence end) and anything else.
NUM, ID, FUNC, OP, REL, OPEN, CLOSE, WORD, PUNCT, MISC = range(10)
#: The kinds of token an operand ends with (``2``, ``x``, ``)``): juxtaposed with what follows,
#: it may be a product.
OPERAND_END = (NUM, ID, CLOSE)
#: Nesting depth of brace groups read structurally; deeper braces are read as flat text.
MAX_GROUP_DEPTH = 48

# ----------------------------------------------------------------------------- LaTeX commands
GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "θ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "varpi": "π", "rho": "ρ",
    "varrho": "ρ", "sigma": "σ", "varsigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "φ",
    "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ",
    "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Upsilon": "Υ",
    "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "infty": "∞", "ell": "ℓ", "emptyset": "∅",
    "varnothing": "∅",
}
RELATIONS = {
    "le": "≤", "leq": "≤", "leqslant": "≤", "ge": "≥", "geq": "≥", "geqslant": "≥",
    "ne": "≠", "neq": "≠", "equiv": "≡", "approx": "≈", "simeq": "≈", "lt": "<", "gt": ">",
    "mid": "∣", "nmid": "∤", "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆",
    "cong": "≅", "sim": "∼", "parallel": "∥", "perp": "⊥", "propto": "∝",
}
#: Arrows and spacing that separate statements (a ``⇒`` punctuation token: chains end there).
BREAK_COMMANDS = {
    "implies", "Rightarrow", "Longrightarrow", "rightarrow", "longrightarrow", "to", "iff",
    "Leftrightarrow", "Longleftrightarrow", "therefore", "because", "quad", "qquad", "newline",
    "impliedby", "Leftarrow", "mapsto",
}
#: Functions written as commands (``\sin`` -> ``@sin``); ``\binom`` and ``\mod`` have rules of
#: their own (:data:`COMMAND_TOKENS`, :mod:`consensus_metrics.latex_commands`).
FUNCTIONS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "log", "ln", "lg", "exp", "gcd", "lcm", "max", "min", "det", "lim", "sum", "prod",
    "int", "deg", "arg", "floor", "ceil", "angle", "triangle", "binom", "mod",
}
MULT_COMMANDS = {"times", "cdot", "ast", "cdotp", "bullet", "centerdot"}
FRAC_COMMANDS = {"frac", "dfrac", "tfrac", "cfrac"}
BINOM_COMMANDS = {"binom", "dbinom", "tbinom"}
#: Sizes and layout: nothing (``\left`` and its kin join the delimiter after them, see
#: :data:`SIZED_DELIMITERS`).
NOOP_COMMANDS = {
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
    "biggr", "Biggl", "Biggr", "displaystyle", "textstyle", "scriptstyle", "limits",
    "nolimits", "nonumber", "notag", "hline", "middle", "qed", "square", "blacksquare",
    "allowbreak", "medskip", "smallskip", "bigskip", "noindent", "centering",
}
#: The sizing commands whose delimiter token spans the command too (``\left(``); ``\left.`` is none.
SIZED_DELIMITERS = {"left", "right", "bigl", "bigr", "Bigl", "Bigr", "middle"}
#: Wrappers of prose (their argument is read as words), and of math (read as math).
PROSE_WRAPPERS = {"text", "textbf", "textit", "textrm", "textnormal", "mbox", "hbox", "emph", "textsf", "texttt", "textup"}
MATH_WRAPPERS = {
    "mathbf", "mathit", "mathbb", "mathcal", "mathsf", "mathfrak", "boldsymbol", "bm",
    "boxed", "fbox", "framebox", "overline", "underline", "vec", "overrightarrow",
    "overleftrightarrow", "mathring", "cancel", "bcancel", "xcancel", "mathop", "ensuremath",
}
#: Accents that make another variable (the mean x̄, an estimate x̂, a derivative ẋ), kept on a
#: single letter as a combining mark; on anything else they are dropped like the wrappers above.
ACCENTS = {"bar": "\u0304", "hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
           "dot": "\u0307", "ddot": "\u0308"}
#: Commands whose one argument is no math (a label, a colour, a space): dropped with it.
DROP_ARG_COMMANDS = {"label", "ref", "eqref", "cite", "hspace", "vspace", "phantom", "hphantom", "vphantom", "tag", "color", "textcolor"}
DOTS_COMMANDS = {"dots", "ldots", "cdots", "vdots", "ddots", "dotsb", "dotsc", "dotsm"}
DEGREE_COMMANDS = {"circ", "degree", "degrees"}
#: Commands that are one token and take no argument: ``{name: (key, kind, no_mult)}`` (``no_mult``:
#: juxtaposition with the operand before it is no product: ``a \bmod n``).
COMMAND_TOKENS: dict[str, tuple[str, int, bool]] = {
    **{name: ("*", OP, False) for name in MULT_COMMANDS},
    **{name: (char, ID, False) for name, char in GREEK.items()},
    **{name: (char, REL, False) for name, char in RELATIONS.items()},
    **{name: ("⇒", PUNCT, False) for name in BREAK_COMMANDS},
    **{name: ("…", MISC, False) for name in DOTS_COMMANDS},
    "choose": ("@choose", FUNC, False),
    "bmod": ("@mod", FUNC, True), "mod": ("@mod", FUNC, True),  # \pmod{7} = (mod 7) = \bmod 7
    **{name: ("@" + name, FUNC, False) for name in FUNCTIONS - BINOM_COMMANDS - {"mod"}},
    "pm": ("±", OP, False), "mp": ("∓", OP, False), "div": ("/", OP, False),
    **{name: ("|", MISC, True) for name in ("lvert", "rvert", "vert")},  # |x - 3| however written
    **{name: ("‖", MISC, False) for name in ("lVert", "rVert", "Vert")},
    **{name: (name, MISC, False) for name in ("lfloor", "rfloor", "lceil", "rceil")},
    "langle": ("(", OPEN, False), "rangle": (")", CLOSE, False), "percent": ("%", MISC, False),
    **{name: (name, OP, False) for name in ("neg", "lnot", "land", "lor", "wedge", "vee", "cup", "cap", "setminus")},
}

# ----------------------------------------------------------------------------- Unicode
#: Unicode symbols that are one token: ``{symbol: (key, kind)}``.
UNICODE_TOKENS: dict[str, tuple[str, int]] = {
    "π": ("π", ID), "∞": ("∞", ID), "≤": ("≤", REL), "≥": ("≥", REL), "≠": ("≠", REL), "≈": ("≈", REL),
    "≡": ("≡", REL), "∣": ("∣", REL), "∠": ("@angle", FUNC), "△": ("@triangle", FUNC), "—": ("—", PUNCT),
    "→": ("⇒", PUNCT), "⇒": ("⇒", PUNCT), "⟹": ("⇒", PUNCT), "∴": ("⇒", PUNCT),
    "±": ("±", OP), "∓": ("∓", OP),  # as \pm and \mp (COMMAND_TOKENS)
}
#: Unicode operators, read by the operator rules as the ASCII operator given (a minus sign may be
#: unary).
UNICODE_OPERATORS = {"−": "-", "–": "-", "×": "*", "·": "*", "⋅": "*", "∙": "*", "÷": "/"}
#: Roots (the key of the function token) and vulgar fractions (numerator, denominator).
UNICODE_ROOTS = {"√": "√", "∛": "√[3]"}
VULGAR_FRACTIONS = {"½": (1, 2), "¼": (1, 4), "¾": (3, 4), "⅓": (1, 3), "⅔": (2, 3), "⅛": (1, 8)}
#: Spaces (thin, no-break) and characters that are nothing at all (zero width, byte order mark).
UNICODE_SPACES = frozenset("\u2009\u00a0\u202f")
INVISIBLE = frozenset("\u200b\ufeff")
SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")

# ----------------------------------------------------------------------------- words
#: Functions recognised as plain words (``sin(x)``, ``log 2``) when followed by math.
WORD_FUNCTIONS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "log", "ln", "exp", "gcd", "lcm", "mod", "sqrt",
}
#: Short English words that are prose, not products of variables (``as`` is not ``a*s``).
STOPWORDS = frozenset(
    """a an as at be by do go he if in is it me my no of on or so to up us we am are and any but can
    did for get got had has her him his how its let may new not now off old one our out own put say see
    set she the too two use was way who why yes yet you all few per via let lot sum day cm mm km kg mg
    ml ft yd mi hr hrs min sec lb lbs oz mph kph pm am each both then than them they this that with from
    into onto also only just what when will been were have more most some such does done gets made
    make take find know need want next last same ten six top end odd box cat dog car pen cup bag hat
    ok vs eg ie hi mr ms dr st nd rd th oh ah re""".split()
)
#: Words between two operands that are an operator (``5 times 3``, ``12 divided by 4``).
WORD_OPERATORS = {"times": "*", "plus": "+", "minus": "-", "divided": "/", "multiplied": "*"}
#: Words that relate or scale the numbers around them: never dropped as a unit.
CONNECTIVES = frozenset(
    """is are was were be been being am equals equal equaling gives give gets get got makes make means mean
    so then thus hence therefore and or but nor of to by times plus minus than which that this these those
    it its we you they he she since because when while if from into over under divided multiplied as at
    in on for with not no yes each every all total more less fewer greater smaller percent percentage
    squared cubed dozen dozens hundred hundreds thousand thousands million millions billion billions
    twice thrice half halves double triple quarter quarters""".split()
)
#: Connectives that may sit inside what a number counts before an explicit operator (``3 packs of
#: water balloons * $3``, ``12 slices each = 60``, ``4 grades in the middle school x 10``,
#: ``20 more = 120``): they link the words of the phrase, not the numbers around it.
UNIT_LINKS = frozenset("of for in on at each every per with more".split())
#: Most words in what a number counts (:func:`unit_phrase`): plain words, and with a link word.
UNIT_WORDS, LINKED_UNIT_WORDS = 3, 7


def unit_phrase(words) -> bool:
    """Whether prose-word keys (``~pots``) after a number only say what it counts, so that they
    may go before an operator: up to :data:`UNIT_WORDS` words none of them a :data:`CONNECTIVES`
    word, or up to :data:`LINKED_UNIT_WORDS` when one of them is a :data:`UNIT_LINKS` word (``5
    chocolate bars per packet``) and no other connective is among them.

    >>> unit_phrase(["~plant", "~pots", "~for", "~roses"]), unit_phrase(["~times"]), unit_phrase(["~more", "~than"])
    (True, False, False)
    """
    n = len(words)
    if not n or n > LINKED_UNIT_WORDS:
        return False
    linked = False
    for w in words:
        bare = w[1:]
        if bare in UNIT_LINKS:
            linked = True
        elif bare in CONNECTIVES:
            return False
    return n <= UNIT_WORDS or linked


#: Upper-case abbreviations that are units after a number and a space (``5 PM``), not products.
UPPER_UNITS = frozenset("USD EUR GBP MPH KPH GB KB TB".split())  # not AM, PM, MB: segment names
TEMPERATURE_SCALES = frozenset(("C", "F", "K", "Celsius", "Fahrenheit", "Kelvin"))
#: Words that number a heading or item with the integer after them (``Step 2:``, ``Case 1.``).
LABEL_WORDS = frozenset(("~step", "~case", "~part", "~method", "~approach", "~stage"))
UNITS = frozenset("cm mm km kg mg ml ft yd mi hr hrs min mins sec secs lb lbs oz mph kph sq cents dollars hours minutes seconds".split())
