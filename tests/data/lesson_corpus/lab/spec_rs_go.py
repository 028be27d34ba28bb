# ruff: noqa
# Capture script used to produce the corpus (run from /work/corpus_lab with ruamel.yaml); kept for the record.
import subprocess
from harness import case
subprocess.run('cd /work/corpus_lab/goproj && git checkout -q -- .', shell=True, check=True)
R = "rsproj"; G = "goproj"; CV = "cargo --version"; GV = "go version"
case("cargo-build-e0308-mismatched-types", "cargo", R, "cargo build -p pricing", "types",
     "error[E0308]: mismatched types", ["pricing/src/lib.rs"],
     "Return `Price { cents }` from `parse_price` in pricing/src/lib.rs; the function promises a `Price`, not a bare `u64`.",
     version_cmd=CV)
case("cargo-build-e0382-use-after-move", "cargo", R, "cargo build -p ledger", "types",
     "error[E0382]: borrow of moved value: `entries`", ["ledger/src/lib.rs"],
     "Sum `entries` before moving it into `archived` in ledger/src/lib.rs (or borrow it with `&entries`) instead of using it after the move.",
     version_cmd=CV)
case("cargo-build-e0432-e0425-unresolved", "cargo", R, "cargo build -p parser", "build",
     "error[E0432]: unresolved import `crate::tokens`", ["parser/src/lib.rs"],
     "Remove the `use crate::tokens::Token` import from parser/src/lib.rs (there is no `tokens` module) and define the `normalise` function it calls.",
     version_cmd=CV)
case("cargo-test-assert-eq-panic", "cargo", R, "cargo test -p totals", "testing",
     "tests::ten_percent_off", ["totals/src/lib.rs"],
     "Divide by 100, not 10, in `apply_discount` (totals/src/lib.rs): `percent` is a percentage.",
     version_cmd=CV)
case("cargo-build-offline-missing-crate", "cargo", "rsdeps", "cargo build --offline", "dependencies",
     "no matching package named `serde_json` found", ["Cargo.toml"],
     "Fetch `serde_json` once with network access (`cargo fetch`) or vendor it before building with `--offline`; it is not in the local registry cache.",
     files=["Cargo.toml", "src/lib.rs"], version_cmd=CV)
case("cargo-clippy-e0382-before-lints", "cargo", R, "cargo clippy -p ledger", "types",
     "error[E0382]: borrow of moved value: `entries`", ["ledger/src/lib.rs"],
     "Fix the move in ledger/src/lib.rs (compute the total from `&entries` before `let archived = entries`) before expecting clippy lints; clippy stops at compile errors.",
     version_cmd="cargo clippy --version")
case("go-build-undefined", "go", G, "go build ./sums/", "build",
     "undefined: totl", ["sums/sums.go"],
     "Return `total` in `Total` (sums/sums.go); `totl` is a typo.",
     version_cmd=GV, fix=("go build ./sums/", "edit", "`return totl` -> `return total` in sums/sums.go",
                          "sed -i 's/return totl/return total/' sums/sums.go", "git checkout -q -- sums/sums.go"))
case("go-build-unused-import-and-var", "go", G, "go build ./report/", "build",
     'imported and not used: "strings"', ["report/report.go"],
     "Drop the unused `strings` import and either return or delete `label` in report/report.go; Go refuses unused imports and variables.",
     version_cmd=GV)
case("go-vet-printf-verbs", "go", G, "go vet ./audit/", "lint",
     "fmt.Printf format %d has arg sku of wrong type string", ["audit/audit.go"],
     "Swap the verbs in audit/audit.go's `fmt.Printf` to `%s ... %d` so they match `sku` (string) and `n` (int).",
     version_cmd=GV)
case("go-test-errorf-failure", "go", G, "go test ./stock/", "testing",
     "TestAvailableAfterReserve", ["stock/stock.go"],
     "Remove the stray `+ 1` in `Available` (stock/stock.go); available stock is on-hand minus reserved.",
     files=["stock/stock.go", "stock/stock_test.go"], version_cmd=GV)
case("go-build-missing-module", "go", G, "go build ./ids/", "dependencies",
     "no required module provides package github.com/google/uuid", ["go.mod"],
     "Add the dependency with `go get github.com/google/uuid` so go.mod and go.sum list it before building ids/.",
     files=["go.mod", "ids/ids.go"], version_cmd=GV, note="GOPROXY=off in the capture environment; the message comes from -mod=readonly before any download")
case("go-vet-all-packages", "go", G, "go vet ./...", "dependencies",
     "no required module provides package github.com/google/uuid", ["go.mod", "ids/ids.go"],
     "Run `go get github.com/google/uuid` before `go vet ./...`: vet cannot load the module while ids/ids.go imports a package go.mod does not require.",
     version_cmd=GV)
