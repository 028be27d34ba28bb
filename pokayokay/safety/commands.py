"""Commands and code quoted as evidence: exact, redacted, and never a dangerous command (pure).

A command in a rule is evidence of what failed (or of the variant that worked), never something
pokayokay tells Claude to run on its own authority. This module decides how one may be shown:

* :func:`danger` names what makes a command dangerous — a download piped into a shell, a
  recursive forced delete, a force push, ``chmod 777``, ``sudo``, a raw disk write, a fork bomb,
  ``git reset --hard``/``git clean -f``, an ``eval`` of fetched text — in pokayokay's own words;
  setting a loader or path variable (``LD_PRELOAD``, ``LD_LIBRARY_PATH``, ``DYLD_*``,
  ``PYTHONPATH``, ``NODE_OPTIONS``, ``PATH``) to a location outside the project (an absolute
  path, ``~``, ``..``, another variable) —, in pokayokay's own words; such a command is described
  with that text and never quoted, so it never becomes a lesson, a hint or a guard's reason.
* :func:`strip_links` removes URLs a plain link filter misses: scheme-less hosts with a path
  (``evil.example/x.sh``), defanged and obfuscated schemes (``hxxp://``, ``h t t p s : //``,
  ``evil[.]example``).
* :func:`redact_secrets` is the one seam for secret redaction on this path: every command and
  code excerpt passes through it before anything else (see its docstring).
* :mod:`pokayokay.safety.shown` combines them into what a rule may quote: the text exactly as it
  was (secrets redacted), or nothing — never a rewritten text.
"""

from __future__ import annotations

import re

__all__ = ["LOADER_DANGER", "danger", "loader_outside", "redact_secrets", "strip_links"]


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

# Variables that decide which code a command loads.
LOADER_VARIABLES = frozenset(
    {"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
     "NODE_OPTIONS", "NODE_PATH", "PATH", "PERL5LIB", "PERL5OPT", "RUBYOPT", "RUBYLIB"}
)  # fmt: skip
_ASSIGNMENT = re.compile(
    r"(?:^|[\s;&|(])(?:export\s+|env\s+(?:-\S+\s+)*)?([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|'[^']*'|\S*)"
)
LOADER_DANGER = "a command that points a loader or path variable outside the project"


def _outside(part: str, name: str) -> bool:
    """Whether one entry of a path list (or an option's value) leaves the project."""
    part = part.strip()
    if not part or part in (f"${name}", f"${{{name}}}"):
        return False  # the variable's own earlier value: nothing added
    if part.startswith(("/", "~", "$", "\\")) or (len(part) > 1 and part[1] == ":"):
        return True  # absolute, home, another variable, a UNC or drive path
    return ".." in part.replace("\\", "/").split("/")


def loader_outside(command: str) -> str | None:
    """The loader or path variable ``command`` points outside the project, or ``None``."""
    for match in _ASSIGNMENT.finditer(command):
        name = match.group(1)
        if name not in LOADER_VARIABLES and not name.startswith("DYLD_"):
            continue
        value = match.group(2).strip("\"'")
        parts = (
            re.split(r"[\s=]+", value)
            if name in ("NODE_OPTIONS", "PERL5OPT", "RUBYOPT")
            else (value.split(";" if ";" in value and ":" not in value else ":"))
        )
        if name in ("NODE_OPTIONS", "PERL5OPT", "RUBYOPT"):
            parts = [p for p in parts if not p.startswith("-")]
        if any(_outside(part, name) for part in parts):
            return name
    return None


def danger(command: str) -> str | None:
    """What makes ``command`` dangerous, in pokayokay's words; ``None`` when nothing does."""
    global _danger_patterns
    if _danger_patterns is None:
        _danger_patterns = [(re.compile(p, re.IGNORECASE), d) for p, d in _DANGERS]
    flat = " ".join(command.split())
    for pattern, description in _danger_patterns:
        if pattern.search(flat):
            return description
    if loader_outside(flat) is not None:
        return LOADER_DANGER
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
# From the start of a word only (linear: a match from inside a word also matches from its start).
_DEFANGED = re.compile(r"(?<!\S)\S*\w\s*[\[(]\s*(?:\.|dot)\s*[\])]\s*\w\S*", re.IGNORECASE)
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
