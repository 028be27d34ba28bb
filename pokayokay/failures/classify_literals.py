"""The strings one of which every match of each built-in classifier pattern contains
(:func:`pokayokay.infra.literals.required_literals`), read ahead (decision 0138): the classifier's
rows skip a text holding none of them without compiling, and reading them on each process's
first classification cost about 0.55 ms (the prompt's spool gate classifies once per process).
Data only, keyed by the pattern; a pattern missing here is read on first use.
``tests/failures/test_classify_literals.py`` holds this table to the reader and prints it again
when a row changes."""

from __future__ import annotations

# fmt: off
READ_AHEAD: dict[str, tuple[str, ...]] = {
    (
        '\\A(?:Error: )?(?:\\w+:\\S+ hook error\\b|Permission to use \\S+|'
        "The user doesn't want to)"
    ): (
        ' hook error',
        'Permission to use ',
        "The user doesn't want to",
    ),
    (
        '\\b(?:Permission denied|EACCES|EPERM|Operation not permitted|'
        'PermissionError|Access is denied)\\b'
    ): (
        'Permission denied',
        'EACCES',
        'EPERM',
        'Operation not permitted',
        'PermissionError',
        'Access is denied',
    ),
    (
        'Edit|MultiEdit|Write|NotebookEdit'
    ): (
        'Edit',
        'MultiEdit',
        'Write',
        'NotebookEdit',
    ),
    (
        ': patch does not apply'
    ): (
        ': patch does not apply',
    ),
    (
        'Hunk #\\d+ FAILED at '
    ): (
        ' FAILED at ',
    ),
    (
        '(?<![^\\s;&|(/])(?:sed|perl)(?: -[a-zA-Z]+){0,5} -[a-zA-Z]*i'
    ): (
        'sed',
        'perl',
    ),
    (
        'cd: [^\\n]{1,300}: No such file or directory'
    ): (
        ': No such file or directory',
    ),
    (
        'Missing script: '
    ): (
        'Missing script: ',
    ),
    (
        'ERR_PNPM_NO_SCRIPT'
    ): (
        'ERR_PNPM_NO_SCRIPT',
    ),
    (
        "No rule to make target '[^'\\n]{1,200}'\\.  Stop\\."
    ): (
        "No rule to make target '",
    ),
    (
        'ERROR: file or directory not found: '
    ): (
        'ERROR: file or directory not found: ',
    ),
    (
        'Failed to import test module: (\\w+)\\n(?:[^\\n]*\\n){0,12}?[\\w.'
        "]*Error: No module named '(?:[\\w.]+\\.)?\\1'"
    ): (
        'Failed to import test module: ',
    ),
    (
        '(?:^|[\\s;&|(/\'\\"=])(?:git)(?=$|[\\s;&|)\'\\"])'
    ): (
        'git',
    ),
    (
        'CONFLICT \\(|Automatic merge failed|! \\[(?:remote )?rejected\\'
        ']|non-fast-forward|fatal: not a git repository'
    ): (
        'CONFLICT (',
        'Automatic merge failed',
        'rejected]',
        'non-fast-forward',
        'fatal: not a git repository',
    ),
    (
        'ModuleNotFoundError|No module named |Cannot find module |ERR'
        '_MODULE_NOT_FOUND|Could not find a version that satisfies|No'
        ' matching distribution|\\bERESOLVE\\b|npm ERR! code E404|npm e'
        'rror code E404|could not resolve dependenc|no required modul'
        'e provides package|cannot find package|unresolved import(?! '
        '`(?:crate|self|super)::)|command not found|is not recognized'
        ' as an internal or external command|(?m:^(?:/(?:usr/)?bin/)?'
        '\\w*sh: (?:line )?\\d+: [^:\\n]+: not found\\s*$)'
    ): (
        'ModuleNotFoundError',
        'No module named ',
        'Cannot find module ',
        'ERR_MODULE_NOT_FOUND',
        'Could not find a version that satisfies',
        'No matching distribution',
        'ERESOLVE',
        'npm ERR! code E404',
        'npm error code E404',
        'could not resolve dependenc',
        'no required module provides package',
        'cannot find package',
        'unresolved import',
        'command not found',
        'is not recognized as an internal or external command',
        ': not found',
    ),
    (
        'no matching package named `'
    ): (
        'no matching package named `',
    ),
    (
        'Library stubs not installed for '
    ): (
        'Library stubs not installed for ',
    ),
    (
        '  \\[import-(?:untyped|not-found)\\]'
    ): (
        '  [import-',
    ),
    (
        'error TS[27]\\d{3}\\b'
    ): (
        'error TS',
    ),
    (
        'error\\[E0(?:061|069|277|282|308|369|373|381|382|384|499|502|'
        '503|505|506|507|596|597|599|609|614|615|716)\\]'
    ): (
        'error[E0',
    ),
    (
        '(?:^|[\\s;&|(/\'\\"=])(?:pip3? install|python3? -m pip|uv (?:pi'
        'p|add|sync|lock|remove)|poetry (?:install|add|lock|update|re'
        'move)|pipenv|conda (?:install|create|env)|npm (?:install|i|c'
        'i|add|update|uninstall)|yarn (?:install|add)|pnpm (?:install'
        '|i|add|update)|bun (?:install|add)|cargo (?:add|update|fetch'
        ')|go (?:get|mod)|bundle install|gem install|composer (?:inst'
        'all|require|update)|apt(?:-get)? install|brew install)(?=$|['
        '\\s;&|)\'\\"])'
    ): (
        ' install',
        ' -m pip',
        'uv ',
        'poetry ',
        'pipenv',
        'conda ',
        'npm ',
        'yarn ',
        'pnpm ',
        'bun ',
        'cargo ',
        'go ',
        'bundle install',
        'gem install',
        'composer ',
        'brew install',
    ),
    (
        '(?:^|[\\s;&|(/\'\\"=])(?:pytest|py\\.test|unittest|nose2|tox|nox'
        '|jest|vitest|mocha|ava|karma|playwright test|cypress run|go '
        'test|cargo (?:test|nextest)|(?:npm|yarn|pnpm|bun)(?: run)? t'
        'est(?::\\S+)?|make (?:test|check)|ctest|rspec|phpunit|mix tes'
        't|dotnet test|gradle test|mvn test|swift test|deno test)(?=$'
        '|[\\s;&|)\'\\"])'
    ): (
        'pytest',
        'py.test',
        'unittest',
        'nose2',
        'tox',
        'nox',
        'jest',
        'vitest',
        'mocha',
        'ava',
        'karma',
        'playwright test',
        'cypress run',
        'go test',
        'cargo ',
        ' test',
        'make ',
        'ctest',
        'rspec',
        'phpunit',
        'mix test',
        'dotnet test',
        'gradle test',
        'mvn test',
        'swift test',
        'deno test',
    ),
    (
        '(?m)\\berror\\[E\\d{4}\\]|^error: could not compile|\\[build fail'
        'ed\\]|^# \\S+\\n\\S+\\.go:\\d+|COMPILATION ERROR|Compilation faile'
        'd|error CS\\d{4}|^\\S+\\.(?:c|cc|cpp|h|hpp):\\d+:\\d+: error:'
    ): (
        'error[E',
        'error: could not compile',
        '[build failed]',
        '.go:',
        'COMPILATION ERROR',
        'Compilation failed',
        'error CS',
        ': error:',
    ),
    (
        '(?<![^\\s;&|(/])(?:python[\\d.]*|py|node|ts-node|tsx|bun|deno '
        'run)(?:\\s+-[XW]\\s+[^\\s-]\\S*|\\s+-\\S+){0,20}\\s+(?:\\S*/)?(?:tes'
        't_[\\w-]+\\.py|[\\w-]+_test\\.py|tests?\\.py|[\\w.-]+\\.(?:test|spe'
        'c)\\.[cm]?[jt]sx?)(?=$|[\\s;&|)])'
    ): (
        'test_',
        '_test.py',
        'test',
        'spec',
    ),
    (
        '(?:^|[\\s;&|(/\'\\"=])(?:ruff(?! format(?! --check))|flake8|pyl'
        'int|pycodestyle|pydocstyle|black --check|isort --check(?:-on'
        'ly)?|eslint|prettier --check|stylelint|biome (?:check|lint)|'
        'golangci-lint|go vet|staticcheck|cargo clippy|clippy|shellch'
        'eck|hadolint|rubocop|markdownlint|yamllint|pre-commit|xo|(?:'
        'npm|yarn|pnpm|bun)(?: run)? lint(?::\\S+)?)(?=$|[\\s;&|)\'\\"])'
    ): (
        'ruff',
        'flake8',
        'pylint',
        'pycodestyle',
        'pydocstyle',
        'black --check',
        'isort --check',
        'eslint',
        'prettier --check',
        'stylelint',
        'biome ',
        'golangci-lint',
        'go vet',
        'staticcheck',
        'cargo clippy',
        'clippy',
        'shellcheck',
        'hadolint',
        'rubocop',
        'markdownlint',
        'yamllint',
        'pre-commit',
        'xo',
        ' lint',
    ),
    (
        '(?:^|[\\s;&|(/\'\\"=])(?:tsc (?:--build|-b)|vue-tsc (?:--build|'
        '-b))(?=$|[\\s;&|)\'\\"])'
    ): (
        'tsc ',
        'vue-tsc ',
    ),
    (
        '(?:^|[\\s;&|(/\'\\"=])(?:mypy|dmypy|pyright|basedpyright|pytype'
        '|pyre|tsc|vue-tsc|flow check|(?:npm|yarn|pnpm|bun)(?: run)? '
        '(?:typecheck|type-check|types|tsc))(?=$|[\\s;&|)\'\\"])'
    ): (
        'mypy',
        'dmypy',
        'pyright',
        'basedpyright',
        'pytype',
        'pyre',
        'tsc',
        'vue-tsc',
        'flow check',
        'npm',
        'yarn',
        'pnpm',
        'bun',
    ),
    (
        '(?:^|[\\s;&|(/\'\\"=])(?:make|cmake|ninja|meson|bazel|cargo (?:'
        'build|check|run)|go build|go install|gcc|g\\+\\+|clang|clang\\+'
        '\\+|cc|rustc|javac|mvn|gradle|gradlew|dotnet build|msbuild|sw'
        'ift build|webpack|vite build|rollup|esbuild|next build|pytho'
        'n3? -m build|docker build|(?:npm|yarn|pnpm|bun)(?: run)? bui'
        'ld(?::\\S+)?|python3? setup\\.py)(?=$|[\\s;&|)\'\\"])'
    ): (
        'make',
        'cmake',
        'ninja',
        'meson',
        'bazel',
        'cargo ',
        'go build',
        'go install',
        'gcc',
        'g++',
        'clang',
        'clang++',
        'cc',
        'rustc',
        'javac',
        'mvn',
        'gradle',
        'gradlew',
        'dotnet build',
        'msbuild',
        'swift build',
        'webpack',
        'vite build',
        'rollup',
        'esbuild',
        'next build',
        ' -m build',
        'docker build',
        ' build',
        ' setup.py',
    ),
    (
        '(?m)^(?:FAILED|ERROR) \\S+::|^--- FAIL: |^test result: FAILED'
        '|^Tests:[ \\t]+\\d+ failed|\\bAssertionError\\b|^[ \\t]*● |^[A-Z]'
        '\\w*Error: [^\\n]*\\n[ \\t]+at \\S'
    ): (
        'FAILED',
        'ERROR',
        '--- FAIL: ',
        'test result: FAILED',
        ' failed',
        'AssertionError',
        '● ',
        'Error: ',
    ),
    (
        '(?m)\\berror TS\\d+\\b|^[^\\n:]+:\\d+(?::\\d+)?: error: [^\\n]*  \\['
        '[a-z-]+\\]$|Found \\d+ errors? in \\d+ files? \\(checked'
    ): (
        'error TS',
        ': error: ',
        ' (checked',
    ),
    (
        '(?m)^\\S+:\\d+:\\d+: [A-Z]{1,3}\\d{3,4}\\b|^Found \\d+ errors?\\.$|'
        '\\d+ problems? \\(\\d+ errors?|would reformat'
    ): (
        ': ',
        'Found ',
        ' problem',
        'would reformat',
    ),
    (
        '(?m)undefined reference to|ld returned \\d+ exit status|compi'
        'lation terminated|\\berror\\[E\\d{4}\\]|make(?:\\[\\d+\\])?: \\*\\*\\*'
        '|CMake Error|BUILD FAILED|^\\S+\\.(?:c|cc|cpp|h|hpp|rs|go|java'
        '):\\d+:\\d+: (?:fatal )?error:'
    ): (
        'undefined reference to',
        'ld returned ',
        'compilation terminated',
        'error[E',
        ': ***',
        'CMake Error',
        'BUILD FAILED',
        'error:',
    ),
}
# fmt: on
