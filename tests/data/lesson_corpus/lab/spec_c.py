# ruff: noqa
# Capture script used to produce the corpus (run from /work/corpus_lab with ruamel.yaml); kept for the record.
import subprocess
from harness import case
subprocess.run('cd /work/corpus_lab/cproj && git checkout -q -- . && rm -rf build legacy/tool', shell=True, check=True)
C = "cproj"
case("clang-output-dir-missing", "clang", C, "clang -Wall -Iinclude -c src/util.c -o build/util.o", "build",
     "error: unable to open output file 'build/util.o': 'No such file or directory'", [],
     "Create the output directory first (`mkdir -p build`) or build through `make`, whose rule creates build/.",
     files=["src/util.c", "Makefile"], version_cmd="clang --version", fix=("mkdir -p build && clang -Wall -Iinclude -c src/util.c -o build/util.o", "correction"))
case("make-no-rule-tests-typo", "make", C, "make tests", "shell",
     "No rule to make target 'tests'", ["Makefile"],
     "Run `make test`; the Makefile defines `test`, not `tests`.",
     version_cmd="make --version", fix=("make -n test", "rehearsal", "dry run: the real `make test` stops at the link error in make-ld-undefined-reference"))
case("make-ld-undefined-reference", "ld", C, "make", "build",
     "undefined reference to `parse_config'", ["src/config.c", "include/config.h"],
     "Rename `parse_cfg` in src/config.c to `parse_config`, the name include/config.h declares and src/main.c calls.",
     files=["src/config.c", "include/config.h", "src/main.c", "Makefile"], version_cmd="ld --version",
     fix=("make", "edit", "renamed `parse_cfg` to `parse_config` in src/config.c",
          "sed -i 's/parse_cfg/parse_config/' src/config.c", "git checkout -q -- src/config.c"))
case("gcc-ld-implicit-declaration-undefined", "gcc", C, "gcc -Wall -o build/sum src/sum.c", "build",
     "undefined reference to `add_all'", ["src/sum.c"],
     "Declare `add_all` in a header included by src/sum.c and compile the file that defines it into the link; the implicit-declaration warning is the first sign.",
     version_cmd="gcc --version")
case("gcc-expected-semicolon", "gcc", C, "gcc -Wall -Iinclude -c src/stats.c -o build/stats.o", "build",
     "error: expected ‘,’ or ‘;’ before ‘for’", ["src/stats.c"],
     "Add the missing `;` after `int sum = 0` in src/stats.c.",
     version_cmd="gcc --version")
case("clang-undeclared-identifier", "clang", C, "clang -Wall -Iinclude -c src/hash.c -o build/hash.o", "build",
     "error: use of undeclared identifier 'HASH_SIZE'", ["src/hash.c"],
     "Define `HASH_SIZE` (e.g. `#define HASH_SIZE 1024u`) in src/hash.c or a header it includes before using it.",
     version_cmd="clang --version")
case("gcc-missing-header", "gcc", C, "gcc -Wall -Iinclude -c src/net.c -o build/net.o", "build",
     "fatal error: netutil.h: No such file or directory", ["src/net.c", "include/netutil.h"],
     "Create include/netutil.h declaring `bind_port`, or drop the include from src/net.c; `-Iinclude` has no such header.",
     files=["src/net.c"], version_cmd="gcc --version")
case("ld-multiple-definition", "ld", C, "gcc -Wall -Iinclude -o build/logdemo src/logger.c src/logmain.c", "build",
     "multiple definition of `log_level'", ["include/globals.h"],
     "Declare `extern int log_level;` in include/globals.h and define it once in a single .c file; a definition in a header is duplicated in every object that includes it.",
     files=["include/globals.h", "src/logger.c", "src/logmain.c"], version_cmd="ld --version")
case("make-missing-separator", "make", C, "make -C legacy", "build",
     "*** missing separator.  Stop.", ["legacy/Makefile"],
     "Indent recipe lines in legacy/Makefile with a tab, not spaces.",
     version_cmd="make --version")
case("clang-make-cc-override", "clang", C, "make clean && make CC=clang", "build",
     "undefined reference to `parse_config'", ["src/config.c", "include/config.h"],
     "Define `parse_config` (not `parse_cfg`) in src/config.c; switching the compiler to clang does not fix a missing symbol.",
     files=["src/config.c", "include/config.h", "src/main.c", "Makefile"], version_cmd="clang --version")
