"""The manifest a failure is fixed in, when the output says so (pure).

A missing script, an unresolvable package or crate, a module no requirement provides, stubs that
are not installed, a make target that does not exist: the fix is in the file that declares them,
which the output rarely names. :func:`manifest_names` reads the output and returns those files'
names (``package.json``, ``Cargo.toml``, ``go.mod``, ``pyproject.toml``, ``Makefile``, eslint's
``eslint.config.js``), by the documented message of each tool;
:func:`pokayokay.failures.evidence_paths.extract_paths` keeps the ones that exist in the folder
the command ran in (else at the project root).
"""

from __future__ import annotations

from pokayokay.infra.lazyre import Lazy

ESLINT_CONFIGS = tuple(f"eslint.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts"))
# (messages, manifest): each message a pattern led by a literal (a literal start is searched
# fast; an alternation tries every position), each linear (no nested repetition), compiled only
# for an output holding its required literal (``literals``, held to
# ``pokayokay.infra.literals.required_literals`` by a test; decision 0170)
_RULES: tuple[tuple[tuple[Lazy, ...], str], ...] = (
    # npm / pnpm / yarn scripts and dependency resolution; tsc missing a package (not a path)
    (
        (
            Lazy(r"Missing script: ", literals=("Missing script: ",)),
            Lazy(r"ERR_PNPM_NO_SCRIPT", literals=("ERR_PNPM_NO_SCRIPT",)),
            Lazy(r"ERESOLVE", literals=("ERESOLVE",)),
            Lazy(
                r"error TS2307: Cannot find module '(?![./])",
                literals=("error TS2307: Cannot find module '",),
            ),
        ),
        "package.json",
    ),
    # cargo: a crate not in the registry or cache
    (
        (Lazy(r"no matching package named `", literals=("no matching package named `",)),),
        "Cargo.toml",
    ),
    # go: an import no module in go.mod provides
    (
        (
            Lazy(
                r"no required module provides package ",
                literals=("no required module provides package ",),
            ),
        ),
        "go.mod",
    ),
    # mypy: a third-party library without stubs (the stub package goes in the dev requirements)
    (
        (
            Lazy(
                r"Library stubs not installed for ", literals=("Library stubs not installed for ",)
            ),
            Lazy(r"  \[import-untyped\]", literals=("  [import-untyped]",)),
        ),
        "pyproject.toml",
    ),
    # make: a target the Makefile does not have (not a prerequisite file it is missing)
    (
        (
            Lazy(
                r"No rule to make target '[^'\n]{1,200}'\.  Stop\.",
                literals=("No rule to make target '",),
            ),
        ),
        "Makefile",
    ),
    # eslint (flat config): a file no configuration object covers; the config is whichever of
    # its names the project has
    *(
        (
            (
                Lazy(
                    r"File ignored because no matching configuration was supplied",
                    literals=("File ignored because no matching configuration was supplied",),
                ),
            ),
            name,
        )
        for name in ESLINT_CONFIGS
    ),
)


def manifest_names(output: str) -> list[str]:
    """The manifests ``output`` says the fix goes in, in the order above, without repeats."""
    return [name for patterns, name in _RULES if any(p.search(output) for p in patterns)]
