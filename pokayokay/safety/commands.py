"""Commands and code quoted as evidence: redacted, de-linked, and never a dangerous command (pure).

A command in a rule is evidence of what failed (or of the variant that worked), never something
pokayokay tells Claude to run on its own authority. This module decides how one may be shown:

* :func:`danger` names what makes a command dangerous — a download piped into a shell, a
  recursive forced delete, a force push, ``chmod 777``, ``sudo``, a raw disk write, a fork bomb,
  ``git reset --hard``/``git clean -f``, an ``eval`` of fetched text — in pokayokay's own words;
  such a command is described with that text and never quoted.
* :func:`strip_links` removes URLs a plain link filter misses: scheme-less hosts with a path
  (``evil.example/x.sh``), defanged and obfuscated schemes (``hxxp://``, ``h t t p s : //``,
  ``evil[.]example``).
* :func:`redact_secrets` is the one seam for secret redaction on this path: every command and
  code excerpt passes through it before anything else (see its docstring).
* :func:`shown_command` / :func:`shown_code_line` combine them with
  :mod:`pokayokay.safety.sanitize`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["danger", "redact_secrets", "shown_code_line", "shown_command", "strip_links"]

MAX_COMMAND = 120
MAX_CODE_LINE = 100

_DANGERS: tuple[tuple[str, str], ...] = (
    (
        r"\b(?:curl|wget|fetch|iwr|invoke-webrequest)\b[^|;&]*\|\s*(?:sudo\s+)?"
        r"(?:ba|z|da|k|fi)?sh\b|\b(?:curl|wget)\b[^|;&]*\|\s*(?:sudo\s+)?(?:python\d?|perl|ruby|node)\b",
        "a command that pipes a download into a shell",
    ),
    (r"(?:ba|z)?sh\s+-c\s+[\"']?\$\(\s*(?:curl|wget)\b", "a command that runs a downloaded script"),
    (r"\beval\s+[\"']?\$\(\s*(?:curl|wget)\b", "a command that evaluates downloaded text"),
    (
        r"\brm\s+(?:-\w*[rR]\w*f|-\w*f\w*[rR]|--recursive\s+--force|--force\s+--recursive|-[rR]\s+-f|-f\s+-[rR])",
        "a recursive forced delete (`rm` with recursive and force flags)",
    ),
    (r"\bgit\s+push\b[^;&|]*(?:\s--force(?:-with-lease)?(?![\w-])|\s-f\b|\s\+\S)", "a force push"),
    (r"\bgit\s+reset\s+--hard\b", "a hard reset that discards local changes"),
    (r"\bgit\s+clean\s+-\w*f", "a `git clean` that deletes untracked files"),
    (r"\bchmod\s+(?:-R\s+)?0?777\b|\bchmod\s+(?:-R\s+)?a\+rwx\b", "a world-writable `chmod`"),
    (r"(?:^|[;&|]\s*|\s)sudo\b", "a command run with `sudo`"),
    (r"\bdd\s+[^;&|]*\bof=/dev/", "a raw write to a device"),
    (r"\bmkfs(?:\.\w+)?\b", "a command that formats a file system"),
    (r":\(\)\s*\{\s*:\|:&\s*\};:", "a fork bomb"),
    (r">\s*/dev/sd[a-z]\b", "a raw write to a device"),
)
_danger_patterns: list[tuple[re.Pattern[str], str]] | None = None


def danger(command: str) -> str | None:
    """What makes ``command`` dangerous, in pokayokay's words; ``None`` when nothing does."""
    global _danger_patterns
    if _danger_patterns is None:
        _danger_patterns = [(re.compile(p, re.IGNORECASE), d) for p, d in _DANGERS]
    flat = " ".join(command.split())
    for pattern, description in _danger_patterns:
        if pattern.search(flat):
            return description
    return None


# File extensions that look like a top-level domain in "name.ext/..." but are not one.
_NOT_TLD = frozenset(
    [
        "py",
        "pyi",
        "js",
        "mjs",
        "cjs",
        "ts",
        "tsx",
        "jsx",
        "json",
        "md",
        "txt",
        "rs",
        "go",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "java",
        "kt",
        "rb",
        "php",
        "sh",
        "yml",
        "yaml",
        "toml",
        "cfg",
        "ini",
        "lock",
        "d",
        "o",
        "a",
        "so",
        "dll",
        "exe",
        "log",
        "csv",
        "xml",
        "html",
        "css",
        "scss",
        "vue",
        "svelte",
        "egg",
        "whl",
        "dist",
        "git",
        "venv",
        "env",
        "local",
        "config",
        "cache",
        "tmp",
        "bak",
        "orig",
        "rej",
    ]
)
_SCHEMED = re.compile(
    r"(?:h\s*[xt]\s*[xt]\s*p\s*s?|f\s*t\s*p\s*s?|s\s*f\s*t\s*p|w\s*s\s*s?)\s*(?::|\[:\])\s*/\s*/\S*",
    re.IGNORECASE,
)
_DEFANGED = re.compile(r"\S*\w\s*[\[(]\s*(?:\.|dot)\s*[\])]\s*\w\S*", re.IGNORECASE)
_HOST_PATH = re.compile(
    r"(?<![\w./@-])(?:[\w-]+@)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24}))"
    r"(?::\d+)?(?:/\S*|(?=[\s'\"]|$))",
    re.IGNORECASE,
)
_KNOWN_TLD = frozenset(
    [
        "com",
        "net",
        "org",
        "io",
        "dev",
        "app",
        "sh",
        "ai",
        "co",
        "xyz",
        "info",
        "biz",
        "ru",
        "cn",
        "tk",
        "top",
        "site",
        "online",
        "example",
        "test",
        "invalid",
        "localhost",
        "me",
        "us",
        "uk",
        "de",
        "fr",
        "zip",
        "mov",
    ]
)


def strip_links(text: str) -> str:
    """``text`` without URLs, including scheme-less, defanged and spaced ones."""
    text = _SCHEMED.sub(" ", text)
    text = _DEFANGED.sub(" ", text)

    def host(match: re.Match[str]) -> str:
        whole, tld = match.group(0), match.group(2).lower()
        has_path = "/" in whole
        if tld in _NOT_TLD:
            return whole
        if has_path or tld in _KNOWN_TLD:
            return " "
        return whole

    return _HOST_PATH.sub(host, text)


def redact_secrets(text: str) -> str:
    """``text`` with secrets replaced by ``[redacted:<kind>]``: the single seam for secret
    redaction on the evidence path, :func:`pokayokay.safety.redact.redact` itself, so a command
    is shown, stored (capture runs the same function) and looked up (the lesson lookup's keys)
    redacted alike."""
    from pokayokay.safety.redact import redact

    return redact(text)


def shown_command(command: str, limit: int = MAX_COMMAND) -> str | None:
    """``command`` as a rule may quote it (redacted, de-linked, sanitised, one line), or
    ``None`` when it is dangerous or nothing readable is left."""
    from pokayokay.safety import sanitize

    if danger(command):
        return None
    cleaned = sanitize.excerpt(strip_links(redact_secrets(command)), limit)
    return cleaned if any(ch.isalnum() for ch in cleaned) else None


def shown_commands(commands: Iterable[str]) -> list[str]:
    """The commands that may be shown, each as :func:`shown_command` shows it."""
    return [shown for command in commands if (shown := shown_command(command)) is not None]


def shown_code_line(line: str, limit: int = MAX_CODE_LINE) -> str:
    """One line of an edit excerpt, redacted, de-linked and sanitised (may be empty)."""
    from pokayokay.safety import sanitize

    return sanitize.excerpt(strip_links(redact_secrets(line)), limit)
