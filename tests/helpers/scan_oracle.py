"""The regular expressions the plain scans of :mod:`pokayokay.relevance.scan` and
:mod:`pokayokay.relevance.scan_names` replace (the oracles of their properties), the texts
they are tried on (hypothesis strategies, unicode included, and the real prompts, skill
descriptions, learnings and tool outputs in tests/data), for tests/relevance/test_scan*.py."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from hypothesis import strategies as st

DATA = Path(__file__).resolve().parent.parent / "data"

WORD_CHUNK = re.compile(r"[^\W_]+")
CAMEL_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
LOWER_WORD = re.compile(r"[a-z][a-z0-9-]*")
CONCEPT_WORD = re.compile(r"[a-z0-9][a-z0-9_.+@:-]*[a-z0-9+]|[a-z0-9]")
NAME_OK = re.compile(r"[A-Za-z0-9][A-Za-z0-9:_.-]{0,80}")
SHOWN_PATH = re.compile(r"[\w./@+-]{1,160}")
URLISH = re.compile(r"^(?:https?|ftp|www)\b|://")
HTTP_METHOD = re.compile(r"\b(?:GET|POST|PUT|PATCH|DELETE)\b")
# relevance.own_words' inline code span, before scan.code_spans
CODE_SPAN = re.compile(r"(``?)(?!`)([^`\s]+?)\1(?!`)")
PROMPT_PATH = re.compile(
    r"(?<![\w/.-])(?:\./)?((?:[\w.-]+/)+[\w.-]*|[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5})"
    r"(?![\w/-])"
)
FILE_NAME = re.compile(r"(?<![\w.])([\w./-]*\w)\.([A-Za-z][A-Za-z0-9]{0,6})(?![\w.])")
NAME = re.compile(
    r"(?<![\w/.-])(?:"
    r"[\w.@~-]*/[\w./@~-]*"
    r"|[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}(?![\w(])"
    r"|[A-Za-z0-9]+_[\w]*"
    r"|[a-z][a-z0-9]*[A-Z]\w*"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?"
    r"|[A-Za-z_]\w*\(\)?"
    r")"
)
IDENTIFIER = re.compile(
    r"(?<![\w.])(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]"
    r"|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"
    r"|[A-Za-z_]\w*(?=\()"
    r"|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?=\s+(?:[A-Z]\w*\s+)?(?:component|class|hook|model"
    r"|view|screen|modal|widget|module|function|method|type|interface|enum|struct|prop)s?\b)"
    r"|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*(?:Icon|Button|Badge|Card|Page|View|ViewSet|Modal|Dialog"
    r"|List|Table|Form|Field|Input|Panel|Menu|Tab|Row|Cell|Header|Footer|Link|Preview|Viewer"
    r"|Renderer|Parser|Loader|Uploader|Exporter|Importer|Generator|Builder|Service|Client"
    r"|Handler|Controller|Provider|Manager|Factory|Helper|Util|Utils|Store|Slice|Hook|Component"
    r"|Screen|Widget|Section|Item|Spec|Test|Tests|Schema|Props|State|Context|Route|Router"
    r"|Config|Settings|Error|Exception|Serializer|Mixin|Job|Task|Worker|Resolver|Repository"
    r"|Adapter|Wrapper|Container|Layout|Template|Editor|Picker|Selector|Toggle|Banner|Tooltip"
    r"|Toolbar|Sidebar|Navbar|Chart|Grid|Dashboard)s?)"
    r"(?![\w.])"
)

# The characters the patterns turn on, with letters, digits and unicode (letters, digits and
# numerics outside ASCII, spaces, combining marks, a capital whose lower case is longer).
_SPECIAL = [*"aZz09_./-@~:+()# \t\nhtpsfw`", "``", "GET", "PUT", "PATCH", "http", "://", "www"]
_WORDS = ["py", "Ab1", "x9", "abcde", "abcdef", "abcdefg", "Abcdefgh", "src/", "a.b", "()", "./"]
_UNICODE = list("éÉßİǅ٣²½Ⅻµﬁ\u00a0\u2028\u0301\u3000日本")
PIECES = st.one_of(
    st.sampled_from(_SPECIAL + _UNICODE),
    st.sampled_from(_WORDS),
    st.sampled_from(list("abcxyzABCXYZ0123456789")),
    st.characters(),
)
# Names, paths and dotted words: segments of every length an extension rule counts, joined by
# the separators the patterns read.
_SEGMENTS = ["a", "py", "abcdef", "abcdefg", "Abcdefgh", "A_", "HTTPs", "é", "aB", "GET"]
_SEPARATORS = [".", "/", "-", "(", ")", "()", " ", "@", ":", "./"]
NAMEISH = st.lists(
    st.tuples(st.sampled_from(_SEGMENTS), st.sampled_from(_SEPARATORS)).map("".join),
    max_size=12,
).map("".join)
# Code names: PascalCase with and without a kind or an ending, snake and camel case, calls, the
# kinds and endings themselves, the spaces between (unicode among them).
_CODE = [
    "CartTotals", "Cart", "PdfIcon", "PdfIcons", "CsvExportButton", "Icon", "ViewSet", "Utils",
    "Ab", "AB", "A1b", "aB", "a_b", "_a", "a_", "Xy", "component", "components", "class",
    "classy", "Modal", "modal", "hook", "s", " ", "  ", "\t", "\u00a0", "(", ".", "_", "é", "1",
]
CODEISH = st.lists(st.sampled_from(_CODE), max_size=10).map("".join)
TEXTS = st.one_of(st.lists(PIECES, max_size=40).map("".join), NAMEISH, CODEISH)


def _strings(value: object, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out)


@cache
def real_texts() -> tuple[str, ...]:
    """Every string of the prompt, skill and learning data sets (never relevance_test3, 4 or 5) and
    the real tool outputs."""
    out: list[str] = []
    for folder in ("recall_eval", "skills_eval", "suggest", "relevance_test2", "recall"):
        for path in sorted((DATA / folder).rglob("*.json")):
            _strings(json.loads(path.read_text("utf-8")), out)
    for path in sorted((DATA / "outputs").glob("*.txt")):
        out.extend(path.read_text("utf-8").splitlines())
    return tuple(dict.fromkeys(out))
