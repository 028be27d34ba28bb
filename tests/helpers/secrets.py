"""A corpus of fake credentials of the right shapes, in the places they really turn up (commands,
tool output, config excerpts), and of look-alikes that are not secrets.

The credentials are generated from a seeded random source at import (none is written out in the
repository, so no scanner mistakes the test data for a leak); every one is of its provider's
documented format and length.
"""

from __future__ import annotations

import base64
import random
import string
from typing import NamedTuple

_rng = random.Random(20261125)
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
UPPER_DIGITS = string.ascii_uppercase + "234567"


def _pick(alphabet: str, n: int) -> str:
    while True:
        value = "".join(_rng.choice(alphabet) for _ in range(n))
        # generated keys have letters and digits (a run without a digit is re-drawn)
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


class Secret(NamedTuple):
    kind: str  # what it is (the test names cases by it)
    secret: str  # the exact string that must never appear in any output
    text: str  # where it turns up
    command: str | None = None  # a command carrying it, when it is a command


def _pem(label: str) -> tuple[str, str]:
    body = "\n".join(_pick(B64, 64) for _ in range(6))
    return body, f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def _jwt() -> str:
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = b'{"sub":"user_4821","role":"admin","exp":1893456000}'
    payload = base64.urlsafe_b64encode(claims).decode().rstrip("=")
    return f"{header}.{payload}.{_pick(URLSAFE, 43)}"


ANTHROPIC = f"sk-ant-api03-{_pick(URLSAFE, 93)}AA"
OPENAI_LEGACY = f"sk-{_pick(ALNUM, 48)}"
OPENAI_PROJECT = f"sk-proj-{_pick(URLSAFE, 120)}"
AWS_ID = f"AKIA{_pick(UPPER_DIGITS, 16)}"
AWS_SECRET = _pick(B64, 40)
GITHUB_CLASSIC = f"ghp_{_pick(ALNUM, 36)}"
GITHUB_FINE = f"github_pat_{_pick(ALNUM, 22)}_{_pick(ALNUM, 59)}"
GITHUB_APP = f"ghs_{_pick(ALNUM, 36)}"
GITLAB = f"glpat-{_pick(URLSAFE, 20)}"
_SLACK_TEAM, _SLACK_BOT_ID = _rng.randrange(10**11, 10**12), _rng.randrange(10**12, 10**13)
SLACK_BOT = f"xoxb-{_SLACK_TEAM}-{_SLACK_BOT_ID}-{_pick(ALNUM, 24)}"
SLACK_HOOK = f"T{_pick(UPPER_DIGITS, 8)}/B{_pick(UPPER_DIGITS, 10)}/{_pick(ALNUM, 24)}"
STRIPE_LIVE = f"sk_live_{_pick(ALNUM, 99)}"
STRIPE_TEST = f"sk_test_{_pick(ALNUM, 24)}"
STRIPE_WEBHOOK = f"whsec_{_pick(ALNUM, 32)}"
GOOGLE_API = f"AIza{_pick(URLSAFE, 35)}"
GOOGLE_OAUTH = f"ya29.{_pick(URLSAFE, 150)}"
GOOGLE_CLIENT_SECRET = f"GOCSPX-{_pick(URLSAFE, 28)}"
NPM = f"npm_{_pick(ALNUM, 36)}"
PYPI = f"pypi-AgEIcHlwaS5vcmc{_pick(URLSAFE, 140)}"
JWT = _jwt()
BEARER = _pick(URLSAFE, 40)
BASIC_PASSWORD = f"Vx{_pick(ALNUM, 14)}"
BASIC = base64.b64encode(f"deploy:{BASIC_PASSWORD}".encode()).decode()
DB_PASSWORD = f"pg_{_pick(ALNUM, 18)}"
REDIS_PASSWORD = _pick(ALNUM, 24)
PLAIN_PASSWORD = "Tr0ub4dor&3x"  # a human password: low entropy, only its position gives it away
YAML_PASSWORD = "correct-horse-battery-9"
CURL_PASSWORD = "s3cret-Pa55"
MYSQL_PASSWORD = "mysql_R00t_pw"
DJANGO_KEY = f"django-insecure-{_pick(ALNUM + '!@#%^&*(-_=+)', 50)}".replace("'", "")
SIGNING_SALT = _pick(ALNUM, 32)
RSA_BODY, RSA_PEM = _pem("RSA PRIVATE KEY")
SSH_BODY, SSH_PEM = _pem("OPENSSH PRIVATE KEY")
NPMRC_TOKEN = _pick(ALNUM, 36)


SECRETS: tuple[Secret, ...] = (
    Secret(
        "anthropic",
        ANTHROPIC,
        f"anthropic.AuthenticationError: Error code: 401 - invalid x-api-key {ANTHROPIC}",
        f"ANTHROPIC_API_KEY={ANTHROPIC} python scripts/summarise.py",
    ),
    Secret(
        "openai legacy",
        OPENAI_LEGACY,
        f"openai.AuthenticationError: Incorrect API key provided: {OPENAI_LEGACY}.",
    ),
    Secret(
        "openai project",
        OPENAI_PROJECT,
        f"curl -sS https://api.openai.com/v1/models -H 'Authorization: Bearer {OPENAI_PROJECT}'",
        f"curl -sS https://api.openai.com/v1/models -H 'Authorization: Bearer {OPENAI_PROJECT}'",
    ),
    Secret(
        "aws key id",
        AWS_ID,
        f"An error occurred (InvalidAccessKeyId) when calling the ListBuckets operation: "
        f"The AWS Access Key Id {AWS_ID} you provided does not exist in our records.",
    ),
    Secret(
        "aws secret (env prefix)",
        AWS_SECRET,
        f"AWS_ACCESS_KEY_ID={AWS_ID} AWS_SECRET_ACCESS_KEY={AWS_SECRET} aws s3 ls s3://shop-prod",
        f"AWS_ACCESS_KEY_ID={AWS_ID} AWS_SECRET_ACCESS_KEY={AWS_SECRET} aws s3 ls s3://shop-prod",
    ),
    Secret(
        "aws secret (credentials file)",
        AWS_SECRET,
        f"[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}\n",
    ),
    Secret(
        "github classic",
        GITHUB_CLASSIC,
        f"remote: Invalid username or password.\nfatal: Authentication failed for "
        f"'https://{GITHUB_CLASSIC}@github.com/acme/shop.git/'",
        f"git push https://{GITHUB_CLASSIC}@github.com/acme/shop.git main",
    ),
    Secret(
        "github fine-grained",
        GITHUB_FINE,
        f"GH_TOKEN={GITHUB_FINE} gh pr create --fill",
        f"GH_TOKEN={GITHUB_FINE} gh pr create --fill",
    ),
    Secret(
        "github app",
        GITHUB_APP,
        f'{{"message": "Bad credentials", "token": "{GITHUB_APP}"}}',
    ),
    Secret(
        "gitlab",
        GITLAB,
        f'curl --header "PRIVATE-TOKEN: {GITLAB}" https://gitlab.example.com/api/v4/projects',
        f'curl --header "PRIVATE-TOKEN: {GITLAB}" https://gitlab.example.com/api/v4/projects',
    ),
    Secret(
        "slack bot",
        SLACK_BOT,
        f"slack_sdk.errors.SlackApiError: invalid_auth (token={SLACK_BOT})",
    ),
    Secret(
        "slack webhook",
        SLACK_HOOK,
        f'curl -X POST -d \'{{"text":"deploy done"}}\' https://hooks.slack.com/services/{SLACK_HOOK}',
        f'curl -X POST -d \'{{"text":"deploy done"}}\' https://hooks.slack.com/services/{SLACK_HOOK}',
    ),
    Secret(
        "stripe live",
        STRIPE_LIVE,
        f"stripe.error.AuthenticationError: Invalid API Key provided: {STRIPE_LIVE}",
    ),
    Secret(
        "stripe test",
        STRIPE_TEST,
        f"STRIPE_KEY={STRIPE_TEST} pytest tests/test_billing.py",
        f"STRIPE_KEY={STRIPE_TEST} pytest tests/test_billing.py",
    ),
    Secret(
        "stripe webhook",
        STRIPE_WEBHOOK,
        f"stripe listen --forward-to localhost:8000/hooks\nReady! Your webhook signing secret is "
        f"{STRIPE_WEBHOOK} (^C to quit)",
    ),
    Secret(
        "google api key",
        GOOGLE_API,
        f"google.api_core.exceptions.PermissionDenied: 403 API key not valid. key={GOOGLE_API}",
    ),
    Secret(
        "google oauth token",
        GOOGLE_OAUTH,
        f"requests.exceptions.HTTPError: 401 Client Error for url "
        f"https://www.googleapis.com/drive/v3/files?access_token={GOOGLE_OAUTH}",
    ),
    Secret(
        "google client secret",
        GOOGLE_CLIENT_SECRET,
        f'{{"installed": {{"client_id": "1234.apps.googleusercontent.com", '
        f'"client_secret": "{GOOGLE_CLIENT_SECRET}"}}}}',
    ),
    Secret(
        "npm token",
        NPM,
        f"npm error code E401\nnpm error Unable to authenticate, need: Bearer {NPM}",
    ),
    Secret(
        "npmrc auth token",
        NPMRC_TOKEN,
        f"//registry.npmjs.org/:_authToken={NPMRC_TOKEN}",
    ),
    Secret(
        "pypi token",
        PYPI,
        f"twine upload -u __token__ -p {PYPI} dist/*",
        f"twine upload -u __token__ -p {PYPI} dist/*",
    ),
    Secret(
        "jwt",
        JWT,
        f"jwt.exceptions.ExpiredSignatureError: Signature has expired: {JWT}",
    ),
    Secret(
        "bearer header",
        BEARER,
        f"> GET /v1/orders HTTP/1.1\n> Authorization: Bearer {BEARER}\n< HTTP/1.1 401 Unauthorized",
    ),
    Secret(
        "basic header",
        BASIC,
        f"> Authorization: Basic {BASIC}\n< HTTP/1.1 403 Forbidden",
    ),
    Secret(
        "database url",
        DB_PASSWORD,
        f'psql: error: connection to server failed: "postgresql://shop:{DB_PASSWORD}@db.internal'
        f':5432/shop" FATAL:  password authentication failed for user "shop"',
        f"psql postgresql://shop:{DB_PASSWORD}@db.internal:5432/shop -c 'select 1'",
    ),
    Secret(
        "redis url",
        REDIS_PASSWORD,
        f"redis.exceptions.AuthenticationError: invalid password for "
        f"redis://default:{REDIS_PASSWORD}@cache:6379/0",
    ),
    Secret(
        "pgpassword prefix",
        PLAIN_PASSWORD,
        f"PGPASSWORD='{PLAIN_PASSWORD}' psql -h db.internal -U shop -c 'select 1'",
        f"PGPASSWORD='{PLAIN_PASSWORD}' psql -h db.internal -U shop -c 'select 1'",
    ),
    Secret(
        "password assignment",
        PLAIN_PASSWORD,
        f"export DB_PASSWORD={PLAIN_PASSWORD}",
    ),
    Secret(
        "json password",
        PLAIN_PASSWORD,
        f'AssertionError: assert {{"user": "admin", "password": "{PLAIN_PASSWORD}"}} == {{}}',
    ),
    Secret(
        "yaml password",
        YAML_PASSWORD,
        f"E   yaml config:\nE     database:\nE       password: {YAML_PASSWORD}\nE       host: db",
    ),
    Secret(
        "mysql flag",
        MYSQL_PASSWORD,
        f"mysql --user=root --password={MYSQL_PASSWORD} shop < dump.sql",
        f"mysql --user=root --password={MYSQL_PASSWORD} shop < dump.sql",
    ),
    Secret(
        "curl user",
        CURL_PASSWORD,
        f"curl -fsS -u admin:{CURL_PASSWORD} https://ci.example.com/api/json",
        f"curl -fsS -u admin:{CURL_PASSWORD} https://ci.example.com/api/json",
    ),
    Secret(
        "django secret key",
        DJANGO_KEY,
        f"SECRET_KEY = '{DJANGO_KEY}'",
    ),
    Secret(
        "high-entropy value",
        SIGNING_SALT,
        f'KeyError: settings {{"signing_salt": "{SIGNING_SALT}", "debug": false}}',
    ),
    Secret(
        "rsa private key",
        RSA_BODY.splitlines()[2],
        f"ValueError: could not parse key:\n{RSA_PEM}\n",
    ),
    Secret(
        "openssh private key",
        SSH_BODY.splitlines()[4],
        f"$ cat ~/.ssh/deploy_key\n{SSH_PEM}\nPermission denied (publickey).",
    ),
)


# Text that looks a little like a secret and is not one: it must come out unchanged.
NEGATIVES: tuple[str, ...] = (
    "commit 3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345",
    "HEAD is now at 9fceb02 Fix the cart total rounding",
    "Merge: 1a2b3c4 5d6e7f8",
    "error: failed to push some refs to 'github.com:acme/shop.git' "
    "(a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0)",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "request_id=123e4567-e89b-12d3-a456-426614174000 failed",
    "uuid: 550e8400-e29b-41d4-a716-446655440000",
    '"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR7h'
    'qbQhbgXIB6Nbg=="',
    "integrity sha512-Dl6RNPOdjSL0XN3r2cIY6mVeeY7ZC+eMkNadXzI+dTcx5Jd7D5hX6jL1vF6iL5o9Wmz8P2i0nDy+"
    "T4TRwA==",
    '"resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz"',
    'payload = "SGVsbG8sIHdvcmxkISBUaGlzIGlzIHRlc3QgZGF0YQ=="',
    "expected = 'eyBuYW1lOiAiYWxpY2UiLCBhZ2U6IDMwIH0='",
    'fixture: "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw=="',
    "AssertionError: assert 'token expired' == 'token valid'",
    "FAILED tests/test_auth.py::test_password_reset - AssertionError",
    "def login(username: str, password: str) -> Token:",
    "token: str = Field(..., description='the session token')",
    "password = os.environ['DB_PASSWORD']",
    'api_key = os.getenv("STRIPE_KEY")',
    "PGPASSWORD=$DB_PASSWORD psql -h localhost",
    "env: TOKEN=${{ secrets.NPM_TOKEN }}",
    "secret: <your-secret-here>",
    "password: ********",
    "max_tokens=4096 input_tokens: 52 output_tokens: 1024",
    "sorted(rows, key=lambda r: r.created_at)",
    "primary_key=True, index=True",
    "PWD=/home/dev/project OLDPWD=/home/dev",
    "version: 3.12.1 python_requires: >=3.9",
    "src/components/PaymentForm/PaymentForm.test.tsx:42:7",
    "at Object.<anonymous> (/home/dev/shop/src/api/client.ts:18:11)",
    "ModuleNotFoundError: No module named 'authlib'",
    "npm error code ERESOLVE could not resolve dependency: peer react@18.2.0",
    "The password authentication failed because the password is wrong.",
    "Basic usage: pokayokay remember TEXT",
    "Bearer authentication is required for this endpoint",
    "FAIL src/auth/token.test.ts > refreshes an expired token",
    "docker: Error response from daemon: pull access denied for shop-api",
    "https://github.com/acme/shop/pull/1234/files",
    "postgresql://localhost:5432/shop_test",
    "redis://cache:6379/0",
    "cache_key=user:42:profile",
    "session_id: 0ebb4b7c-7011-44b6-afdb-8302b6c943e8",
    "tool_use_id: toolu_01ABCDEF2345",
    "E501 Line too long (104 > 100)",
    'mypy: error: Argument 1 to "charge" has incompatible type "str"; expected "int"  [arg-type]',
    "author: Jane Doe <jane@example.com>",
    "Authorization header missing",
    "the_quick_brown_fox_jumps_over_the_lazy_dog_42",
    "ok  \tgithub.com/acme/billing/internal/invoice\t0.012s",
    "secrets: inherit",
)
