"""Hypothesis strategies for secrets in the shapes that leaked (issue 25), and for the public
look-alikes redaction must leave alone.

:func:`leaky_cases` draws a :class:`Leak`: a command and a tool output carrying generated
secrets in one of the shapes the attack study found passing redaction: a password in a
program's own flag (``mysql -p…``, ``sshpass -p``, ``docker login -p``, ``htpasswd -b`` …), a
URL with credentials (``redis://:pw@host``, JSON-escaped slashes), a JSON value (escaped quotes
when the JSON sits in a string, docker's ``"auth"``), a private key cut off at its BEGIN line or
at both ends, a token encoded in base64 or hex, and a provider token wrapped across lines. Each
case lists every string that must never appear in anything pokayokay keeps or shows.

:func:`public_lookalikes` draws text that only looks like a secret: lockfile integrity hashes
(``package-lock.json``, ``yarn.lock``, ``pnpm-lock.yaml``, ``poetry.lock``, ``uv.lock``,
``Cargo.lock``, ``go.sum``'s ``h1:``, pip's ``--hash=sha256:``, NuGet's ``contentHash``), UUIDs,
git SHAs, image digests and ordinary code.
"""

from __future__ import annotations

import base64
import os
import random
import string
from pathlib import Path
from typing import NamedTuple

from hypothesis import strategies as st

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
# Password characters that stand bare in a shell word and in a URL's password.
PASSWORD_CHARS = ALNUM + "!%^*_+=.~-"


class Leak(NamedTuple):
    shape: str  # which family of shapes (the test's statistics group by it)
    command: str  # the command that ran
    output: str  # what it printed (the error Claude Code reports)
    secrets: tuple[str, ...]  # every string that must never be kept or shown


# A random source Hypothesis seeds: one drawn integer (reproducible, derandomized in CI).
_rngs = st.integers(0, 2**64 - 1).map(random.Random)


def _mixed(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _run(alphabet: str, size: int) -> st.SearchStrategy[str]:
    """``size`` characters of ``alphabet`` from a random source Hypothesis seeds: a generated
    credential is random (a shrunk ``000…0a`` would equal text found anywhere). One drawn seed,
    not one draw per character: Hypothesis's per-call random cost a draw for every character,
    most of what generating a case took."""
    return _rngs.map(lambda rng: _random_run(rng, alphabet, size))


def _random_run(rng: random.Random, alphabet: str, size: int) -> str:
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(size))
        if _mixed(value):
            return value


@st.composite
def passwords(draw: st.DrawFn, chars: str = PASSWORD_CHARS) -> str:
    """A password: 10 to 28 random letters and digits (with at least one of each) and up to
    three of ``chars`` that Hypothesis chooses and places, never first (a flag or a variable
    starts so)."""
    size = draw(st.integers(10, 28))
    body = list(draw(_run(ALNUM, size)))
    for _ in range(draw(st.integers(0, 3))):
        body.insert(draw(st.integers(1, len(body))), draw(st.sampled_from(chars)))
    return "".join(body)


@st.composite
def provider_tokens(draw: st.DrawFn) -> str:
    """A token of a provider's documented shape (the prefix makes it findable alone)."""
    kind = draw(st.sampled_from(["github", "anthropic", "openai", "aws", "gitlab", "slack",
                                 "google", "npm", "stripe", "huggingface", "digitalocean",
                                 "jwt"]))  # fmt: skip
    if kind == "github":
        return "ghp_" + draw(_run(ALNUM, 36))
    if kind == "anthropic":
        return "sk-ant-api03-" + draw(_run(URLSAFE, 93)) + "AA"
    if kind == "openai":
        return "sk-proj-" + draw(_run(URLSAFE, 64))
    if kind == "aws":
        return "AKIA" + draw(_run(string.ascii_uppercase + "234567", 16))
    if kind == "gitlab":
        return "glpat-" + draw(_run(URLSAFE, 20))
    if kind == "slack":
        team = draw(st.integers(10**10, 10**11 - 1))
        return f"xoxb-{team}-{team + 7}-" + draw(_run(ALNUM, 24))
    if kind == "google":
        return "AIza" + draw(_run(URLSAFE, 35))
    if kind == "npm":
        return "npm_" + draw(_run(ALNUM, 36))
    if kind == "stripe":
        return "sk_live_" + draw(_run(ALNUM, 24))
    if kind == "huggingface":
        return "hf_" + draw(_run(ALNUM, 34))
    if kind == "digitalocean":
        return "dop_v1_" + draw(_run(HEX, 64))
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = base64.urlsafe_b64encode(b'{"sub":"u1","exp":1893456000}').decode().rstrip("=")
    return f"{header}.{claims}." + draw(_run(URLSAFE, 43))


# --- the shapes -------------------------------------------------------------------------------

_FLAG_COMMANDS = (
    "mysql -h db.internal -u root -p{pw} shop -e 'select 1'",
    "mysql -uroot -p'{pw}' shop < schema.sql",
    'mysqldump --single-transaction -uadmin -p"{pw}" shop > dump.sql',
    "mariadb -u app -p{pw} -e 'show tables' shop",
    "mysqladmin -u root -p{pw} status",
    "sshpass -p '{pw}' ssh deploy@10.0.0.4 'systemctl restart app'",
    "sshpass -p{pw} scp build.tar.gz deploy@10.0.0.4:/srv",
    "sshpass -p {pw} rsync -a dist/ deploy@web:/srv/app",
    "docker login -u ci-bot -p {pw} registry.example.com",
    "docker login registry.example.com --username ci-bot -p '{pw}'",
    "podman login -u ci-bot -p {pw} quay.io",
    "echo {pw} | docker login -u ci-bot --password-stdin ghcr.io",
    'echo "{pw}" | helm registry login -u bot --password-stdin oci.example.com',
    "htpasswd -b -c deploy/.htpasswd admin {pw}",
    "htpasswd -bB .htpasswd alice '{pw}'",
    "htpasswd -nbB admin {pw} > auth.txt",
    "redis-cli -h cache.internal -a {pw} ping",
    "redis-cli --pass {pw} -n 2 keys 'session:*'",
    "mongosh -u admin -p {pw} --authenticationDatabase admin shop",
    "sqlcmd -S db.internal -U sa -P {pw} -Q 'select 1'",
    "ldapsearch -x -D cn=admin,dc=example,dc=com -w {pw} -b dc=example,dc=com",
    "openssl pkcs12 -in cert.p12 -nodes -passin pass:{pw}",
    "mysql --user=root --password={pw} shop",
    "PGPASSWORD={pw} psql -h db.internal -U shop -c 'select 1'",
    "MYSQL_PWD='{pw}' mysql -u root shop",
)
_FLAG_ERRORS = (
    "ERROR 1045 (28000): Access denied for user 'root'@'10.0.0.9' (using password: YES)",
    "Permission denied, please try again.",
    'Error response from daemon: Get "https://registry.example.com/v2/": unauthorized',
    "htpasswd: cannot create file deploy/.htpasswd",
    "AUTH failed: WRONGPASS invalid username-password pair or user is disabled.",
    "MongoServerError: Authentication failed.",
    "Login failed for user 'sa'.",
    "ldap_bind: Invalid credentials (49)",
    "Mac verify error: invalid password?",
)


@st.composite
def flag_cases(draw: st.DrawFn) -> Leak:
    password = draw(passwords())
    command = draw(st.sampled_from(_FLAG_COMMANDS)).format(pw=password)
    error = draw(st.sampled_from(_FLAG_ERRORS))
    echoed = draw(st.booleans())  # set -x echoes the command into the output
    output = (f"+ {command}\n" if echoed else "") + error
    return Leak("flag", command, output, (password,))


_SCHEMES = ("postgres", "postgresql", "mysql", "redis", "rediss", "amqp", "mongodb+srv",
            "https", "ftp", "mssql")  # fmt: skip


@st.composite
def url_cases(draw: st.DrawFn) -> Leak:
    password = draw(passwords(ALNUM + "!*_+=.~-"))
    scheme = draw(st.sampled_from(_SCHEMES))
    user = draw(st.sampled_from(["", "", "app", "default", "ci-bot", "shop_rw"]))
    host = draw(st.sampled_from(["db.internal:5432/shop", "cache:6379/0", "10.0.0.4", "mq:5672"]))
    url = f"{scheme}://{user}:{password}@{host}"
    how = draw(st.sampled_from(["plain", "json", "env", "trace"]))
    if how == "json":  # a JSON document printed by a tool: the slashes escaped
        output = '{"level":"error","dsn":"' + url.replace("/", "\\/") + '","msg":"refused"}'
    elif how == "env":
        output = f"DATABASE_URL={url}\nconnection refused"
    elif how == "trace":
        output = (
            'Traceback (most recent call last):\n  File "app.py", line 3\n'
            f"OperationalError: could not connect to {url}"
        )
    else:
        output = f"Error: connect ECONNREFUSED {url}"
    command = draw(st.sampled_from([f"psql '{url}' -c 'select 1'", "python manage.py migrate",
                                    f"redis-cli -u {url} ping", "npm run db:migrate"]))  # fmt: skip
    return Leak("url", command, output, (password,))


_JSON_KEYS = ("password", "db_password", "client_secret", "api_key", "token", "apiToken",
              "secret", "accessKey", "private_key")  # fmt: skip


@st.composite
def json_cases(draw: st.DrawFn) -> Leak:
    key = draw(st.sampled_from(_JSON_KEYS))
    how = draw(st.sampled_from(["plain", "escaped", "unicode", "docker-auth", "yaml"]))
    if how == "docker-auth":
        user = draw(st.sampled_from(["ci-bot", "deploy", "admin"]))
        password = draw(passwords())
        value = base64.b64encode(f"{user}:{password}".encode()).decode()
        output = (
            "Error saving credentials: error storing credentials\n"
            '{"auths": {"registry.example.com": {"auth": "' + value + '"}}}'
        )
        return Leak("json", "docker push registry.example.com/shop:1.2", output, (value, password))
    password = draw(st.one_of(passwords(), provider_tokens()))
    if how == "plain":
        text = '{"user": "app", "' + key + '": "' + password + '", "port": 5432}'
    elif how == "escaped":  # JSON inside a JSON string (a log line's message field)
        text = (
            '{"msg": "config {\\"user\\": \\"app\\", \\"' + key + '\\": \\"' + password + '\\"}"}'
        )
    elif how == "unicode":  # a JSON string with escapes inside the secret's quotes
        text = '{"' + key + '": "' + password + '\\u0021", "ok": false}'
    else:
        text = f"config:\n  database:\n    {key}: {password}\n    host: db"
    command = draw(st.sampled_from(["cat config/settings.json", "kubectl get secret app -o json",
                                    "node scripts/check-config.js"]))  # fmt: skip
    return Leak("json", command, f"invalid configuration:\n{text}", (password,))


def _pem_lines(draw: st.DrawFn, width: int, count: int) -> list[str]:
    rng = draw(_rngs)
    return [_random_run(rng, B64, width) for _ in range(count)]


@st.composite
def pem_cases(draw: st.DrawFn) -> Leak:
    label, width = draw(st.sampled_from([("RSA PRIVATE KEY", 64), ("PRIVATE KEY", 64),
                                         ("EC PRIVATE KEY", 64), ("OPENSSH PRIVATE KEY", 70),
                                         ("ENCRYPTED PRIVATE KEY", 64)]))  # fmt: skip
    lines = _pem_lines(draw, width, draw(st.integers(3, 12)))
    cut = draw(st.integers(1, width - 8))
    how = draw(st.sampled_from(["no-begin", "middle", "no-begin-partial", "whole", "no-end"]))
    if how == "no-begin":  # the output was cut from the head, at a line start
        body = lines
        text = "\n".join(body) + f"\n-----END {label}-----"
    elif how == "no-begin-partial":  # ... or mid-line
        body = [lines[0][cut:], *lines[1:]]
        text = "\n".join(body) + f"\n-----END {label}-----"
    elif how == "middle":  # head and tail both cut
        body = [lines[0][cut:], *lines[1:-1], lines[-1][:cut]]
        text = "\n".join(body)
    elif how == "no-end":
        body = lines[:-1]
        text = f"-----BEGIN {label}-----\n" + "\n".join(body)
    else:
        body = lines
        text = f"-----BEGIN {label}-----\n" + "\n".join(body) + f"\n-----END {label}-----"
    secrets = tuple(piece for piece in body if len(piece) >= 12)
    output = f"Error: could not load the deploy key (cat ~/.ssh/deploy):\n{text}\nexit status 1"
    return Leak("pem", "ansible-playbook deploy.yml", output, secrets)


@st.composite
def encoded_cases(draw: st.DrawFn) -> Leak:
    token = draw(provider_tokens())
    how = draw(st.sampled_from(["base64", "base64url", "hex", "k8s"]))
    if how == "hex":
        encoded = token.encode().hex()
    elif how == "base64url":
        encoded = base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")
    else:
        encoded = base64.b64encode(token.encode()).decode()
    if how == "k8s":
        output = f"apiVersion: v1\nkind: Secret\ndata:\n  GH: {encoded}\nerror: field is immutable"
        command = "kubectl apply -f k8s/secret.yaml"
    else:
        output = f"decoded header value {encoded} rejected: 401 Unauthorized"
        command = f"echo {encoded} | base64 -d | gh auth login --with-token"
    return Leak("encoded", command, output, (encoded, token))


@st.composite
def split_cases(draw: st.DrawFn) -> Leak:
    token = draw(provider_tokens())
    joiner = draw(st.sampled_from(["\n", "\r\n", "\n  ", "\\\n  ", "\n> "]))
    width = draw(st.integers(8, max(8, len(token) - 8)))
    pieces = [token[i : i + width] for i in range(0, len(token), width)]
    if len(pieces[-1]) < 8:  # every piece long enough to be a leak on its own
        pieces[-2:] = [pieces[-2] + pieces[-1]]
    lead = draw(st.sampled_from(["Authorization failed for token ", "export GH_TOKEN=",
                                 "using credentials ", ""]))  # fmt: skip
    output = f"request failed\n{lead}{joiner.join(pieces)}\n401 Unauthorized"
    # A piece is a leak on its own when it holds letters and digits: one Hypothesis shrank to
    # zeros ("00000000") is found in any file that pads a number, and says nothing of the token.
    # The whole token is always looked for.
    return Leak("split", "gh release create v1.2.0", output,
                (token, *(piece for piece in pieces if _mixed(piece))))  # fmt: skip


def leaky_cases() -> st.SearchStrategy[Leak]:
    """Every family, equally likely."""
    return st.one_of(flag_cases(), url_cases(), json_cases(), pem_cases(), encoded_cases(),
                     split_cases())  # fmt: skip


# --- public look-alikes -------------------------------------------------------------------------


@st.composite
def public_lookalikes(draw: st.DrawFn) -> str:
    """One line (or a few) of public text that has the look of a secret. Its hashes and
    digests are random, as real ones are, from one drawn seed (not a draw per character)."""
    rng = draw(_rngs)
    hexes = lambda n: "".join(rng.choice(HEX) for _ in range(n))  # noqa: E731
    name = draw(st.sampled_from(["lodash", "react-dom", "@types/node", "left-pad", "zod"]))
    version = f"{draw(st.integers(0, 20))}.{draw(st.integers(0, 40))}.{draw(st.integers(0, 9))}"
    uuid = f"{hexes(8)}-{hexes(4)}-4{hexes(3)}-a{hexes(3)}-{hexes(12)}"
    kind = draw(st.integers(0, 17))
    shapes = [
        f'    "node_modules/{name}": {{\n      "version": "{version}",\n      "integrity": '
        f'"sha512-{_b64(rng, 64)}"\n    }},',
        f'{name}@^{version}:\n  version "{version}"\n  integrity sha512-{_b64(rng, 64)}',
        f"  /{name}@{version}:\n    resolution: {{integrity: sha512-{_b64(rng, 64)}}}",
        f'{{file = "{name}-{version}-py3-none-any.whl", hash = "sha256:{hexes(64)}"}},',
        f"{name}=={version} \\\n    --hash=sha256:{hexes(64)}",
        f'[[package]]\nname = "{name}"\nversion = "{version}"\nchecksum = "{hexes(64)}"',
        f"github.com/acme/{name} v{version} h1:{_b64(rng, 32)}",
        f"github.com/acme/{name} v{version}/go.mod h1:{_b64(rng, 32)}",
        f'"{name}/{version}": {{"type": "package", "contentHash": "{_b64(rng, 64)}"}}',
        f"commit {hexes(40)}\nAuthor: Jane Doe <jane@example.com>",
        f"HEAD is now at {hexes(7)} Fix the cart total",
        f'"sha": "{hexes(40)}", "tree": {{"sha": "{hexes(40)}"}}',
        f"request_id={uuid} status=500",
        f'{{"id": "{uuid}", "session_id": "{uuid}"}}',
        f"image: ghcr.io/acme/{name}@sha256:{hexes(64)}",
        f'"narHash": "sha256-{_b64(rng, 32)}"',
        f"    def total(self, items: list[Item], key: str = 'price') -> int:\n"
        f"        return sum(getattr(i, key) for i in items)  # {hexes(7)}",
        f"  - uses: actions/checkout@{hexes(40)} # v{version}",
    ]
    return shapes[kind]


def _b64(rng: random.Random, raw_size: int) -> str:
    return base64.b64encode(rng.randbytes(raw_size)).decode()


def files_under(*roots: Path) -> list[Path]:
    """Every file under ``roots`` but git's own (``.git``: pokayokay never writes there, and
    its logs hold all-zero hashes a generated piece may equal)."""
    found: list[Path] = []
    for root in roots:
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = [name for name in subfolders if name != ".git"]
            found.extend(Path(folder) / name for name in names)
    return found
