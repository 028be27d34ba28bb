# ruff: noqa
# Capture script used to produce the corpus (run from /work/corpus_lab with ruamel.yaml); kept for the record.
import subprocess
subprocess.run('cd /work/corpus_lab/pyproj && git checkout -q -- . && chmod -x scripts/release.sh', shell=True, check=True)
from harness import case
P = "pyproj"
PYT = ".venv/bin/python -m pytest --version"

case("pytest-assertion-count", "pytest", P, ".venv/bin/python -m pytest tests/test_cart.py", "testing",
     "tests/test_cart.py::test_add_item_twice", ["src/shopcart/cart.py", "tests/test_cart.py"],
     "Make `Cart.add` in src/shopcart/cart.py add to the existing item's quantity when the sku is already in the cart instead of replacing the item.",
     version_cmd=PYT)
case("pytest-missing-fixture", "pytest", P, ".venv/bin/python -m pytest tests/test_db.py", "testing",
     "fixture 'db_session' not found", ["tests/conftest.py", "tests/test_db.py"],
     "Define the `db_session` fixture (an in-memory `sqlite3` connection) in tests/conftest.py before using it in tests/test_db.py.",
     files=["tests/test_db.py", "src/shopcart/db.py"], version_cmd=PYT,
     fix=(".venv/bin/python -m pytest tests/test_db.py", "edit", "added tests/conftest.py with a `db_session` fixture yielding `sqlite3.connect(\":memory:\")`",
          "printf 'import sqlite3\\n\\nimport pytest\\n\\n\\n@pytest.fixture\\ndef db_session():\\n    conn = sqlite3.connect(\":memory:\")\\n    yield conn\\n    conn.close()\\n' > tests/conftest.py",
          "rm tests/conftest.py"))
case("pytest-wrong-interpreter-system-pytest", "pytest", P, "pytest tests/test_report.py", "dependencies",
     "ModuleNotFoundError: No module named 'shopcart'", [],
     "Run the tests with `.venv/bin/python -m pytest`: shopcart and its dependencies are installed only in .venv.",
     files=["tests/test_report.py", "pyproject.toml"], version_cmd="pytest --version",
     fix=(".venv/bin/python -m pytest tests/test_report.py", "correction"))
case("pytest-wrong-interpreter-python3-m", "pytest", P, "python3 -m pytest tests/test_report.py", "dependencies",
     "ModuleNotFoundError: No module named 'shopcart'", [],
     "Use the project interpreter, `.venv/bin/python -m pytest`, not the system `python3`, which does not have shopcart installed.",
     files=["tests/test_report.py", "pyproject.toml"], version_cmd="python3 --version",
     fix=(".venv/bin/python -m pytest tests/test_report.py", "correction"))
case("pytest-wrong-interpreter-usr-bin-python3", "pytest", P, "/usr/bin/python3 -m pytest tests/test_report.py", "dependencies",
     "No module named pytest", [],
     "Run pytest with the project's `.venv/bin/python -m pytest`; the Debian `/usr/bin/python3` has neither pytest nor shopcart.",
     files=["tests/test_report.py", "pyproject.toml"], version_cmd="/usr/bin/python3 --version",
     fix=(".venv/bin/python -m pytest tests/test_report.py", "correction"))
case("pytest-import-error-collection", "pytest", P, ".venv/bin/python -m pytest tests/test_discounts.py", "testing",
     "ImportError: cannot import name 'apply_coupon' from 'shopcart.discounts'", ["tests/test_discounts.py", "src/shopcart/discounts.py"],
     "Import only names that exist in src/shopcart/discounts.py (`apply_discount`), or add `apply_coupon` there before the test imports it.",
     version_cmd=PYT)
case("pytest-attributeerror-none", "pytest", P, ".venv/bin/python -m pytest tests/test_config.py", "testing",
     "tests/test_config.py::test_currency_from_settings", ["tests/test_config.py", "src/shopcart/config.py"],
     "Pass a dict to `load_currency` in tests/test_config.py (or make it accept `None`): calling `.get` on `None` raises AttributeError.",
     version_cmd=PYT)
case("pytest-file-not-found", "pytest", P, ".venv/bin/python -m pytest tests/test_carts.py", "shell",
     "ERROR: file or directory not found: tests/test_carts.py", ["tests/test_cart.py"],
     "Check the test path before running it: the cart tests are in tests/test_cart.py, not tests/test_carts.py.",
     version_cmd=PYT, fix=(".venv/bin/python -m pytest tests/test_cart.py::test_add_item", "correction"))
case("unittest-assertion-failure", "unittest", P, ".venv/bin/python -m unittest tests.test_money -v", "testing",
     "test_single_decimal (tests.test_money.ParseCentsTest.test_single_decimal)", ["src/shopcart/money.py", "tests/test_money.py"],
     "Make `parse_cents` in src/shopcart/money.py pad a one-digit fraction to two digits before converting it, so tenths are not read as cents.",
     version_cmd=".venv/bin/python --version")
case("unittest-module-not-found", "unittest", P, ".venv/bin/python -m unittest tests.test_mony", "shell",
     "ModuleNotFoundError: No module named 'tests.test_mony'", ["tests/test_money.py"],
     "Name the existing test module, `python -m unittest tests.test_money`; there is no tests/test_mony.py.",
     version_cmd=".venv/bin/python --version", fix=(".venv/bin/python -m unittest tests.test_money.ParseCentsTest.test_whole_euros", "correction"))
case("ruff-check-unused-imports", "ruff", P, ".venv/bin/ruff check src/shopcart/report.py src/shopcart/discounts.py tests", "lint",
     "F401", ["src/shopcart/report.py", "src/shopcart/discounts.py", "tests/test_report.py"],
     "Remove the unused imports (`os`, `json`, `pytest`) and the unused local `unused` that ruff reports, or run `ruff check --fix` and review the diff.",
     version_cmd=".venv/bin/ruff --version")
case("ruff-check-e711-comparison-to-none", "ruff", P, ".venv/bin/ruff check --select E711,E501 src/shopcart/report.py", "lint",
     "E711", ["src/shopcart/report.py"],
     "Write `if currency is None:` in src/shopcart/report.py; compare to `None` with `is`, never `==`.",
     version_cmd=".venv/bin/ruff --version")
case("flake8-several-codes", "flake8", P, ".venv/bin/flake8 src tests", "lint",
     "E501", ["src/shopcart/report.py", "src/shopcart/discounts.py", "src/shopcart/db.py", "tests/test_report.py"],
     "Fix flake8's findings file by file: drop the unused imports and local, use `is None`, wrap lines over 79 columns, and add the missing whitespace around `:` and operators in src/shopcart/discounts.py.",
     version_cmd=".venv/bin/flake8 --version")
case("flake8-e501-line-too-long", "flake8", P, ".venv/bin/flake8 --select E501 --max-line-length 88 src", "lint",
     "E501", ["src/shopcart/report.py", "src/shopcart/db.py"],
     "Wrap the long lines in src/shopcart/report.py and src/shopcart/db.py to 88 columns, the limit set in pyproject.toml.",
     version_cmd=".venv/bin/flake8 --version")
case("mypy-plain-arg-type", "mypy", P, ".venv/bin/mypy src/shopcart/checkout.py", "types",
     "error: Argument 2 to \"add\" of \"Cart\" has incompatible type \"str\"; expected \"int\"  [arg-type]", ["src/shopcart/checkout.py"],
     "Pass the price to `Cart.add` as integer cents in src/shopcart/checkout.py (declare `price: int`), not as a `str`.",
     files=["src/shopcart/checkout.py", "src/shopcart/cart.py"], version_cmd=".venv/bin/mypy --version")
case("mypy-pretty-arg-type", "mypy", P, ".venv/bin/mypy --pretty src/shopcart/checkout.py", "types",
     "[arg-type]", ["src/shopcart/checkout.py"],
     "Declare `price: int` in `quick_checkout` (src/shopcart/checkout.py) so it matches the `price_cents: int` that `Cart.add` expects.",
     files=["src/shopcart/checkout.py", "src/shopcart/cart.py"], version_cmd=".venv/bin/mypy --version")
case("mypy-pretty-return-value", "mypy", P, ".venv/bin/mypy --pretty src/shopcart/money.py", "types",
     "[return-value]", ["src/shopcart/money.py"],
     "Annotate `format_cents` in src/shopcart/money.py as returning `str`: it returns an f-string.",
     version_cmd=".venv/bin/mypy --version")
case("mypy-import-untyped", "mypy", P, ".venv/bin/mypy src/shopcart/shipping.py", "dependencies",
     "error: Library stubs not installed for \"requests\"  [import-untyped]", ["pyproject.toml", "src/shopcart/shipping.py"],
     "Install `types-requests` into .venv (and list it with the dev dependencies in pyproject.toml) so mypy can check the `requests` calls in src/shopcart/shipping.py.",
     version_cmd=".venv/bin/mypy --version")
case("mypy-attr-defined", "mypy", P, ".venv/bin/mypy src/shopcart/inventory.py", "types",
     "error: \"Item\" has no attribute \"qty\"  [attr-defined]", ["src/shopcart/inventory.py"],
     "Use the field `Item.quantity` in src/shopcart/inventory.py; `Item` has no `qty`.",
     files=["src/shopcart/inventory.py", "src/shopcart/cart.py"], version_cmd=".venv/bin/mypy --version")
case("pyright-argument-type", "pyright", P, ".venv/bin/pyright src/shopcart/checkout.py src/shopcart/inventory.py", "types",
     "reportArgumentType", ["src/shopcart/checkout.py", "src/shopcart/inventory.py"],
     "Pass integer cents to `Cart.add` in src/shopcart/checkout.py and read `item.quantity` (not `item.qty`) in src/shopcart/inventory.py.",
     files=["src/shopcart/checkout.py", "src/shopcart/inventory.py", "src/shopcart/cart.py"], version_cmd=".venv/bin/pyright --version")
case("pyright-none-argument", "pyright", P, ".venv/bin/pyright tests/test_config.py", "types",
     "reportArgumentType", ["tests/test_config.py"],
     "Give `load_currency` a `dict[str, str]` in tests/test_config.py; pyright rejects passing `None` where the signature has no `Optional`.",
     version_cmd=".venv/bin/pyright --version")
case("pip-no-matching-distribution", "pip", P, ".venv/bin/pip install -r requirements-dev.txt", "dependencies",
     "ERROR: No matching distribution found for shopcart-testkit==2.3.1", ["requirements-dev.txt"],
     "Drop `shopcart-testkit==2.3.1` from requirements-dev.txt: no such distribution is published on the package index.",
     version_cmd=".venv/bin/pip --version")
case("pip-version-not-found", "pip", P, ".venv/bin/pip install 'pytest==99.0.0'", "dependencies",
     "ERROR: Could not find a version that satisfies the requirement pytest==99.0.0", [],
     "Pin only versions that exist: check `pip index versions pytest` before writing `pytest==99.0.0`.",
     files=["pyproject.toml"], version_cmd=".venv/bin/pip --version")
case("ruff-command-not-found", "bash", P, "ruff check src", "dependencies",
     "ruff: command not found", [],
     "Run ruff from the project virtualenv, `.venv/bin/ruff check src`; it is not installed system-wide.",
     files=["pyproject.toml"], version_cmd="bash --version",
     fix=(".venv/bin/ruff check --select E9 src", "correction"))
case("permission-denied-script-not-executable", "bash", P, "./scripts/release.sh", "permissions",
     "./scripts/release.sh: Permission denied", ["scripts/release.sh"],
     "Run the script with `bash scripts/release.sh` or make it executable with `chmod +x scripts/release.sh` first.",
     version_cmd="bash --version")
case("mypy-plain-several-files", "mypy", P, ".venv/bin/mypy src", "types",
     "error: Incompatible return value type (got \"str\", expected \"int\")  [return-value]", ["src/shopcart/inventory.py", "src/shopcart/checkout.py", "src/shopcart/money.py", "src/shopcart/shipping.py"],
     "Fix each mypy error where it is reported: `item.quantity` in inventory.py, an `int` price in checkout.py, a `str` return type in money.py, and install `types-requests` for shipping.py.",
     version_cmd=".venv/bin/mypy --version")
case("ruff-check-isort-unsorted-imports", "ruff", P, ".venv/bin/ruff check --select I src/shopcart/api.py", "lint",
     "I001", ["src/shopcart/api.py"],
     "Let `ruff check --select I --fix` sort the import block in src/shopcart/api.py (stdlib first, then first-party) rather than reordering it by hand.",
     version_cmd=".venv/bin/ruff --version", fix=(".venv/bin/ruff check --select I --fix src/shopcart/api.py", "formatter"))
# formatter pairs last: they rewrite files
case("ruff-format-check", "ruff", P, ".venv/bin/ruff format --check src/shopcart/discounts.py src/shopcart/__init__.py", "lint",
     "File would be reformatted", ["src/shopcart/discounts.py", "src/shopcart/__init__.py"],
     "Run `ruff format` on the files that `ruff format --check` flags instead of re-spacing them by hand.",
     version_cmd=".venv/bin/ruff --version", fix=(".venv/bin/ruff format src/shopcart/discounts.py src/shopcart/__init__.py", "formatter"))
case("black-check-would-reformat", "black", P, ".venv/bin/black --check src/shopcart/report.py src/shopcart/db.py tests", "lint",
     "would reformat src/shopcart/report.py", ["src/shopcart/report.py", "src/shopcart/db.py"],
     "Run `black` on the files that `black --check` lists before committing, instead of re-wrapping lines by hand.",
     version_cmd=".venv/bin/black --version", fix=(".venv/bin/black src/shopcart/report.py src/shopcart/db.py tests", "formatter"))
