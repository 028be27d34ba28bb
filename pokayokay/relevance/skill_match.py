"""How well a skill's description fits a prompt (pure).

A description is read into a :class:`Profile` once, when the catalog is cached ("this skill"
boilerplate removed first):

* **fields** — each term with the weight of the strongest place it appears: the skill's name
  (:data:`NAME_WEIGHT`, or :data:`NAME_PART_WEIGHT` for one word of a longer name), a file format
  it names on its own (``.xlsx``, ``(.pdf)``: :data:`EXT_WEIGHT`), a quoted trigger phrase
  (``'redline this contract'``: :data:`TRIGGER_WEIGHT`), the first sentence, where a
  description states its subject (:data:`LEAD_WEIGHT`), or the rest of the text (1);
* **phrases** — the quoted trigger phrases, as term sequences: a prompt holding every term of
  one earns :data:`PHRASE_BONUS`;
* **bigrams** — adjacent term pairs of the text ("load test", "landing page"): each one the
  prompt shares earns :data:`BIGRAM_BONUS` times its specificity;
* **negative** — the terms found only in negative clauses ("Do NOT use for Word documents",
  "Not for GraphQL schemas", "use the docx skill instead"): they never count for the skill, and a
  prompt holding them is held against it (:data:`NEGATIVE_FACTOR`) unless it names the skill or
  its format ("the Markdown files as one Word document");
* **anchors** — the name's words and the proper names of the text (a capitalised word inside a
  sentence: Playwright, MCP, Stripe; not HTTP or API, :data:`COMMON_ACRONYMS`): a prompt naming
  one that no other skill holds earns :data:`ANCHOR_BONUS` times its specificity;
* **body** — the :data:`BODY_TERMS` words the ``SKILL.md`` body uses most (its prose after the
  frontmatter, code blocks left out) that no other part holds, in ``fields`` at
  :data:`BODY_WEIGHT`, counted over the bodies for their IDF (decision 0205): a task the
  description states vaguely and the body names ("write the failing test first").

Scoring a prompt: each prompt term's *specificity* is its IDF over the catalog scaled to 0–1,
times :data:`~pokayokay.relevance.skill_terms.GENERIC_FACTOR` for generic coding words, times
:data:`PATH_FACTOR` for a word found only in one of the prompt's file names (``models`` in
``src/app/models.py``) unless it names a skill (a one-word name or a format anywhere:
``docker-compose.yml``; a longer name's words as a whole folder or file name,
``mcp_builder.py``, not ``report_builder.py``, and part of them only in the path of a document or
of a test file: ``ci.yml``, ``docs/plans/x.md``, ``tests/test_sync.py``, not ``src/api/users.ts``:
decision 0145), or only in an identifier (``spreadsheet_id``,
``export_csv()``, ``client.messages.create``, ``PdfIcon``, "the ChangelogPage component"), even
one naming a skill, or only after the colon of a request to write a message ("write the friday
note to my team: k8s migration 60% done": the message's content, not the task). A skill
sharing only such words and generic words with a prompt gets no evidence at all (names in code
say where the work is, not what it is), and so does one sharing a single plain word that is not
rare over the catalog (:mod:`pokayokay.relevance.evidence`, the rule recall shares: "api" alone
names no skill). A file name's extension
counts only for a skill naming that format (``budget.xlsx``; never ``time.sleep``). A ``re-``
word also counts as its base when the catalog knows it (redesign → design). A skill's evidence is
the sum, over the prompt terms it holds, of specificity times field weight, plus the bonuses. The
score divides the evidence by ``(1 + mass) ** MASS_EXPONENT``, ``mass`` being the prompt's total
specificity (a term no skill holds counting :data:`UNKNOWN_MASS` of it): a long prompt that
merely brushes a skill's vocabulary stays below the floor, a short one naming the skill's subject
clears it. Constants are calibrated on ``tests/data/skills_eval`` (see ``skills/suggest``).

The catalog-wide numbers (document frequencies, name terms) are computed once per catalog and
kept with it in the skills cache (:class:`Catalog`, :class:`Stats`).
"""

from __future__ import annotations

import math

from pokayokay.infra.lazyre import IGNORECASE, Lazy
from pokayokay.infra.spans import replace_spans
from pokayokay.relevance.asks import message_content
from pokayokay.relevance.evidence import rare, speaks
from pokayokay.relevance.scan import has_inner_capital, joins_words
from pokayokay.relevance.scan_names import file_name_matches, identifier_spans
from pokayokay.relevance.skill_terms import (
    GENERIC_FACTOR,
    MAX_PROMPT_CHARS,
    bigrams,
    evoked_terms,
    fold_phrases,
    generic_terms,
    tokenize,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from pokayokay.skills.catalog import Skill

# Bumped whenever the analysis or the profile layout changes: cached catalogs are rebuilt.
ANALYSIS_VERSION = 8
NAME_WEIGHT = 2.5
NAME_PART_WEIGHT = 1.75  # one word of a several-word name
LEAD_WEIGHT = 1.6  # a word of the first sentence, where a description states its subject
EXT_WEIGHT = 2.5
TRIGGER_WEIGHT = 1.6
PHRASE_BONUS = 1.0
ANCHOR_BONUS = 1.0
BIGRAM_BONUS = 1.5
NEGATIVE_FACTOR = 0.2
MASS_EXPONENT = 0.35
UNKNOWN_MASS = 0.35  # how much a prompt term no skill holds weighs in the prompt's mass
PATH_FACTOR = 0.5  # a word found only in a file name of the prompt
MAX_PHRASE_TERMS = 8
# The body of a SKILL.md (its prose after the frontmatter, code blocks left out) is a weak field
# (decision 0205): the words it uses most that the description lacks, each at BODY_WEIGHT of a
# description word, with a document frequency of their own (over the bodies that hold them, for
# a word no description holds), so a description word keeps its IDF.
BODY_WEIGHT = 0.3
BODY_TERMS = 100

_NEGATIVE = Lazy(
    r"(?:\b(?:do not|don't|never|not|nor)\s+(?:use|trigger|intended|meant|suitable|designed)\b"
    r"|\bnot (?:for|when|to be used)\b"
    r"|\b(?:use|see|prefer)\s+(?:the\s+)?[\w-]+(?:\s+(?:or|and)\s+[\w-]+)?\s+(?:skills?\s+)?"
    r"(?:instead|for that)\b)"
    r"[^.;:!?]*",
    IGNORECASE,
)
# Capitalised words every kind of software text uses: no anchor.
COMMON_ACRONYMS = frozenset(
    """
    api apis http https json html css sql url urls uri yaml xml cli ui ux id ids io os
    sdk sdks rest crud utf ascii ai llm llms ml pr prs ci cd dev prod
    """.split()  # noqa: SIM905 - a word list reads better as text
)
_SENTENCE_END = Lazy(r"[.!?:;](?:\s|$)|\(")
_WORD_IN_SENTENCE = Lazy(r"[A-Za-z][\w+#-]*")
_QUOTED = Lazy(r"\"([^\"\n]{3,80})\"|“([^”\n]{3,80})”|(?<![\w])'([^'\n]{3,80})'(?![\w])")
# A file format named on its own (".xlsx", "(.pdf)"), not a path or glob (".github/", "*.yml").
_EXTENSION = Lazy(r"(?<![\w/*.-])\.([a-z][a-z0-9]{1,6})\b(?![/.-])")


class Profile:
    """The matchable parts of one skill (see the module docstring). ``bigrams``, ``negative``
    and ``anchors`` may be given as lists (the cache's): they become sets when first read, which
    most profiles never are on a prompt (a skill sharing no term with it is not looked into)."""

    __slots__ = (
        "_anchors", "_bigrams", "_body", "_described", "_negative", "asked", "fields", "phrases",
    )  # fmt: skip

    def __init__(
        self,
        fields: dict[str, float],
        phrases: list[list[str]],
        bigrams: set[str] | list[str],
        negative: set[str] | list[str],
        anchors: set[str] | list[str] | None = None,
        asked: bool = False,
    ) -> None:
        self.fields = fields
        self.phrases = phrases
        self._bigrams = bigrams
        self._negative = negative
        self._anchors = anchors if anchors is not None else set()
        self.asked = asked  # whether how a user might ask for it is in ``fields`` (0176)
        self._body: set[str] | None = None  # the fields only its body holds (0205), when read
        self._described: dict[str, float] | None = None  # the fields less those, when read

    @property
    def bigrams(self) -> set[str]:
        if not isinstance(self._bigrams, set):
            self._bigrams = set(self._bigrams)
        return self._bigrams

    @property
    def negative(self) -> set[str]:
        if not isinstance(self._negative, set):
            self._negative = set(self._negative)
        return self._negative

    @property
    def anchors(self) -> set[str]:
        if not isinstance(self._anchors, set):
            self._anchors = set(self._anchors)
        return self._anchors

    @property
    def body(self) -> set[str]:
        """The fields only the skill's body holds: those at :data:`BODY_WEIGHT`, a weight no
        other part gives (read from ``fields`` when first asked: the cache need not repeat
        them)."""
        if self._body is None:
            self._body = {t for t, w in self.fields.items() if w == BODY_WEIGHT}
        return self._body

    @property
    def described(self) -> dict[str, float]:
        """``fields`` less the words only its body holds: what the skill says it is for, which
        decides what it is (a spike's skill) and what failures it addresses; the body is a weak
        field of the prompt's match, weighed by the gate, not a claim (decision 0205)."""
        if self._described is None:
            body = self.body
            self._described = {t: w for t, w in self.fields.items() if t not in body}
        return self._described

    def to_data(self) -> dict[str, Any]:
        return {
            "fields": self.fields,
            "phrases": self.phrases,
            "bigrams": sorted(self.bigrams),
            "negative": sorted(self.negative),
            "anchors": sorted(self.anchors),
            "asked": self.asked,
        }

    @classmethod
    def from_data(cls, data: Any) -> Profile | None:
        """A profile from its cached data (shape checked, not every item: the cache is ours and
        is read on every prompt)."""
        if not isinstance(data, dict):
            return None
        get = data.get  # every skill, every prompt: no generator
        fields, phrases, pairs = get("fields"), get("phrases"), get("bigrams")
        negative, anchors = get("negative"), get("anchors")
        if not (
            isinstance(fields, dict)
            and isinstance(phrases, list)
            and isinstance(pairs, list)
            and isinstance(negative, list)
            and isinstance(anchors, list)
        ):
            return None
        # sets when first read
        return cls(fields, phrases, pairs, negative, anchors, get("asked") is True)


def name_words(name: str) -> str:
    """A skill name as words (``tools:webapp-testing`` → ``tools webapp testing``)."""
    return _NAME_SEPARATORS.sub(" ", name)


_BOILERPLATE = Lazy(
    r"\b(?:use |invoke |apply |load )?(?:this|the) skill\b(?!\.\w)"
    r"|\bskills? (?:instead|for that)\b",
    IGNORECASE,
)


def profile(name: str, description: str, asked: Sequence[str] = (), body: str = "") -> Profile:
    """The :class:`Profile` of a skill from its name and its description text; ``asked``: how a
    user might ask for it (:mod:`pokayokay.skills.asked`), whose words the description lacks
    count as the rest of its text (weight 1); ``body``: the prose of its ``SKILL.md`` after the
    frontmatter (:func:`pokayokay.skills.skill_frontmatter.body_text`), whose
    :data:`BODY_TERMS` most used words that no other part holds count at :data:`BODY_WEIGHT`."""
    from itertools import pairwise  # the catalog's cache is built off the prompt path

    negative_text = _BOILERPLATE.sub(" ", " ".join(m[0] for m in _NEGATIVE.finditer(description)))
    positive_text = _BOILERPLATE.sub(" ", _NEGATIVE.sub(" . ", description))
    positive = tokenize(positive_text)
    fields: dict[str, float] = dict.fromkeys(positive, 1.0)
    phrases: list[list[str]] = []
    for found in _QUOTED.finditer(positive_text):
        quoted = found[1] or found[2] or found[3] or ""
        terms = tokenize(quoted)
        for term in terms:
            fields[term] = max(fields.get(term, 0.0), TRIGGER_WEIGHT)
        if 2 <= len(terms) <= MAX_PHRASE_TERMS:
            phrases.append(terms)
    for ext in _EXTENSION.findall(fold_phrases(positive_text)):
        for term in tokenize(ext):
            fields[term] = max(fields.get(term, 0.0), EXT_WEIGHT)
    words = tokenize(name_words(name))
    weight = NAME_WEIGHT if len(set(words)) == 1 else NAME_PART_WEIGHT
    for term in words:
        fields[term] = max(fields.get(term, 0.0), weight)
    lead = tokenize(_SENTENCE_END.split(positive_text, 1)[0])
    for term in lead:
        if fields.get(term) == 1.0:
            fields[term] = LEAD_WEIGHT
    negative = {t for t in tokenize(negative_text) if t not in fields}
    # Anchors: the name's words and the proper names of the text (a capitalised word that does
    # not start a sentence: Playwright, MCP, Stripe, OAuth), what the skill is specifically about.
    anchors = set(words)
    # The second word of a name that the text also writes in lower case is a word ("Apollo
    # Client" beside "servers and clients"; "Google Lighthouse" keeps "lighthouse").
    lower = {
        t for w in _WORD_IN_SENTENCE.findall(positive_text) if w[0].islower() for t in tokenize(w)
    }
    for sentence in _SENTENCE_END.split(positive_text):
        in_sentence: list[str] = _WORD_IN_SENTENCE.findall(sentence)
        for before, word in pairwise(in_sentence):
            if not word[0].isupper() or word.lower() in COMMON_ACRONYMS:
                continue
            if before[0].isupper() and any(t in lower for t in tokenize(word)):
                continue
            parts = tokenize(word)
            if len(parts) == 1:  # CrashLoopBackOff names no one word
                anchors.add(parts[0])
    anchors &= set(fields)
    for term in tokenize(" ".join(asked)):
        fields.setdefault(term, 1.0)
    counts: dict[str, int] = {}
    for term in tokenize(body):
        if term not in fields and term not in negative:
            counts[term] = counts.get(term, 0) + 1
    own = sorted(counts, key=lambda t: (-counts[t], t))[:BODY_TERMS]
    for term in own:
        fields[term] = BODY_WEIGHT
    return Profile(fields, phrases, bigrams(positive), negative, anchors, bool(asked))


# --------------------------------------------------------------------------------------------
# Scoring


class Stats:
    """Catalog-wide numbers: how many skills hold each term, the terms that name a skill on
    their own (a one-word name, a format a skill names) and the words of several-word names."""

    __slots__ = ("df", "n", "names", "parts")

    def __init__(
        self,
        n: int,
        df: dict[str, int],
        names: set[str] | None = None,
        parts: list[list[str]] | None = None,
    ) -> None:
        self.n = n
        self.df = df
        self.names = names if names is not None else set()
        self.parts = parts if parts is not None else []

    @classmethod
    def of(cls, skills: Iterable[Skill]) -> Stats:
        """The numbers of the skills whose description could be read: document frequencies
        over their profiles (a word counted over the profiles that hold it outside their body;
        a word no profile holds there, over the bodies that hold it: decision 0205), and their
        names as words (one-word names, a file name may hold: ``Dockerfile``,
        ``docker-compose.yml``; the words of longer names)."""
        df: dict[str, int] = {}
        names: set[str] = set()
        parts: list[list[str]] = []
        n = 0
        in_body: dict[str, int] = {}  # a word by the bodies that hold it (decision 0205)
        for skill in skills:
            if skill.profile is None:
                continue
            n += 1
            body = skill.profile.body
            for term in skill.profile.fields:
                if term in body:
                    in_body[term] = in_body.get(term, 0) + 1
                else:
                    df[term] = df.get(term, 0) + 1
            words = sorted(set(tokenize(name_words(skill.name))))
            if len(words) == 1:
                names.update(words)
            elif words:
                parts.append(words)
        for term, count in in_body.items():
            df.setdefault(term, count)  # a description's word keeps its own frequency
        return cls(n, df, names, parts)

    def named(self, segments: Iterable[tuple[list[str], bool, bool]]) -> set[str]:
        """The words of a prompt's file names that name a skill. ``segments``: the words of
        each folder and file name, each with whether it is the name of a file that is not
        source code, and whether its path is a document's or a test file's (not source code, or
        a test by the project's conventions, :func:`pokayokay.failures.pairing.is_test`).

        A segment names a skill when its words are a one-word skill name or the whole of a
        longer one (``mcp_builder/``; not ``report_builder.py``, where "builder" is part of
        another name). Part of a longer name names it only in the path of a document or a test
        (``ci.yml``, ``docs/plans/x.md``, ``tests/test_sync.py``): in source code, a folder or
        module named ``api``, ``domain`` or ``theme`` is a part of the program, which says where
        the work is, not that it is the skill's (decision 0145). A file that is not code also
        names a skill when its name holds a one-word skill name (``docker-compose.yml``). Code
        named after a format (``PdfIcon.tsx``, ``export_to_excel.py``) names no skill: its
        extension says what the file is."""
        out: set[str] = set()
        for words, not_code, in_document in segments:
            if len(words) == 1 and words[0] in self.names:
                out.add(words[0])
                continue
            for name in self.parts:
                if set(words) == set(name) or (in_document and all(w in name for w in words)):
                    out.update(words)
                    break
            else:
                if not_code:
                    out.update(w for w in words if w in self.names)
        return out

    def to_data(self) -> dict[str, Any]:
        return {"n": self.n, "df": self.df, "names": sorted(self.names), "parts": self.parts}

    @classmethod
    def from_data(cls, data: Any) -> Stats | None:
        if not isinstance(data, dict) or not isinstance(data.get("n"), int):
            return None
        df, names, parts = data.get("df"), data.get("names"), data.get("parts")
        if not isinstance(df, dict) or not isinstance(names, list) or not isinstance(parts, list):
            return None
        return cls(
            data["n"],
            {str(k): int(v) for k, v in df.items() if isinstance(v, int)},
            {str(t) for t in names},
            [[str(w) for w in name] for name in parts if isinstance(name, list)],
        )


# Extensions of source code: a code file's name is a module's, not a tool's own file.
CODE_EXTENSIONS = frozenset(
    """
    py pyi ts tsx js jsx mjs cjs go rb java kt kts rs swift c h cc cpp hpp cs php vue svelte
    scala ex exs erl clj dart lua m mm sh
    """.split()  # noqa: SIM905 - a word list reads better as text
)
# A file name in a prompt (``budget.xlsx``, ``src/app/models.py``, ``time.sleep``): its
# extension counts only for skills that name that extension as a format they handle.
_NAME_SEPARATORS = Lazy(r"[:_\-./]+")
# (?<![\w.])([\w./-]*\w)\.([A-Za-z][A-Za-z0-9]{0,6})(?![\w.]), read by a plain scan
# (:func:`pokayokay.relevance.scan_names.file_name_matches`, property-tested against it).
# An identifier of code (snake_case, lower camelCase, a dotted name, a call, PascalCase naming a
# kind of code): :func:`pokayokay.relevance.scan_names.identifier_spans`, a plain scan.


def may_hold_identifier(words: str) -> bool:
    """Whether ``words`` may hold an identifier (:func:`identifier_spans`): every one holds an
    underscore, a dot or bracket joined to a word, or an inner capital. Prose, most prompts,
    skips the scan."""
    return (
        "_" in words
        or joins_words(words, ".")
        or joins_words(words, "(")
        or has_inner_capital(words)
    )


class Catalog(list["Skill"]):
    """The skills of a project, with the catalog-wide statistics their scoring needs (kept in
    the skills cache with them, so a prompt does not recompute them)."""

    stats: Stats | None = None
    # Whether a full check ran out of its time before analysing every skill (decision 0205):
    # the skills it did not reach are missing, and the next full check analyses them.
    partial: bool = False

    def statistics(self) -> Stats:
        if self.stats is None:
            self.stats = Stats.of(self)
        return self.stats


class Query:
    """A prompt, analysed once for every skill."""

    __slots__ = (
        "bigrams", "exts", "file_exts", "in_code", "mass", "rare", "spec", "terms", "unique"
    )  # fmt: skip

    def __init__(self, prompt: str, stats: Stats, aside: str = "") -> None:
        text = prompt[:MAX_PROMPT_CHARS]
        exts: set[str] = set()
        in_paths: set[str] = set()
        segments: list[tuple[list[str], bool, bool]] = []  # folders and file names, as words
        file_names = file_name_matches(text)
        if file_names:  # imported only for a prompt naming a file
            from pokayokay.failures.pairing import is_test
        for file_name in file_names:
            ext = file_name.groups[1].lower()
            exts.update(tokenize(ext))
            *folders, stem = file_name.groups[0].split("/")
            code = ext in CODE_EXTENSIONS
            # a document's or a test's path may name a skill by part of its name (Stats.named)
            document = not code or is_test(f"{file_name.groups[0]}.{ext}")
            for i, segment in enumerate([*folders, stem]):
                named = tokenize(segment)
                if named:
                    segments.append((named, i == len(folders) and not code, document))
                    in_paths.update(named)
        words = replace_spans(text, [(f.start, f.end) for f in file_names], " , ")
        in_idents: set[str] = set()  # spreadsheet_id, export_csv(), client.messages.create
        if may_hold_identifier(words):
            spans = identifier_spans(words)
            for a, b in spans:
                in_idents.update(tokenize(words[a:b]))
            words = replace_spans(words, spans, " , ")
        if aside:  # code spans and pasted output (relevance.own_words): like identifiers
            in_idents.update(tokenize(aside[:MAX_PROMPT_CHARS]))
        content: set[str] = set()  # "write the update for my team: k8s migration 60% done"
        said = message_content(words)
        if said is not None:
            content = set(tokenize(words[said:]))
            words = words[:said]
        ordered = tokenize(words)
        only_in_paths = in_paths.difference(ordered)
        path_names = stats.named(segments) if only_in_paths else set()
        only_in_idents = in_idents.difference(ordered, in_paths) | content.difference(ordered)
        self.terms = set(ordered) | in_paths | in_idents | content
        variants: set[str] = set()
        for term in list(self.terms):  # redesign → design, retrain → train
            if term.startswith("re") and len(term) >= 7 and term[2:] in stats.df:
                variants.add(term[2:])
        variants.update(evoked_terms(words))  # "vulnerable" → security (see skills.terms)
        variants -= self.terms
        self.terms |= variants
        self.file_exts = exts  # every extension of the prompt's file names
        self.exts = exts - self.terms
        self.bigrams = bigrams(ordered)
        n = max(stats.n, 1)
        top = math.log(n + 1) + 1.0
        generic = generic_terms()
        # words only in identifiers, in file names that name no skill, in a message's content,
        # and generic words: on their own, no evidence
        self.in_code = only_in_idents | (only_in_paths - path_names) | (self.terms & generic)
        spec: dict[str, float] = {}
        unique: set[str] = set()
        rares: set[str] = set()  # rare over the catalog (pokayokay.relevance.evidence.rare)
        mass = 0.0
        for term in self.terms | self.exts:
            df = stats.df.get(term, 0)
            idf = math.log((n + 1) / (df + 1)) + 1.0
            value = (idf / top) * (GENERIC_FACTOR if term in generic else 1.0)
            if term in only_in_paths and term not in path_names:
                value *= PATH_FACTOR  # a file's name says where, less what the task is
            elif term in only_in_idents:  # so does an identifier, even one naming a skill
                value *= PATH_FACTOR
            spec[term] = value
            if term in self.terms and term not in variants:
                mass += value if df else value * UNKNOWN_MASS
            if df == 1 and term not in generic:
                unique.add(term)
            if rare(n, df):
                rares.add(term)
        self.spec = spec
        self.mass = mass
        self.unique = unique
        self.rare = rares


def names_format(query: Query, prof: Profile) -> bool:
    """Whether the prompt names a file of a format the skill lists (``figures.xlsx``)."""
    fields = prof.fields
    return any(fields.get(ext, 0.0) >= EXT_WEIGHT for ext in query.exts)


def evidence(query: Query, prof: Profile) -> tuple[float, set[str]]:
    """The evidence that ``prof`` fits ``query`` and the prompt terms that gave it."""
    fields = prof.fields
    named_format = names_format(query, prof)
    if fields.keys().isdisjoint(query.terms) and not named_format:
        # Nothing in common: phrases, bigrams and anchors are made of the skill's own terms,
        # so none of them can match either.
        return 0.0, set()
    shared = {t for t in query.terms if t in fields}
    if shared <= query.in_code and not named_format:  # names in code say where, not what
        return 0.0, set()
    # the rule recall follows too (pokayokay.relevance.evidence): words only in paths, file names
    # and identifiers are no plain evidence, unless the name is a skill's own (``Dockerfile``,
    # ``docker-compose.yml``: see Stats.named)
    plain = shared - query.in_code
    if not named_format and not speaks(len(plain), any(t in query.rare for t in plain)):
        return 0.0, set()  # one common word, or words only in names: no evidence
    total = sum(query.spec[t] * fields[t] for t in shared)
    for term in shared & query.unique & prof.anchors:  # a name only this skill holds
        total += ANCHOR_BONUS * query.spec[term]
    for ext in query.exts:
        if fields.get(ext, 0.0) >= EXT_WEIGHT:
            shared.add(ext)
            total += query.spec[ext] * EXT_WEIGHT
    for phrase in prof.phrases:
        if all(t in query.terms for t in phrase):
            total += PHRASE_BONUS
    for pair in query.bigrams & prof.bigrams:
        a, b = pair.split(" ", 1)
        total += BIGRAM_BONUS * (query.spec[a] + query.spec[b]) / 2
    if prof.negative and not named_format and all(fields[t] < NAME_WEIGHT for t in shared):
        # a negative clause says what the skill is not for; a prompt naming the skill or its
        # format ("the Markdown files as a Word document") is for it all the same
        against = sum(query.spec[t] for t in query.terms if t in prof.negative)
        if against >= 0.5:
            total *= NEGATIVE_FACTOR
    return total, shared


def score(query: Query, prof: Profile) -> float:
    total, _shared = evidence(query, prof)
    return total / math.pow(1.0 + query.mass, MASS_EXPONENT)


def scores(prompt: str, profiles: Mapping[str, Profile], stats: Stats) -> dict[str, float]:
    """Every skill's score for ``prompt`` (those with no shared term left out)."""
    query = Query(prompt, stats)
    out: dict[str, float] = {}
    for name, prof in profiles.items():
        value = score(query, prof)
        if value > 0:
            out[name] = value
    return out
