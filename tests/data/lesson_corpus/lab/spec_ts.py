# ruff: noqa
# Capture script used to produce the corpus (run from /work/corpus_lab with ruamel.yaml); kept for the record.
import subprocess
from harness import case, BASE_ENV
BASE_PATH = BASE_ENV["PATH"]
subprocess.run('cd /work/corpus_lab/tsproj && git checkout -q -- . && git clean -qfd -e node_modules', shell=True, check=True)
T = "tsproj"
TSC = "npx tsc --version"
case("npm-missing-script-lint", "npm", T, "npm run lint", "shell",
     'Missing script: "lint"', ["package.json"],
     "Check `npm run` for the scripts package.json defines: there is no `lint` script here, so run `npx eslint lib` directly.",
     version_cmd="npm --version", fix=("npx eslint lib", "correction", "eslint ran and reported its own findings (exit 1): see eslint-several-rules"))
case("pnpm-missing-script-lint", "pnpm", "pnpmproj", "pnpm run lint", "shell",
     "ERR_PNPM_NO_SCRIPT", ["package.json"],
     "List the scripts in package.json (`pnpm run` with no name) before calling one: this package defines only `build` and `test`, not `lint`.",
     version_cmd="pnpm --version", env={"PATH": BASE_PATH + ":/work/corpus_lab/tsproj/node_modules/.bin"},
     fix=("pnpm run build", "correction"), note="pnpm 12.21.0 put on PATH from a local npm install (tsproj/node_modules/.bin)")
case("npm-eresolve-peer-conflict", "npm", "eslintsetup", "npm install --no-audit --no-fund -D eslint@9 @eslint/js@10", "dependencies",
     "ERESOLVE could not resolve", ["package.json"],
     "Install matching majors, `npm install -D eslint@9 @eslint/js@9`, instead of forcing the peer conflict with `--legacy-peer-deps`.",
     version_cmd="npm --version")
case("npm-ci-lock-out-of-sync", "npm", "npmci", "npm ci", "dependencies",
     "`npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync.", ["package.json", "package-lock.json"],
     "Run `npm install` after adding a dependency to package.json and commit the updated package-lock.json, so `npm ci` finds them in sync.",
     version_cmd="npm --version")
case("tsc-command-not-found", "bash", T, "tsc --noEmit", "dependencies",
     "tsc: command not found", [],
     "Run the project-local compiler with `npx tsc --noEmit`; TypeScript is a devDependency, not a global install.",
     files=["package.json", "tsconfig.json"], version_cmd="bash --version")
case("tsc-ts2345-argument-type", "tsc", T, "npx tsc --noEmit --strict src/checkout.ts", "types",
     "error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.", ["src/checkout.ts"],
     "Type `percent` as `number` in `checkout` (src/checkout.ts) so it matches `applyCoupon(total: number, percent: number)`.",
     files=["src/checkout.ts", "src/totals.ts"], version_cmd=TSC,
     fix=("npx tsc --noEmit --strict src/checkout.ts", "edit", "`percent: string` -> `percent: number` in src/checkout.ts",
          "sed -i 's/percent: string/percent: number/' src/checkout.ts", "git checkout -q -- src/checkout.ts"))
case("tsc-ts2339-property-missing", "tsc", T, "npx tsc --noEmit --strict src/receipt.ts", "types",
     "error TS2339: Property 'qty' does not exist on type 'LineItem'.", ["src/receipt.ts"],
     "Use `item.quantity` in src/receipt.ts, the field `LineItem` declares in src/types.ts, and narrow `order.couponCode` before assigning it to a `string`.",
     files=["src/receipt.ts", "src/types.ts"], version_cmd=TSC)
case("tsc-ts2307-cannot-find-module", "tsc", T, "npx tsc --noEmit --strict --esModuleInterop src/server.ts", "dependencies",
     "error TS2307: Cannot find module 'express' or its corresponding type declarations.", ["package.json", "src/server.ts"],
     "Add `express` and `@types/express` to package.json with `npm install express` and `npm install -D @types/express` before importing it in src/server.ts.",
     version_cmd=TSC)
case("tsc-project-several-errors", "tsc", T, "npx tsc --noEmit", "types",
     "error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.", ["src/checkout.ts", "src/receipt.ts", "src/server.ts"],
     "Fix the errors in the order tsc lists them: a `number` percent in src/checkout.ts, `item.quantity` and a narrowed `couponCode` in src/receipt.ts, then install `express` for src/server.ts.",
     files=["src/checkout.ts", "src/receipt.ts", "src/server.ts", "tsconfig.json"], version_cmd=TSC)
case("npm-run-build-tsc-errors", "npm", T, "npm run build", "types",
     "error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.", ["src/checkout.ts", "src/receipt.ts", "src/server.ts"],
     "Read the tsc errors above npm's summary and fix src/checkout.ts, src/receipt.ts and src/server.ts; `npx tsc --noEmit` reproduces them without npm's noise.",
     files=["src/checkout.ts", "src/receipt.ts", "src/server.ts", "package.json", "tsconfig.json"], version_cmd="npm --version", note="the build script runs tsc 5.9.3")
case("eslint-several-rules", "eslint", T, "npx eslint lib", "lint",
     "no-unused-vars", ["lib/format.js", "lib/orders.js"],
     "Remove the unused `util` and `unusedRate` in lib/format.js, compare with `=== undefined`, and return the declared `total` (not `totl`) in lib/orders.js.",
     files=["lib/format.js", "lib/orders.js", "eslint.config.js"], version_cmd="npx eslint --version")
case("eslint-no-undef", "eslint", T, "npx eslint lib/orders.js", "lint",
     "'totl' is not defined", ["lib/orders.js"],
     "Return `total` from `totalOf` in lib/orders.js; `totl` is a typo that eslint's `no-undef` catches.",
     version_cmd="npx eslint --version")
case("eslint-no-config-max-warnings", "eslint", T, "npx eslint --max-warnings 0 src/totals.ts", "lint",
     "File ignored because no matching configuration was supplied", ["eslint.config.js"],
     "Add a `files: [\"src/**/*.ts\"]` entry with a TypeScript parser to eslint.config.js before linting src/, or lint only lib/ which the config covers.",
     files=["eslint.config.js", "src/totals.ts"], version_cmd="npx eslint --version")
case("xo-lint-errors", "xo", T, "npx xo lib/orders.js", "lint",
     "totl is not defined.", ["lib/orders.js"],
     "Fix the real bug xo reports in lib/orders.js (return `total`, not the undefined `totl`) and let `npx xo --fix lib/orders.js` apply its style rules.",
     version_cmd="npx xo --version")
case("jest-assertion-tobe", "jest", T, "npx jest -t describeOrder", "testing",
     "describeOrder › formats each line with its currency", ["lib/orders.js", "lib/format.js"],
     "Pass the order's currency through `describeOrder` to `formatCents` in lib/orders.js; it always formats with the default `EUR`.",
     files=["lib/orders.js", "lib/format.js", "tests/totals.test.js"], version_cmd="npx jest --version")
case("jest-referenceerror-stack", "jest", T, "npx jest -t totalOf", "testing",
     "ReferenceError: totl is not defined", ["lib/orders.js"],
     "Return `total` in `totalOf` (lib/orders.js); the stack trace points at the misspelt `totl` on line 11.",
     files=["lib/orders.js", "tests/totals.test.js"], version_cmd="npx jest --version")
case("npm-test-jest-failures", "npm", T, "npm test", "testing",
     "describeOrder › formats each line with its currency", ["lib/orders.js"],
     "Fix lib/orders.js (the `totl` typo and the hard-wired currency), then rerun `npm test`; npm's own error lines only repeat jest's exit code.",
     files=["lib/orders.js", "tests/totals.test.js", "package.json"], version_cmd="npm --version", note="the test script runs jest 30.5.2")
case("vitest-assertion-failure", "vitest", T, "npx vitest run vtests", "testing",
     "vtests/format.test.js > formatCents > rounds half cents up", ["lib/format.js", "vtests/format.test.js"],
     "Decide whether `formatCents` in lib/format.js prints currency codes or symbols, then change either the function or the expectation in vtests/format.test.js to match.",
     version_cmd="npx vitest --version")
case("ava-typeerror-and-assertion", "ava", T, "npx ava", "testing",
     "describes an empty order", ["lib/orders.js", "atests/orders.js"],
     "Make `describeOrder` in lib/orders.js handle an empty or missing `items` list the way atests/orders.js specifies, instead of calling `.map` on `undefined`.",
     version_cmd="npx ava --version")
case("node-uncaught-typeerror", "node", T, "node lib/report.js '{}'", "testing",
     "TypeError: Cannot read properties of undefined (reading 'map')", ["lib/orders.js", "lib/report.js"],
     "Guard `order.items` in `describeOrder` (lib/orders.js) or pass an order with an `items` array to lib/report.js.",
     version_cmd="node --version")
case("node-cannot-find-module", "node", T, "node lib/server.js", "dependencies",
     "Error: Cannot find module './config'", ["lib/server.js", "lib/config.js"],
     "Create lib/config.js exporting `loadConfig` before lib/server.js requires it, or fix the require path.",
     files=["lib/server.js"], version_cmd="node --version")
case("node-run-typescript-directly", "node", T, "node src/checkout.ts", "shell",
     'Unknown file extension ".ts"', ["src/checkout.ts"],
     "Compile TypeScript first (`npm run build`, then `node dist/checkout.js`) or run it with a TS runner; Node 20 cannot execute src/checkout.ts.",
     version_cmd="node --version")
# formatter pair last
case("prettier-check-warn", "prettier", T, "npx prettier --check lib src", "lint",
     "[warn] lib/orders.js", ["lib/orders.js", "src/server.ts"],
     "Run `npx prettier --write` on the files `prettier --check` lists instead of reformatting them by hand.",
     files=["lib/orders.js", "src/server.ts"], version_cmd="npx prettier --version",
     fix=("npx prettier --write lib src", "formatter"))
