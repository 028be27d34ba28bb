"""Recall's concept table (pure data): one software concept a line and the words and phrases
that evoke it, parsed by :mod:`pokayokay.recall.concepts` (which documents the format and the
ambiguity mark ``?``).

Written from general software vocabulary (each concept's everyday synonyms, symptoms, verbs
and the tools that imply it), not from one project's notes or prompts. A word marked ``?`` is
ambiguous: alone it is no evidence. Every addition was checked on the labelled sets
(``python tests/helpers/recall_eval.py``): none may cost a set any silence.
"""

from __future__ import annotations

__all__ = ["CONCEPTS"]

# One concept a line: "name: word word | a phrase | another phrase". Words are matched whole
# (lower-cased, or without a plural s); phrases as written, on the lower-cased text.
CONCEPTS = """
style: css scss sass ?less stylesheet stylesheets ?style styles styling styled tailwind
  ?colour ?colours ?color ?colors spacing padding margin margins font fonts ?theme ?theming
  flexbox ?layout ?align ?alignment ?border ?borders ?shadow hover typography ?responsive
  | look and feel | dark mode | light mode
  ?rounded ?corner ?corners border-radius ?radius gradient
  gradients opacity ?bold ?italic ?underline ?centered ?centre ?center ?grid ?animation
  ?animations ?transition ?palette ?breakpoint ?breakpoints ?width ?height ?pixel ?pixels
  ?px ?rem | background colour | background color | font size | line height | media query
  | box shadow | drop shadow | rounded corners | text colour | text color
upload: upload uploads uploaded uploading ?attach ?attaching attachment attachments presign
  presigned multipart dropzone | drag and drop | file picker
  ?ingest | drag-and-drop | file upload | upload form | send files
  | attach files | accepts the file | accept the file | receives the file | receive the file
  | accepts files | accept files | receives files | put files | the file from the browser
large: ?large ?huge ?big ?heavy ?massive ?giant gb gigabyte gigabytes mb megabytes
  ?millions ?thousands ?enormous ?oversized | too big | too large | way too big
storage: s3 ?bucket ?buckets ?blob ?blobs gcs minio | object storage
video: video videos ?recording ?recordings ?lecture ?lectures footage transcode transcoding
  transcoded mediaconvert hls ?dash rendition renditions 4k 8k 1080p 1440p 2160p 720p
  ?player playback ?streaming ffmpeg bitrate ?resolution | adaptive bitrate
  webinar webinars screencast screencasts ?clip ?clips ?camera
schema: migration migrations ?migrate ?schema ?column ?columns ?field ?fields nullable alembic
  backfill ddl ?alter | not null | alter table | add column | rename column | rename a field
  | drop column | drop a column | drop a field | remove a column
  ?attribute ?attributes ?table ?tables ?model ?models ?constraint ?constraints
  ?foreign | foreign key | new field | a new field | add a field | new column
required: ?required ?mandatory nullable non-null not-null | not null | non null
  ?optional ?compulsory ?obligatory ?blank | cannot be empty | can't be empty
  | must be set | must not be empty
compat: downtime backwards compatible compatibility compat ?legacy ?deprecated ?breaking
  | zero downtime | backward compatible | old version | old versions | older version
  | old clients | breaking change | older clients | in one go
  ?contract ?contracts ?shape | response shape | api contract | breaking changes
  | break clients | break old | existing clients
twice: twice ?duplicate ?duplicates ?duplicated ?double idempotent idempotency redeliver
  redelivers redelivered redelivery dedupe deduplicate deduplicated ?replay ?replayed
  | two times | three times | more than once | same email | sent again | multiple times
  | at least once
  ?retry ?retries ?retried ?repeated | charged twice | sent twice | run twice
  | fired twice | double charged | double charge
  ?twice ?dupes ?doubled | run more than once | processed twice | duplicate emails
  | duplicate charges | at most once | exactly once
background: celery ?task ?tasks ?job ?jobs ?worker ?workers ?queue ?queues ?broker rq dramatiq
  ?background asynchronously ?async | background job | background task | task queue
  ?enqueue ?enqueued ?offload ?offloaded ?asynchronous | in the background
  | off the request | out of the request
  ?later ?deferred ?defer ?asynchronously | later on | out of band | fire and forget
email: email emails e-mail mail mails mailed mailing mailer smtp mjml newsletter inbox
  ?receipt ?receipts sendgrid ses postmark | welcome message | reset message
  | password reset
  ?digest ?unsubscribe ?bounce ?bounces ?inbox ?subject
  ?reminder ?reminders ?mailgun ?mailchimp | daily digest | weekly digest | email template
  | transactional email
clock: ?clock freezegun freeze_time ?frozen ?morning ?night ?midnight ?evening ?today
  ?tomorrow ?yesterday | time travel | date dependent | date-dependent | current date
  | current time | fake date | fake time | fake the date | mock the date | mock time
  | what day | time of day
  ?leap ?weekend
  ?deadline | end of month | end of the month | last day | first day | leap year
  | month end | freeze time | frozen time | fixed date
timezone: timezone timezones tz utc ?zone ?zones dst ?tokyo ?sydney ?australia ?offset
  daylight | local time | local hour | hour off | hours off | wrong day | time zone
  | time zones | day early | day late | daylight saving
  ?hour ?hours gmt ?bst ?est ?pst ?cet ?brazil ?india ?china ?japan ?canada ?mexico
  ?europe ?european ?asia ?africa ?america ?london ?paris ?berlin ?california ?pacific
  ?eastern ?western ?chile ?argentina ?singapore ?dubai ?moscow ?korea ?hawaii ?alaska
  ?zealand ?abroad ?overseas | new zealand | new york | los angeles | off by an hour
  | off by one hour | off by a few hours | off by several hours | hours ahead | hours behind
  | wrong date | wrong time | date line | other countries | another country
payment: stripe payment payments billing charge charged charges charging invoice invoices
  subscription subscriptions ?renew ?renews renewal renewals refund refunds ?card ?cards
  ?checkout payout payouts paypal fee fees paid unpaid ?transaction ?transactions
  | payment provider | payment processor
  ?finance ?accounting ?revenue ?purchase ?purchases
  ?checkout ?pay ?paying ?payer ?buy ?buying ?sale ?sales ?earnings ?earn
  | payment method | credit card | card details
webhook: webhook webhooks ?callback ?callbacks ipn | event notification
  ?callback ?callbacks | incoming event
  | incoming events | event from stripe | payment event
signature: ?signature ?signatures ?signed forged ?forge forgery spoof spoofed spoofing
  tamper tampered ?authentic ?authenticity ?verify ?verifying ?verified ?verification hmac
  ?genuine | really come from | really from
  ?hmac ?tampering ?tamper ?spoof ?impersonate ?trust ?trusted | who sent
  | really sent | came from | signing secret
flag: ?flag ?flags ?beta launchdarkly unleash ?canary ?unfinished ?hide ?hidden ?pilot ?wip
  ?toggle ?toggles ?experiment ?experiments ?gated ?allowlist ?rollout
  | half done | half-done | dark launch | ship dark | behind a flag | staff only
  | only staff | early access | feature toggle | feature toggles | work in progress
  | gradual rollout | percent of users | to # of | for # of | some users first
  | half-built | half built | not ready yet | until it's ready | until it's done
  | show only to | pilot group | pilot users | dev mode | debug mode | beta testers | beta users
  ?gate
  ?percent ?percentage ?gradually ?gradual ?ramp ?cohort ?subset killswitch | kill switch
  | a few users | some users | some customers | a percentage | roll it out | rolled out
  | a/b test | ab test | split test | phased rollout | percentage rollout
codegen: ?typescript ?ts codegen openapi swagger ?generated ?regenerate ?regenerated ?sdk ?gen
  ?typings | api client | generated client | out of date | does not exist on type
  | doesnt exist on type | exist on type
  tsc typecheck typechecking ?types ?typed | type error | type errors | type check
  | type checking | types dont | types don't | out of sync
frontend: react frontend front-end tsx jsx vite vue svelte ?browser ?ui ?component ?components
  ?widget ?widgets ?dropdown ?popup ?tooltip ?navbar ?sidebar
  ?panel ?panels ?dashboard ?screen ?screens spa | single page app
query: sql ?query ?queries queryset querysets orm ?lookup ?lookups prefetch prefetch_related
  select_related n+1 | n + 1 | for every row | per row | each row | sql calls
  | database calls | db calls | hits the database | round trips | duplicate sql
  ?n+1 | db hit | db hits | database hit | database hits | query per | queries per
  | db call | database call | call per | calls per | hit per | query for each | query for every
  | one query per | a query per | too many queries
slow: ?slow ?slower ?slowly performance latency ?speed ?faster sluggish laggy timeout
  timeouts | speed up | takes forever | timed out | times out | super slow
  ?lag ?lags ?lagging ?crawl ?crawls ?ages | takes ages | taking forever | taking ages
  | takes a while | seconds to load | very slow | so slow
secret: secret secrets credential credentials creds password passwords ?token ?tokens
  apikey .env dotenv ?vault otp | api key | api keys | private key | magic link | magic-link
  | env file | access key | one-time code | api token
  ?passphrase | reset code | verification code | reset token | reset link | auth token
  | access token | session token | client secret | signing key | secret key
  | shared secret | api-key | x-api-key
  ?keychain ?leak ?leaked ?leaking ?exposed ?hardcoded ?sensitive ?rotate
  ?rotation | hard-coded | hard coded | committed by mistake | secret manager
container: docker dockerfile ?container ?containers ?compose podman kubernetes ?pod ?pods
  multi-stage multistage | image build
  ?stage ?stages | build stage | final stage | multi-step build | docker image
  | container image
  ?dockerize ?containerize ?containerized ?registry ?ecr k8s helm
  | docker build | production image | runtime image | base image
compiler: gcc compiler compilers toolchain clang | build-essential | build tools
  ?toolchain ?binaries ?native | native extensions | build deps
  | build dependencies | compile step
release: ?release ?releases ?released ?ship ?shipped ?shipping ?publish changelog semver
  | cut a release | new build | new release | roll out | rollout | new version
  | put out | version bump
  ?cut ?tag ?tags | release branch | version number
  | app store | play store | go live
cache: ?cache ?caching ?cached redis memcached ?ttl evict eviction ?memoize ?evicted
  | in-memory | in memory | cache server
  ?expire ?expires ?expiry ?expiration ?invalidate ?invalidation ?stale kv valkey
  dragonfly | key-value store | key value store | kv store | cache key | cache keys
  | in the cache | from the cache | into the cache | low-level cache | shared cache
  | cache layer | cache backend | cache for | cached for
  | never expire
capacity: ?quota ?full ?filled oom ?capacity ?space ?memory | ran out | out of memory
  | out of space | disk full | filled up | blowing through
  ?disk ?limit ?limits ?exhausted ?maxed | maxed out | hit the limit
  | no space | running out | ran out of
cost: ?bill ?bills ?cost ?costs ?expensive ?spend ?spending ?pricey ?budget ?overage
  | exploded | over budget
  ?cheaper ?cheap ?savings ?saving ?wasteful
  | too expensive | cost too much | costs too much | cut costs | save money
log: ?log ?logs logging ?logged logger structlog ?output ?dump ?tracing ?print ?prints
  | log line | log lines | debug info | debug output
  diagnostics diagnostic ?trace ?verbose ?instrument ?instrumentation
  | debug logging | log statement | log message
payload: payload payloads ?body ?bodies serializer serializers ?response ?responses dto
  | request body | request bodies | incoming data | incoming request | json body
  | post data | form data | request data | post body | raw body | request payload
  | request params | query params
monitoring: sentry monitoring apm datadog newrelic ?traces ?tracing rollbar honeycomb ?alert
  ?alerts telemetry opentelemetry observability | error tracking | error monitoring
  | error tracker
  ?metrics ?dashboards grafana prometheus ?pagerduty ?uptime
  ?observability ?sampling ?spans ?span ?profiling ?profiler | error rate
  | error reporting | exception tracking | crash reports
template: ?template ?templates ?wording ?copy ?footer ?header ?headers jinja handlebars
  ?layout ?layouts ?partial ?partials ?markup mustache | email layout | html email
  | email html
i18n: ?translation ?translations ?translate ?translated translatable localise localize
  localised localized localisable localizable localisation localization i18n l10n gettext
  locale locales multilingual ?language ?languages ?english ?spanish ?french ?german
  ?italian ?portuguese ?japanese
  untranslated ?dutch ?chinese ?arabic ?russian ?korean ?hindi ?polish ?swedish ?danish
  ?norwegian ?finnish ?turkish ?greek ?hebrew ?czech ?translator ?translators ?rtl
  | right to left | right-to-left | other languages
ci: ci ?pipeline ?pipelines ?workflow ?workflows ?yaml ?yml ?runner ?runners
  | github actions | ci job | github workflow | ci yaml
  codecov coveralls sonarcloud sonarqube circleci jenkins travis buildkite ?checks
  | status check | status checks | required checks | ci run | ci build | build pipeline
thirdparty: ?marketplace ?community ?plugin ?plugins ?vendor third-party | third party
  | external action
  ?extension ?extensions ?addon ?addons ?integration ?integrations
  ?external ?outside ?upstream ?community ?marketplace | someone else's
  | not ours | open source action | other people's
pin: ?pin ?pinned ?pinning ?sha ?digest @v1 @v2 @v3 @v4 @v5 | moved tag | version tag
  ?pinned ?immutable ?hash ?hashes | commit hash | full sha | floating tag
  | supply chain | supply-chain
infra: terraform infrastructure infra iac ?bucket ?buckets vpc provision provisioning
  cloudformation pulumi aws gcp azure dns ?cloud | load balancer | load balancers
  ?replica ?replicas ?cluster ?clusters ?region ?regions ?vm ?vms ec2 rds ecs eks
  ?server ?servers ?provisioned | spin up | stand up | new server
  | read replica | managed database
permission: ?permission ?permissions ?access authorization authorize authorized ?admin
  ?admins ?role ?roles ?restrict ?restricted forbidden ?staff allowany authz rbac acl
  | only admins | who can | lock down | access control | who can access
  ?allowed ?allow ?deny ?denied ?unauthorized 403 ?privilege ?privileges
  | who is allowed | allowed to | not allowed | access check | access checks
  unauthenticated | anonymous user | anonymous users | anyone can | without logging in
  | no login | not logged in | logged-out users | public endpoint
  | permission check | permission checks
  | only the owner | who owns | the owner can | owner of the | should be able to see
  | logged-out people | logged out people | logged-out visitors | logged out users
endpoint: viewset viewsets apiview ?endpoint ?endpoints | new endpoint | an endpoint
  | api view | api views | view class | new view | new viewset | endpoint for
  | endpoint that | rest endpoint | drf view | generic view
pagination: pagination paginate paginated ?scroll ?scrolling ?cursor ?infinite paging ?paged
  | at a time | per page | next page | page size | later pages | load more
  ?offset ?feed ?feeds | page # | pages # | first page | last page | deep pages
money: money price prices pricing ?amount ?amounts cents currency currencies ?decimal ?float
  ?floats ?rounding discount discounts ?total ?totals euro euros dollar dollars ?fee ?fees
  vat tax taxes | rounding errors
  ?cent ?precision | floating point | two decimals
  | decimal places | rounding error | off by a cent
clientdata: tanstack redux ?fetch ?fetching refetch refetching swr zustand mobx ?fresh
  ?stale ?invalidate usequery useeffect | react query | react-query | client side
  | client-side | server data | server state | global store | server responses
  | stale data | out of date data | refresh the list
e2e: playwright cypress selenium puppeteer ?browser e2e ?flow ?flows ?journey ?journeys
  headless | end-to-end | end to end | ui test | journey checks | ui journey
  | browser test | browser tests
  ?click ?clicks ?clicking ?scenario ?scenarios | user flow | user flows | click through
  | smoke test | smoke tests
seed: ?seed ?seeds ?seeded ?seeding ?fixture ?fixtures ?demo | sample data | test data
  | demo account | test account
  ?fixtures ?factory ?factories factory_boy faker ?dummy ?mock | dummy data
  | fake data | sample data | demo data | test users
search: ?search ?searching ?searches ?find ?finder opensearch elasticsearch solr meilisearch
  algolia reindex ?matches ?mapping ?mappings ?relevance | full-text | full text
  | search results
  ?typeahead autocomplete autosuggest ?fuzzy | look up | looks up | search bar
  | search box | search field
  analyzer analyzers stemming | search index | search mapping | rebuild the index
ratelimit: ratelimit throttle throttling throttled brute bruteforce 429 lockout
  ?attempts ?bots hammering ?abuse ddos | rate limit | rate limiting | too many requests
  | brute force | brute forcing | per minute
  ?guess ?guesses ?guessing ?spam ?flood ?flooding captcha recaptcha ?hammer
  | credential stuffing | password spraying | thousands of requests
login: login logins signin signup oauth sso ?google ?github saml ?auth ?redirect | log in
  | sign in | sign-in | sign up | sign-up | social login | social sign-in
  ?account ?accounts logout 2fa mfa | log out | logged out
  | sign out | two-factor | two factor
bulk: ?bulk ?batch ?batches ?mass ?insert ?inserts ?imported ?importing bulk_create
  | many rows | in one go | mass import
  ?records ?thousands ?millions bulk_update | in bulk | all at once
  | bulk insert | bulk update | thousands of rows | millions of rows | batch insert
  | batch inserts | insert many | single insert
mobile: ?mobile ios android ?phone ?phones ?app ?apps ?tablet | mobile app | phone client
  | ios client | android client
  testflight ?appstore | app store | play store | mobile client
legacy: ?legacy ?old ?deprecated ?v1 ?outdated
  ?older ?previous ?obsolete ?ancient | old clients | old app | older app
  | existing clients
formatter: ?formatter ?formatting ruff ?black isort flake8 prettier eslint lint linter linting
  ?pyproject ?tidy prettify autoformat | auto-style | auto style | code style
  | sort imports | sorts imports | import order | auto format | sorting imports
  | sorted imports | import sorting | imports sorted
  ?whitespace ?indentation ?indent ?quotes | line length
  | line too long | trailing whitespace | format on save | code formatting
  | code formatter | style tools | style checker | style checks
local: localhost ?laptop ?locally | my machine | my laptop | local dev | local development
  | dev environment | dev server
  ?machine ?workstation ?locally | on my computer | local setup
  | local server | running locally
tls: https tls ssl ?certificate ?certificates cert certs mkcert ?insecure ?secure
  ?encrypted ?encryption ?handshake letsencrypt | self-signed | self signed
  | secure connection | certificate error | mixed content
image: ?image ?images ?picture ?pictures ?photo ?photos avatar avatars thumbnail thumbnails
  ?cover ?crop ?cropped ?resize ?resized ?resizing ?preview ?previews pillow png jpeg jpg
  ?icon ?icons
  ?pic ?pics ?pfp ?headshot ?headshots ?banner ?banners ?gallery ?shrink
  ?downscale ?downsize ?compress ?compressed ?scale ?scaled ?rescale webp gif svg ?heic
  imagemagick ?sharp | profile picture | profile pictures | profile photo | profile pic
  | scale down
schedule: ?schedule ?schedules ?scheduled scheduler cron crontab periodic recurring nightly
  hourly ?daily ?weekly beat ?monday ?tuesday ?wednesday ?thursday ?friday ?saturday ?sunday
  | every night | every day | every hour | every morning | every week | every sunday
  | every monday
  ?repeating ?repeat ?recurrence ?interval ?intervals | every # minutes
  | every # hours | every # days | every few minutes | once a day | once an hour
  | at # am | at # pm | each night | every evening | every weekday
  | at midnight
a11y: ?keyboard accessibility ?accessible a11y ?mouse ?focus aria clickable ?dialog
  ?dialogs ?modal ?modals ?popup ?esc ?escape screenreader | screen reader | tab order
  | esc key | escape key
  ?wcag ?contrast ?alt ?label ?labels ?labelled ?tabindex ?voiceover ?nvda ?blind
  ?disability | alt text | keyboard navigation | keyboard only | without a mouse
  | assistive technology | confirm dialog | confirmation dialog | modal dialog
upgrade: ?upgrade ?upgrades ?upgrading ?upgraded ?bump ?bumping ?framework deprecation
  deprecations ?newest ?major | major version | next version | next major
  lts eol ?sunset | end of life | end-of-life | long term support
  | move to the next | newer version | latest version
index: ?index ?indexes ?indices ?indexed ?composite concurrently btree | speed up lookups
  ?scan ?scans ?seq ?sequential | full table scan | seq scan | sequential scan
  | query plan | explain analyze | add an index | create index | db index
  | lookup speed | faster lookups | slow lookups | lookup speedup | lookups fast
realtime: websocket websockets realtime real-time ?live chat ?channels ?socket ?sockets sse
  daphne ?notify | live updates | push notifications | real time
  broadcast broadcasting ?presence ?online ?instant ?instantly pubsub ?subscribe
  ?poll ?polling | without refreshing | without reloading
  | server-sent events | pub/sub
  ?pushed ?live-updating ?ticker | live updates
  | who is online | instant updates | auto refresh | auto-refresh
export: ?export ?exports ?exported ?exporting ?download ?downloads spreadsheet spreadsheets
  ?csv ?excel ?xlsx ?report ?reports
  ?download ?downloads | download all | as a spreadsheet | in a spreadsheet
  ?report ?reporting xls ?dump ?extract ?extracts | export to | download as
  | excel file | csv file | excel sheet | google sheets
timeout: timeout timeouts 504 502 ?gateway | timed out | times out | time out
  ?hang ?hangs ?hanging ?stuck ?gateway | request timeout | gateway timeout
  | takes too long
hotfix: hotfix hotfixes ?urgent ?emergency ?outage ?incident ?trunk ?main ?master ?patch
  | production is down | prod is down | straight to | prod is broken | production is broken
  | skip review | skip approval
  ?bypass ?skip ?skipping | one-line fix | quick fix | urgent fix | direct push
  | push directly | push to main | straight to production | straight to prod
  | straight onto | straight into main | directly to main | directly on main | onto main
compare: ?compare ?comparison ?comparing ?equality constant-time ?timing
  | compare_digest | constant time
  ?equals ?differ ?differs | against the stored | with the stored | the stored one
  | what we have stored | what we stored | stored value | stored secret | stored hash
  | stored token | stored key | matches the stored | equals the stored | provided value
  side-channel sidechannel | side channel | timing attack | timing attacks
  | timing leak | timing leaks | timing safe
storybook: storybook ?story ?stories ?reusable ?shared ?designers ?visually ?visual
  | design system | component library | in isolation | ui pieces
  chromatic ?catalog ?showcase ?playground | ui kit | component catalog
  | style guide | living style guide
dates: ?date ?dates ?day ?days datetime dayjs ?moment date-fns intl ?deadline ?deadlines
  ?january ?february ?march ?april ?may ?june ?july ?august ?september ?october ?november
  ?december
  ?month ?months ?week ?weeks ?year ?years ?calendar ?weekday ?weekdays | due date
  | start date | end date | date format | date formatting | readable date | human readable
deps: dependency dependencies deps ?package ?packages npm pip renovate dependabot lockfile
  ?outdated ?latest axios lodash | package.json | requirements.txt
  ?library ?libraries ?requirements pipfile poetry.lock yarn pnpm
  | package lock | lock file | pinned versions | version bump | new version of
tests: pytest unittest conftest | test suite | test runner | run the tests
  ?spec ?specs rspec jest vitest mocha | test run | test runs
  | run tests | running tests | test command | test runner
python_env: venv virtualenv interpreter conda poetry pipenv | virtual environment
  | system python
  importerror modulenotfounderror site-packages | import error | cant import
  | can't import | cannot import | no module named | editable install
audit: audit ?audited ?history ?trail | audit log | audit trail | change history
  | history of changes | who changed
lock: ?lock ?locks ?locked ?locking ?blocking ?blocked deadlock deadlocks | table lock
  | without blocking | blocking writes | lock the table | full-table lock | row lock
  | locks the table | locked the table
review: ?review ?reviews ?reviewer ?reviewers ?approval ?approve ?approved pullrequest ?pr
  | pull request | merge request | code review | branch protection | protected branch
"""
