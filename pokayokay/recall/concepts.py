"""Recall's concept table and features (pure): what lets "add styles for the settings page" meet
a note about CSS modules, and "let users upload a 2 GB video" one about presigned S3 uploads.

A note and a prompt rarely share their words; they share what the words are about. Each line
of :data:`CONCEPTS` names a software concept and the words and phrases that evoke it. A text's
features are its terms (``pokayokay.recall.terms``) plus:

* one ``~concept`` feature per word or phrase of the text that evokes a concept (words are
  looked up as written, lower-cased, then without a plural ``s``: the table lists the forms it
  means, so "generate" is not "generated");
* one ``a+b`` feature per pair of adjacent terms (bigrams): sharing "test suite" says more than
  sharing "test" and "suite" apart.

The index weighs a concept feature :data:`CONCEPT_FACTOR` and a bigram :data:`BIGRAM_FACTOR` of
their IDF. The table is general software vocabulary (web, data, infra, testing, frontend,
payments, tooling), not one project's; ``tests/recall/test_recall_eval.py`` measures what it
buys on a labelled set and on prompts written after it was frozen.
"""

from __future__ import annotations

import re

from pokayokay.recall.terms import MAX_QUERY_CHARS, MAX_QUERY_TERMS, tokenize

CONCEPT_FACTOR = 1.0
BIGRAM_FACTOR = 0.5

CONCEPT_PREFIX = "~"
BIGRAM_JOIN = "+"

# One concept a line: "name: word word | a phrase | another phrase". Words are matched whole
# (lower-cased, or without a plural s); phrases as written, on the lower-cased text.
CONCEPTS = """
style: css scss sass less stylesheet stylesheets style styles styling styled tailwind colour
  colours color colors spacing padding margin margins font fonts theme theming | look and feel
upload: upload uploads uploaded uploading attach attaching attachment attachments presign
  presigned multipart dropzone
large: large huge big gb gigabyte gigabytes mb megabytes heavy
storage: s3 bucket buckets blob blobs gcs minio | object storage
video: video videos recording recordings lecture lectures footage transcode transcoding
  transcoded mediaconvert hls dash rendition renditions 4k 1080p 720p player streaming ffmpeg
schema: migration migrations migrate schema column columns field fields nullable alembic
  backfill | not null | alter table | add column | rename column | rename a field
required: required mandatory nullable | not null | non-null
compat: downtime backwards compatible compatibility compat legacy deprecated | zero downtime
  | backward compatible | old version | old versions | older version | old clients
twice: twice duplicate duplicates duplicated double idempotent idempotency redeliver
  redelivers redelivered redelivery dedupe deduplicate deduplicated replay replayed
  | two times | more than once | same email | sent again
background: celery task tasks job jobs worker workers queue queues broker rq dramatiq
  background asynchronously | background job | background task
email: email emails mail mails mailed mailing mailer smtp mjml newsletter inbox receipt
  receipts sendgrid ses postmark | welcome message | reset message | password reset
clock: clock freezegun freeze_time frozen morning night midnight evening | time travel
  | date dependent | date-dependent | current date | current time
timezone: timezone timezones tz utc zone zones dst tokyo sydney | local time | local hour
  | hour off | hours off | wrong day
payment: stripe payment payments billing charge charged charges charging invoice invoices
  subscription subscriptions renew renews renewal renewals refund refunds card cards checkout
  payout payouts paypal
webhook: webhook webhooks callback callbacks ipn | event notification
signature: signature signatures signed forged forge forgery spoof spoofed spoofing tamper
  tampered authentic authenticity verify verifying verified verification hmac
flag: flag flags beta launchdarkly unleash canary unfinished hide hidden
  | half done | half-done | dark launch | ship dark | behind a flag | staff only
  | only staff | early access | feature toggle | feature toggles
codegen: typescript codegen openapi swagger generated regenerate regenerated sdk gen
  | api client | generated client | out of date
frontend: react frontend front-end tsx jsx vite vue svelte browser ui component components
  widget widgets
query: sql query queries queryset querysets orm lookup lookups prefetch prefetch_related
  select_related n+1 | n + 1 | for every row | per row | each row | sql calls
slow: slow slower slowly performance latency speed faster timeout timeouts | speed up
  | takes forever | timed out | times out
secret: secret secrets credential credentials password passwords token tokens apikey .env
  dotenv vault | api key | api keys | private key | magic link | magic-link
container: docker dockerfile container containers compose podman kubernetes pod pods
compiler: gcc compiler compilers toolchain clang | build-essential
release: release releases released ship shipped shipping publish changelog semver
  | cut a release | new build | new release | roll out | rollout
cache: cache caching cached redis memcached ttl evict eviction | in-memory | in memory
capacity: quota full filled oom capacity space | ran out | out of memory | out of space
  | disk full
cost: bill bills cost costs expensive spend spending pricey budget | exploded
log: log logs logging logged logger structlog output dump tracing
  | log line | log lines
payload: payload payloads body bodies serializer serializers response responses dto
  | request body | request bodies | incoming data
monitoring: sentry monitoring apm datadog newrelic traces tracing rollbar honeycomb alert
  alerts | error tracking | error monitoring
template: template templates wording copy footer header headers jinja handlebars
i18n: translation translations translate translated localise localize localised localized
  localisable localizable localisation localization i18n l10n gettext locale locales
  language languages english spanish french german italian portuguese japanese
ci: ci pipeline pipelines workflow workflows yaml yml runner runners | github actions
  | ci job
thirdparty: marketplace community plugin plugins vendor third-party | third party
  | external action
pin: pin pinned pinning sha digest @v1 @v2 @v3 @v4 | moved tag | version tag
infra: terraform infrastructure infra iac bucket buckets vpc provision provisioning
  cloudformation pulumi
  aws gcp azure dns | load balancer | load balancers
permission: permission permissions access authorization authorize authorized admin admins
  role roles restrict restricted forbidden allowany | only admins
  | who can
pagination: pagination paginate paginated scroll scrolling cursor infinite
  | at a time | per page | next page | page size
money: money price prices pricing amount amounts cents currency currencies decimal float
  floats rounding discount discounts total totals euro euros dollar dollars
clientdata: tanstack redux fetch fetching refetch refetching swr zustand mobx fresh stale
  invalidate | react query | client side | client-side | server data | server state
e2e: playwright cypress selenium browser e2e flow flows journey journeys | end-to-end
  | end to end | ui test
  | journey checks | ui journey
seed: seed seeds seeded seeding fixture fixtures demo | sample data | test data
search: search searching searches find finder opensearch elasticsearch solr meilisearch
  algolia reindex matches | full-text | full text
ratelimit: ratelimit throttle throttling throttled brute bruteforce 429 lockout attempts
  | rate limit | rate limiting | too many requests | brute force | brute forcing
login: login logins signin signup oauth sso google github saml auth | log in | sign in
  | sign-in | sign up | sign-up | social login | social sign-in
bulk: bulk batch batches mass insert inserts bulk_create
  | many rows | in one go
mobile: mobile ios android phone phones app apps tablet | mobile app | phone client
legacy: legacy old deprecated v1 outdated
formatter: formatter formatting ruff black isort flake8 prettier eslint lint linter linting
  pyproject | auto-style | auto style | code style | sort imports | sorts imports
  | import order
local: localhost laptop | my machine | my laptop | local dev | local development
  | dev environment
tls: https tls ssl certificate certificates cert certs mkcert insecure secure
image: image images picture pictures photo photos avatar avatars thumbnail thumbnails
  cover crop cropped resize resized resizing preview previews pillow png jpeg jpg
schedule: schedule schedules scheduled scheduler cron crontab periodic recurring nightly
  hourly daily weekly beat | every night | every day | every hour | every morning
  | every week
a11y: keyboard accessibility accessible a11y mouse focus aria clickable dialog dialogs
  modal modals | screen reader | tab order
upgrade: upgrade upgrades upgrading upgraded bump bumping framework deprecation
  deprecations | major version | next version
index: index indexes indices indexed composite concurrently btree | speed up lookups
realtime: websocket websockets realtime real-time live chat channels socket sockets sse
  daphne | live updates | push notifications
export: export exports exported exporting download downloads spreadsheet spreadsheets csv
  excel xlsx report reports
timeout: timeout timeouts 504 502 gateway | timed out | times out | time out
hotfix: hotfix hotfixes urgent emergency outage incident trunk main master
  | production is down | prod is down | straight to
compare: compare comparison comparing equality constant-time timing
  | compare_digest | constant time
storybook: storybook story stories reusable shared designers visually visual
  | design system
dates: date dates day days datetime dayjs moment date-fns intl deadline deadlines
  january february march april may june july august september october november december
deps: dependency dependencies package packages npm pip renovate dependabot lockfile
  outdated latest axios lodash | package.json | requirements.txt
tests: pytest unittest | test suite | test runner
python_env: venv virtualenv interpreter conda poetry pipenv | virtual environment
  | system python
"""


_WORD = re.compile(r"[a-z0-9][a-z0-9_.+@:-]*[a-z0-9+]|[a-z0-9]")


class _Table:
    __slots__ = ("words", "phrases", "longest")

    def __init__(
        self, words: dict[str, tuple[str, ...]], phrases: dict[tuple[str, ...], str]
    ) -> None:
        self.words = words
        self.phrases = phrases
        self.longest = max((len(p) for p in phrases), default=0)


_table: _Table | None = None


def _load() -> _Table:
    """The table, parsed once per process: words to concepts, and phrases as tuples of words
    (looked up over the text's words, no regular expression to compile on the prompt path)."""
    global _table
    if _table is not None:
        return _table
    words: dict[str, list[str]] = {}
    phrases: dict[tuple[str, ...], str] = {}
    current = ""
    for raw in CONCEPTS.splitlines():
        if not raw.strip():
            continue
        line = raw
        if not raw.startswith(" "):
            current, _, line = raw.partition(":")
            current = current.strip()
        for i, part in enumerate(line.split("|")):
            part = part.strip().lower()
            if not part:
                continue
            tokens = tuple(_WORD.findall(part)) if i else ()
            if i and len(tokens) > 1:
                phrases.setdefault(tokens, current)
                continue
            for word in tokens or part.split():  # before the first "|": words
                found = words.setdefault(word, [])
                if current not in found:
                    found.append(current)
    _table = _Table({w: tuple(c) for w, c in words.items()}, phrases)
    return _table


def concepts(text: str) -> list[tuple[str, str]]:
    """``(concept, evoking word or phrase)`` for every word or phrase of ``text`` that evokes a
    concept, in order (a word of several concepts once for each)."""
    table = _load()
    tokens = _WORD.findall(text.lower())
    found: list[tuple[str, str]] = []
    for word in tokens:
        hit = table.words.get(word)
        if hit is None and len(word) > 3 and word.endswith("s"):
            hit = table.words.get(word[:-1])
        if hit is None and ("-" in word or "." in word or "_" in word):
            for part in _PARTS.split(word):
                found.extend((c, part) for c in table.words.get(part, ()))
            continue
        if hit is not None:
            found.extend((c, word) for c in hit)
    if table.longest:
        phrases = table.phrases
        for i in range(len(tokens) - 1):
            for n in range(2, min(table.longest, len(tokens) - i) + 1):
                key = tuple(tokens[i : i + n])
                concept = phrases.get(key)
                if concept is not None:
                    found.append((concept, " ".join(key)))
    return found


_PARTS = re.compile(r"[-._]")


def features(text: str) -> dict[str, int]:
    """Terms, bigrams of adjacent terms and concepts of ``text``, with their counts."""
    counts: dict[str, int] = {}
    previous = ""
    for term in tokenize(text):
        counts[term] = counts.get(term, 0) + 1
        if previous and previous != term:
            pair = previous + BIGRAM_JOIN + term
            counts[pair] = counts.get(pair, 0) + 1
        previous = term
    for concept, _word in concepts(text):
        key = CONCEPT_PREFIX + concept
        counts[key] = counts.get(key, 0) + 1
    return counts


class Query:
    """A prompt's features, and for each concept the terms of the words that evoked it (so that
    a word matched both as itself and through its concept counts once as evidence)."""

    __slots__ = ("counts", "evokers")

    def __init__(self, counts: dict[str, int], evokers: dict[str, frozenset[str]]) -> None:
        self.counts = counts
        self.evokers = evokers


def query_features(prompt: str) -> Query:
    """:func:`features` of a prompt, within the work caps, with the concepts' evoking terms."""
    text = prompt[:MAX_QUERY_CHARS]
    counts = features(text)
    if len(counts) > MAX_QUERY_TERMS:
        counts = dict(list(counts.items())[:MAX_QUERY_TERMS])
    evokers: dict[str, set[str]] = {}
    for concept, word in concepts(text):
        terms = tokenize(word)
        # a word counts as its term (the same word matched as itself is no more evidence);
        # a phrase as one piece of evidence
        evoker = terms[0] if len(terms) == 1 else f"{CONCEPT_PREFIX}{word}"
        evokers.setdefault(CONCEPT_PREFIX + concept, set()).add(evoker)
    return Query(counts, {k: frozenset(v) for k, v in evokers.items()})


def factor(term: str) -> float:
    """How much of its IDF a feature weighs (before the weak-word factor)."""
    if term.startswith(CONCEPT_PREFIX):
        return CONCEPT_FACTOR
    if BIGRAM_JOIN in term and not term.startswith(BIGRAM_JOIN):
        return BIGRAM_FACTOR
    return 1.0
