"""Failure signatures: the same mistake gives the same text, run after run.

``normalise(error)`` keeps the few lines of an error that say what went wrong and rewrites
everything that changes from one run to the next:

* the ``Exit code N`` header of a Bash failure, ANSI colours, carriage-return progress output;
* absolute paths under the project (``project_roots``) become project-relative; home folders
  become ``~/``; anything under ``site-packages``/``dist-packages`` becomes ``<site-packages>/``;
* temporary paths (``/tmp/…``, ``/var/folders/…``, ``pytest-of-*/pytest-N/…``, Windows
  ``…\\AppData\\Local\\Temp\\…`` and any ``temp_dirs`` given) become ``<tmp>``;
* UUIDs, ISO timestamps, dates and clock times, ``0x`` addresses, long hex ids (git hashes),
  durations (``in 0.12s``, ``350 ms``) and finally every free-standing number (line and column
  numbers, counts, ports, versions) become placeholders. Digits glued to letters stay:
  ``TS2322``, ``E501``, ``python3``, ``test_2`` keep theirs.

Which lines: each line gets a tier. Tier 0 names the failure (pytest ``FAILED``/``ERROR``
summary lines, Python exception lines ``ValueError: …``, compiler/type-checker/linter
diagnostics, npm ``ERR!``, git ``fatal:``/``! [rejected]``/``CONFLICT``, Go ``--- FAIL:``, Jest
``FAIL``/``●``); tier 1 adds context (pytest ``E   …`` lines, ``path:N: Error`` locations, shell
``command not found``/``No such file``/``Permission denied``, ``make: ***``); tier 2 is any other
line mentioning an error or a failure. Only the best tier present is used, in output order; with
no tiered line at all the first lines that are not noise (separators, pytest headers, traceback
frames, progress lines) are used. At most ``MAX_LINES`` distinct lines are kept, joined with
``" | "``; the result is a single line of at most ``MAX_SIGNATURE`` characters.

Claude Code's own refusals (``<tool_use_error>…``, ``PreToolUse:<Tool> hook error: [cmd]: …``,
``Permission to use <Tool> … has been denied``, user rejections) keep only their stable part.

``command_key(command)`` is the form commands are compared in (fix episodes): whitespace
collapsed, nothing else, so ``pytest`` and ``pytest | tail`` stay different commands.

Regexes are compiled on first use: ``command_key`` runs on every successful Bash call and must
not pay for them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pokayokay.infra.lazyre import Lazy, built_once

MAX_LINES = 3
MAX_LINE = 200
MAX_SIGNATURE = 300
# Lines longer than this (minified bundles, base64) are cut before any regex sees them.
MAX_SCANNED_LINE = 1000
SEPARATOR = " | "


def command_key(command: str) -> str:
    """The normalised form of a shell command: whitespace runs collapsed to one space."""
    return " ".join(command.split())


class _Patterns:
    """Every regex of this module, compiled once per process on first use."""

    def __init__(self) -> None:
        c = Lazy
        self.ansi = c(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Z0-9]")
        self.exit_header = c(r"\A\s*Exit code -?\d+[ \t]*(?:\n|\Z)")
        self.tool_use_error = c(r"\A\s*<tool_use_error>(.*?)(?:</tool_use_error>|\Z)", re.S)
        self.hook_error = c(r"\A(\w+:\S+ hook error): \[.*?\]: ")
        self.permission = c(r"\A(Permission to use \S+?)(?: with .*?)?( has been denied)\b.*")
        self.user_rejected = c(r"\A(The user doesn't want to [^.]*\.).*")
        self.file_url = c(r"file://(?=/)")
        self.noise = c(
            r"""\A(?:
                [=_\-*~#.+<>|\s]*\Z                                 # separators, rules
              | [=_-]{3,}.*[=_-]{3,}\Z                              # pytest banners
              | Traceback\ \(most\ recent\ call\ last\):
              | During\ handling\ of\ the\ above\ exception
              | The\ above\ exception\ was\ the\ direct\ cause
              | File\ ".*",\ line\ \d+
              | (?:platform|rootdir|cachedir|configfile|plugins|testpaths)[\ :]
              | collect(?:ed|ing)\ \d*
              | \S+\ [.FEsxX]+\s*\[\s*\d+%\]\Z                      # pytest progress
              | [\^~\s]+\Z                                          # caret markers
              | npm\ (?:ERR!|error)\s*(?:\Z|A\ complete\ log|Log\ files\ were|/\S*\Z)
              | \d+\ (?:passed|failed|skipped|error)                # bare counts
              | make(?:\[\d+\])?:\ (?:Entering|Leaving)\ directory\b   # make -C progress
            )""",
            re.X,
        )
        # Summary lines: they count mistakes, they never name one (never a signature).
        self.summary = c(
            r"""(?ix)\A(?:
                [=!\s]*(?:Interrupted:\ )?\d+\ (?:failed|passed|errors?|warnings?|problems?)\b.*
              | Found\ \d+\ errors?\b.*                                # ruff, mypy
              | \[\*\]\ \d+\ fixable\b.*
              | No\ fixes\ available.*
              | [✖×x]\ \d+\ problems?\b.*                            # eslint
              | error:\ could\ not\ compile\b.*                        # cargo
              | (?:Tests?|Test\ Suites|Test\ Files):\s+\d+\ failed.*       # jest, vitest
              | FAIL(?:\s+\S+\s+[\d.]+s)?\s*\Z                           # go test package line
              | exit\ status\ \d+\Z
              | test\ result:\ FAILED.*
              | .*\bwould\ be\ reformatted\b.*                         # black
              | .*Code\ style\ issues\ found\b.*                        # prettier
              | npm\ (?:ERR!|error)\ (?:Test\ failed|Lifecycle\ script|command\ failed).*
              | .*\bELIFECYCLE\b.*|.*ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL.*
              | error\ Command\ failed\ with\ exit\ code\ \d+.*         # yarn
              | Oh\ no!.*
            )""",
        )
        self.tiers = (
            c(
                r"""\A(?:
                    (?:FAILED|ERROR)\ \S                               # pytest summary
                  | (?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b(?::|\Z)
                  | error(?:\[[A-Z]?\d+\])?:\                           # rustc, git, cc
                  | \S+:\d+:\d+:(?:\s|\Z)                            # gcc, clang, ruff, go
                  | \S+:\d+:\d+\ -\ error                              # pyright
                  | \S+:\d+:\ (?:error|warning):                       # mypy
                  | \S+\(\d+,\d+\):\ error                            # tsc
                  | .*\berror\ TS\d+
                  | \d+:\d+\s+error\s                                 # eslint stylish
                  | .*:\ (?:fatal\ )?error:[ ]
                  | npm\ (?:ERR!|error)[ ]
                  | fatal:[ ]
                  | !\ \[(?:rejected|remote\ rejected)\]
                  | CONFLICT\ \(
                  | ---\ FAIL:[ ]
                  | FAIL\s+\S
                  | ●[ ]
                  | Error:[ ]
                  | .*\bpanicked\ at\b
                )""",
                re.X,
            ),
            c(
                r"""\A(?:
                    E\s{2,}\S                                         # pytest detail
                  | \S+:\d+:\ \S*(?:Error|Exception|Failed)\b
                  | .*\b(?:command\ not\ found|No\ such\ file\ or\ directory|Permission\ denied)\b
                  | (?:make(?:\[\d+\])?|\S+:\d+):\ \*\*\*              # make (Makefile:N: ***)
                  | test\ result:\ FAILED
                  | .*\bCannot\ connect\ to\ the\ \S+\ daemon\b        # docker
                  | nothing\ (?:added\ )?to\ commit\b                    # git commit
                )""",
                re.X,
            ),
            c(r"\b(?:error|errors|failed|failure|fail|fatal|exception)\b", re.I),
        )
        # Normalisation, applied in this order to each kept line.
        # from the start of a word only: a match from inside one also matches from its start,
        # and every start scanning the rest of its word was quadratic
        self.site_packages = c(r"(?<![^\s'\"(])[^\s'\"(]*/(?:site|dist)-packages/")
        self.home = c(r"(?<![\w/])(?:/home/[^/\s'\"]+|/Users/[^/\s'\"]+|/root)(?=/)")
        self.temp = c(
            r"""(?:
                (?:/private)?/var/folders/[^\s'\":,;)\]]*
              | (?<![\w.~])/(?:tmp|dev/shm)/[^\s'\":,;)\]]*
              | [A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s'\":,;)\]]*
              | [^\s'\":,;(\[]*pytest-of-[^/\s]+/pytest-\d+[^\s'\":,;)\]]*
            )""",
            re.X,
        )
        self.uuid = c(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
        )
        # ISO 8601 and the file-name-safe forms tools write (2026-11-22T04_14_19_345Z).
        self.timestamp = c(
            r"\b\d{4}-\d{2}-\d{2}(?:[T _]\d{1,2}[:_.-]\d{2}(?:[:_.-]\d{2}(?:[.,_]\d+)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2})?)?\b"
        )
        self.clock = c(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b")
        self.address = c(r"\b0x[0-9a-fA-F]+\b")
        self.hex = c(
            r"\b(?:(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,}"
            r"|(?=[0-9A-F]*[A-F])(?=[0-9A-F]*\d)[0-9A-F]{8,})\b"
        )
        self.duration = c(
            r"\b\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h)\b"
            r"|\b\d+(?:\.\d+)?\s?(?:secs?|seconds?|mins?|minutes?|hrs?|hours?)\b"
        )
        self.number = c(r"\b\d+(?:\.\d+)*\b")
        self.space = c(r"\s+")


_patterns = built_once(_Patterns)


def _special(text: str, p: _Patterns) -> str | None:
    """Claude Code's own refusal texts reduced to their stable part, else ``None``."""
    match = p.tool_use_error.match(text) if "<tool_use_error>" in text else None
    if match:
        inner = match.group(1).strip()
        return inner.split("\n", 1)[0].strip()
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("Error: "):
        first = first[len("Error: ") :]
    for literal, pattern, replacement in (
        (" hook error: [", p.hook_error, r"\1: [<command>]: "),
        ("Permission to use ", p.permission, r"\1\2"),
        ("The user doesn't want to ", p.user_rejected, r"\1"),
    ):
        if literal in first and pattern.match(first):
            return pattern.sub(replacement, first, count=1)
    return None


def relativise(text: str, roots: Sequence[str]) -> str:
    """Paths under any of ``roots`` made relative; the root itself becomes ``.``."""
    cleaned = {r.rstrip("/") for r in roots if r and r.strip("/")}
    for root in sorted(cleaned, key=len, reverse=True):
        if root in text:
            pattern = re.compile(re.escape(root) + r"(?:/|(?![\w.-]))")
            text = pattern.sub(lambda m: "" if m.group().endswith("/") else ".", text)
    return text


def _clean_lines(error: str, roots: Sequence[str], p: _Patterns) -> list[str]:
    # Each pattern runs only on a text holding its literal: a compile costs more than the scan.
    text = p.ansi.sub("", error) if "\x1b" in error else error
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "Exit code" in text:
        text = p.exit_header.sub("", text, count=1)
    special = _special(text, p)
    if special is not None:
        text = special
    if roots:
        text = relativise(p.file_url.sub("", text) if "file://" in text else text, roots)
    return [line[:MAX_SCANNED_LINE].strip() for line in text.split("\n")]


# Strings one of which every match of a normalising pattern holds: what
# ``pokayokay.infra.literals.required_literals`` reads from it (tests hold them equal), and for
# the verbose ``temp`` one per alternative (a test holds it to the pattern).
NORMALISE_NEEDS: dict[str, tuple[str, ...]] = {
    "site_packages": ("-packages/",),
    "temp": ("/var/folders/", "/tmp/", "/dev/shm/", "\\AppData\\Local\\Temp\\", "pytest-of-"),
    "home": ("/home/", "/Users/", "/root"),
    "uuid": ("-",),
    "timestamp": ("-",),
    "clock": (":",),
    "address": ("0x",),
}
_GUARDED_REWRITES = (
    ("site_packages", "<site-packages>/"), ("temp", "<tmp>"), ("home", "~"), ("uuid", "<uuid>"),
    ("timestamp", "<time>"), ("clock", "<time>"), ("address", "0x<hex>"),
)  # fmt: skip


def _normalise_line(line: str, temp_dirs: Sequence[str], p: _Patterns) -> str:
    for temp in temp_dirs:
        temp = temp.rstrip("/")
        if temp:
            line = line.replace(temp + "/", "<tmp>/").replace(temp, "<tmp>")
    # Each rewrite runs (and its pattern is compiled) only on a line holding one of the strings
    # every match of it holds (NORMALISE_NEEDS; decision 0170).
    for name, replacement in _GUARDED_REWRITES:
        if any(need in line for need in NORMALISE_NEEDS[name]):
            line = getattr(p, name).sub(replacement, line)
    line = p.hex.sub("<hex>", line)
    line = p.duration.sub("<dur>", line)
    line = p.number.sub("<n>", line)
    line = p.space.sub(" ", line).strip()
    return line[:MAX_LINE].rstrip()


def _skipped(line: str, p: _Patterns) -> bool:
    return p.noise.match(line) is not None or p.summary.match(line) is not None


def _pick(
    error: str, roots: Sequence[str], temp_dirs: Sequence[str], limit: int
) -> list[tuple[str, str]]:
    """(raw line, normalised line) pairs of the lines that make the signature."""
    p = _patterns()
    lines = [line for line in _clean_lines(error, roots, p) if line]
    candidates: list[str] = []
    for tier in p.tiers:
        candidates = [line for line in lines if tier.search(line) and not _skipped(line, p)]
        if candidates:
            break
    if not candidates:
        candidates = [line for line in lines if not _skipped(line, p)]
    picked: list[tuple[str, str]] = []
    seen: set[str] = set()
    for line in candidates:
        norm = _normalise_line(line, temp_dirs, p)
        if norm and norm not in seen:
            seen.add(norm)
            picked.append((line.strip(), norm))  # the raw line exact, for excerpts
            if len(picked) >= limit:
                break
    return picked


def normalise(
    error: str,
    *,
    project_roots: Sequence[str] = (),
    temp_dirs: Sequence[str] = (),
) -> str:
    """The signature of ``error``: its meaningful lines with run-specific details normalised.

    ``project_roots``: absolute spellings of the project root (e.g. the real path and the path
    Claude Code reported); paths under them become relative. ``temp_dirs``: extra temporary
    folders (e.g. ``$TMPDIR``) to rewrite as ``<tmp>``. Returns ``""`` for an error with nothing
    meaningful in it.
    """
    picked = _pick(error, project_roots, temp_dirs, MAX_LINES)
    return SEPARATOR.join(norm for _, norm in picked)[:MAX_SIGNATURE].rstrip()


def key_lines(
    error: str, *, project_roots: Sequence[str] = (), limit: int = MAX_LINES
) -> list[str]:
    """The raw lines ``normalise`` keeps (project paths made relative, otherwise as written).

    For a human-readable excerpt: same lines as the signature, real values left in.
    """
    return [raw for raw, _ in _pick(error, project_roots, (), limit)]


def whole_lines(lines: Sequence[str], text: str) -> list[str]:
    """``lines`` (key lines of ``text``), a summary line a test runner cut short replaced by the
    line of ``text`` that holds its message whole.

    pytest's short summary fits each ``FAILED test_id - message`` line to the terminal width,
    ending a longer message in ``...``; the failure's report above it prints the message whole,
    on its ``E`` line (``E       AssertionError: assert 0.30000000000000004 == Decimal('0.30')``).
    A line is only ever swapped for another line of the same output, as the tool wrote it.
    """
    out: list[str] = []
    for line in lines:
        whole = _whole(line, text)
        if whole is None:
            out.append(line)
            continue
        for said in [whole, *assertion_values(whole, text)]:
            if said not in out and said not in lines:
                out.append(said)
    return out


def assertion_values(message: str, text: str) -> list[str]:
    """The sides of the comparison a runner printed within a few lines after ``message`` (a
    stripped line of ``text``), as written (:func:`pokayokay.failures.said.values_after`)."""
    from pokayokay.failures.said import values_after

    lines = [raw.strip() for raw in text.splitlines()]
    return values_after(lines, lines.index(message)) if message in lines else []


def _whole(line: str, text: str) -> str | None:
    """The stripped line of ``text`` holding whole the message ``line`` cut short or left out,
    or None."""
    stripped = line.strip()
    if "panicked at " in stripped or stripped.endswith(("... FAILED", " --- FAILED")):
        return _panic_message(stripped, text)
    if stripped.startswith("--- FAIL: "):
        return _go_message(stripped, text)
    if stripped.startswith("● "):
        return _jest_message(stripped, text)
    head, sep, message = stripped.partition(" - ")
    if not sep or not message.endswith("...") or not head.startswith(("FAILED ", "ERROR ")):
        return None
    stem = message[:-3].rstrip()
    if not stem:
        return None
    for raw in text.splitlines():
        candidate = raw.strip()
        said = candidate[1:].lstrip() if candidate[:2] in ("E ", "E\t") else candidate
        if said.startswith(stem) and len(said) > len(stem) and said != message:
            return candidate
    return None


def _panic_message(line: str, text: str) -> str | None:
    """Rust's libtest: a failing test's result line (``test cart::total ... FAILED``, or ``-q``'s
    ``cart::total --- FAILED``) or its panic line (``thread 'cart::total' (81) panicked at
    src/lib.rs:9:5:``) gives way to the panic's message, printed on the line after the panic
    line (Rust 1.73 on); an older panic line holds it (``panicked at 'message', src/lib.rs``)."""
    lines = [raw.strip() for raw in text.splitlines()]
    if "panicked at " in line:
        at = lines.index(line) if line in lines else -1
    else:
        name = line.removeprefix("test ").removesuffix(" ... FAILED").removesuffix(" --- FAILED")
        thread = f"thread '{name}'"
        at = next(
            (i for i, raw in enumerate(lines) if raw.startswith(thread) and "panicked at " in raw),
            -1,
        )
    if at < 0:
        return None
    if not lines[at].endswith(":"):
        return lines[at] if lines[at] != line else None  # the message is on the panic line
    return _message_after(lines, at, "note: ")


def _jest_message(line: str, text: str) -> str | None:
    """jest's ``● describe › test`` header gives way to the first line of its report (the
    matcher: ``expect(received).toBe(expected) // Object.is equality``, or the error thrown)."""
    lines = [raw.strip() for raw in text.splitlines()]
    if line not in lines:
        return None
    at = lines.index(line)
    return _message_after(lines, at, "●")


def _message_after(lines: list[str], at: int, unless: str) -> str | None:
    """The first non-empty one of the three lines after ``lines[at]`` (a header whose report
    follows it), or None when there is none or it starts with ``unless`` (a note, or the next
    header: not the message)."""
    said = next((raw for raw in lines[at + 1 : at + 4] if raw), "")
    return said if said and not said.startswith(unless) else None


def _go_message(line: str, text: str) -> str | None:
    """``go test``: a ``--- FAIL: TestName (0.00s)`` line gives way to the first line the test
    logged (``cart_test.go:7: Add(2, 2) = 5; want 4``)."""
    from pokayokay.failures.mistakes import go_block

    name = line.removeprefix("--- FAIL: ").split(" ", 1)[0]
    lines = text.splitlines()
    at = next((i for i, raw in enumerate(lines) if raw.strip() == line), -1)
    block = go_block(lines, at, name) if at >= 0 else []
    return next((raw.strip() for raw in block if raw.strip()), None)


def short_id(signature: str) -> str:
    """A stable 12-hex-digit id for a signature (for file names and bookkeeping comments)."""
    import hashlib

    return hashlib.sha256(signature.encode("utf-8", "surrogateescape")).hexdigest()[:12]
