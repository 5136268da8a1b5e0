// Topics of `pets help` for people, each the depth the README leaves out: they ship with the
// program, and the man page (src/build/man-page.mjs) carries them too. `pets help json` is
// json-topic.ts; exit codes and environment are in help.ts.

export const CONFIG_TOPIC = `Configuration: profiles, keys, the config folder, HTTPS, proxies

  A profile is a base URL and a key. production and staging always exist and start
  empty; pets sandbox saves a profile "sandbox" ("sandbox-2", … while another sandbox
  still running holds it, or a server's profile has the name); make others with
  pets profile set <name>.

  pets auth login                 at a terminal: asks for the base URL if the profile has
                                  none, names the profile and host, asks for the key
                                  (hidden), checks it with one request, then saves it
  pets profile set <name> --base-url <url>
                                  the address, ending in /v1: https, or http to this
                                  machine only (127.0.0.0/8, ::1, localhost)
  pets auth login --with-key < file
                                  the key from stdin, for scripts
  pets profile use <name>         the active profile (no name, at a terminal: a list)
  pets --profile <name> <command> one command on another profile

Which profile, address and key a command uses

  --profile beats PETS_PROFILE, which beats the active profile. PETS_BASE_URL and
  PETS_API_KEY override the profile's address and key. pets profile list marks the
  one in use with *; pets profile show and pets auth status show the address and key
  in use and where each comes from.

Keys

  A key is never taken from the command line, and never printed: pets shows **** and
  its last 4 characters, or **** alone for a key shorter than 12 characters. A key
  is visible ASCII, at least 8 characters. A key the server refuses (401) is not
  saved by auth login: at a terminal it asks again, up to 3 keys, then exit 4. At
  the hidden prompt, Backspace, Ctrl-U (the line) and Ctrl-W (a word) erase; any
  other editing key, such as an arrow, refuses the key, with nothing sent, and so
  does a paste with a line break inside it.

Protected profiles

  production is protected (pets profile set <name> --protected, or --no-protected).
  A create there prints a one-line badge with the profile and host; a batch (add
  --file), a pets api request other than GET or HEAD (-X, the POST that -f, -F
  or --input imply, or a write named by an X-HTTP-Method-Override, X-HTTP-Method
  or X-Method-Override header), and profile remove ask you to type the profile's name, or
  need --yes where nobody can answer (on a profile that is not protected, --yes has
  nothing to confirm, and is accepted). pets add --name … --dry-run shows the
  request one pet would make, the profile, host and whether it is protected, and
  sends nothing.

Questions

  pets asks only when a person can answer: stdin and stderr are terminals,
  --no-input is not given and CI is not set. Otherwise a missing value is an error
  (exit 2). An answer takes at most 256 characters (a longer paste is refused at
  once). Ctrl-C, or SIGINT, SIGTERM or SIGHUP from outside, ends a question with
  nothing sent or saved.

The config folder

  $PETS_CONFIG_DIR, else $XDG_CONFIG_HOME/pets, else ~/.config/pets, from an
  absolute path only: an empty HOME or a relative one is exit 2. The folder is
  0700 and config.json 0600. A folder or config.json that another user owns, that
  others can write, or that is a link, is refused (exit 2) with the chown or chmod
  that fixes it; so is its state folder, state/, where processes on one key share
  what they know. A config.json that others can read gets a warning, and 0600 the
  next time pets saves it. A folder pets cannot write in (a read-only file system,
  no permission, a full disk) is exit 1, naming the folder; reads go on without it.

HTTPS

  pets checks the server's certificate against Node's CA list. To trust a company
  CA, give it to Node by file: export NODE_EXTRA_CA_CERTS=/etc/ssl/company-ca.pem;
  or, where IT installed it in the system's store: export NODE_USE_SYSTEM_CA=1. A
  certificate that cannot be trusted ends the command at once with exit 6, naming
  the reason.

Proxies

  Where the API is reached through a forward proxy, pets reads the variables curl
  reads: HTTPS_PROXY (or https_proxy) for an https base URL, HTTP_PROXY (or
  http_proxy) for http; the lower-case one wins, and neither serves the other's
  URLs. https goes through a CONNECT tunnel, so the certificate checked is still
  the API's; http goes in absolute form. A proxy without a port is on 1080, as in
  curl; http:// and https:// proxies only (not SOCKS).

    export HTTPS_PROXY=http://proxy.corp.example:3128
    export HTTPS_PROXY=http://me:p%40ss@proxy.corp.example:3128   (credentials)
    export NO_PROXY=localhost,.corp.example,10.0.0.0/8

  Credentials in the URL (percent-encode @ : / in them) go to the proxy as
  Proxy-Authorization and are never shown: messages and --debug name the proxy
  without them. NO_PROXY lists the hosts that go around the proxy: a name, which
  covers the hosts under it (corp.example and .corp.example both cover
  api.corp.example), host:port for that port only, an IP address, a CIDR range,
  or * alone for every host.

  A proxy that answers 407 (credentials missing or refused) or refuses the tunnel
  ends the command with exit 6, naming the proxy and its answer: nothing reached
  the API, and it is not retried. So does a proxy that leaves the tunnel
  unanswered for --timeout seconds, or whose TLS handshake fails (an http://
  proxy named as https://). A proxy that cannot be reached, or that hangs up
  before answering, is named as the proxy, after one retry. NODE_USE_ENV_PROXY
  is not needed: pets reads the variables itself.
`;

export const RATE_LIMITS_TOPIC = `Rate limits

  The API sends X-RateLimit-Limit, -Remaining and -Reset on every answer, and
  answers 429 with Retry-After when a key goes over its plan; sending during that
  wait can get the key banned. pets keeps to the limits for every request of every
  pets process on a key:

  - Just before each request goes, pets checks the limits it knows. Nothing is sent
    while a Retry-After, a ban or a used-up window is known, whichever process
    learnt it.
  - While Remaining (less the requests in flight) is above zero, requests go at
    once; at zero they wait for Reset. The tightest limit the headers state, per
    minute or per day, is the one obeyed.
  - Processes on one key share what they know, in $PETS_CONFIG_DIR/state/ (one file
    per key and API origin, written under a lock): together they never send more
    than Remaining. The file holds a fingerprint of the key, never the key. When
    the folder cannot be written, a batch refuses to start (exit 1), naming it and
    why; a short command goes on with a one-line warning.
  - A request in flight holds its place in the window until its answer, or until
    --timeout and 5 s more have passed. A process's first requests, sent before it
    has read the server's clock, have no such end. Another process frees their
    places at once when it sees their process gone, which it can only in its own
    PID namespace; a process in a container sharing the folder cannot be seen, so
    it renews a lease on them every second, and another process frees their places
    only after watching the lease unrenewed for 10 s.
  - A batch that needs more than a window spreads its sends, so that a short command
    on the same key (pets list in a loop) still finds budget; and it leaves a
    window's last two requests until 2 s before Reset, so that a pets list typed
    while it waits answers at once, without making the batch need more windows.
    Measured (npm run bench): on a 10 s window such a pets list answered in 0.2 s,
    against 10 s before; 300 records on the free plan took 1.02 times the least the
    quota allows, alone or with a pets list 10 s in, which answered in 0.35 s.
  - A 429 whose window is used up waits for Reset (or Retry-After, if later). Any
    other 429 (Remaining says budget is left, or no limit is known) and a 503 are
    refusals: each one in a row waits at least the server's Retry-After (seconds or
    an HTTP date) and at least double the last wait, with up to a quarter more at
    random; a Retry-After of 0, negative, past or unreadable waits a second. After 5
    in a row with no success between, the run stops, within a minute of the first
    on short Retry-Afters: exit 5 for 429s, 7 for 503s, saying how many and since
    when. Other pets processes on the key stop with it, sending nothing, until the
    last wait is over.
  - Rate headers that vanish after the key showed a limit (headers or a 429) leave
    the limit unknown, not absent: requests go one at a time, each learning from
    its answer, until headers come back, or 10 minutes pass with no limit seen.
  - Reset and dates are read against the server's Date header: a skewed local clock
    never makes pets send early. The shared state holds every deadline on the
    server's clock, and each process places it with its own measured offset, kept
    on a clock that a change of the system time does not move: processes whose
    clocks disagree, or a clock set mid-run, never send into a block another
    learnt. A process yet to hear from the server counts from the latest server
    time another read, so its first wait may be longer, never shorter.
  - Headers that contradict themselves tell nothing and are never a reason to
    wait: on an answer the limiter let through (anything but 429 and 503), a
    Limit of 0, a Remaining above the Limit, or a Reset of 0 (a mock's
    placeholders, as Prism sends). The answer is believed over its headers.
    Remaining 0 with a Reset ahead is obeyed; with a Reset that cannot be read
    or is already past (a stale gateway, whose Remaining may still be true),
    pets stops at Remaining 0 for the window's length (w=, else a minute), then
    sends one request to learn the new window.

Rate-limit headers understood

  Each dialect is read into one window. Reset may be a Unix time in seconds or
  milliseconds, or seconds (or milliseconds) from now; w= is the window's length.

  X-RateLimit-* (the contract; express-rate-limit legacy, @fastify/rate-limit,
  koa-ratelimit; X-Rate-Limit-* too)
    X-RateLimit-Limit: 20  X-RateLimit-Remaining: 19  X-RateLimit-Reset: 1795913130
    -> 19 of 20 left until that Unix second
  IETF draft 6
    RateLimit-Limit: 20  RateLimit-Remaining: 19  RateLimit-Reset: 10
    RateLimit-Policy: 20;w=10
    -> 19 of 20 left for 10 s
  IETF draft 7
    RateLimit: limit=20, remaining=19, reset=10  RateLimit-Policy: 20;w=10
    -> 19 of 20 left for 10 s
  IETF draft 8 and later (of several policies, the fewest remaining binds)
    RateLimit: "min";r=5;t=20, "day";r=900;t=4000
    RateLimit-Policy: "min";q=60;w=60, "day";q=1000;w=86400
    -> 5 of 60 left for 20 s
  Retry-After, on a 429 or a 503
    Retry-After: 30   or   Retry-After: Sun, 29 Nov 2026 10:00:30 GMT
    -> nothing is sent for 30 s, or until then
  Headers that contradict themselves (a Prism mock of the API)
    X-RateLimit-Limit: 0  X-RateLimit-Remaining: 0  X-RateLimit-Reset: 0, on a 200
    -> nothing: no wait

A server with no rate headers (nginx limit_req, HAProxy, most gateways)

  pets learns the rate from its 429s. From the first answer, requests go one at a
  time, the gap between them halving with each success; a 429 lengthens the gap,
  and a 429 after a success at a longer gap settles it just above that gap. Other
  pets processes on the key keep to the same pace (the state files, or the rate
  store). A minute without 429s, and the pace probes back up, slowly. Measured in
  simulation of nginx at 2 r/s: a 60-record import gets 2 × 429 in 1.17× the least
  time; two imports of 40 at once 3 × 429 in 1.23×.

Many machines on one key

  The state files keep the processes of one machine to the limits. A team whose CI
  runners or staff share a key across machines needs a store they share too, or
  together they go over the limit and the key gets banned (measured: three machines
  importing 60 records each on a key allowed 30 per 10 s got 24 429s, and the key
  banned, within 1.4 s):

    PETS_RATE_STORE=redis://[user:password@]host:port[/db]   (rediss:// for TLS)
    pets profile set NAME --rate-store URL                   (per profile; a URL with
                                                             a password is refused
                                                             there: --rate-store -, on
                                                             stdin or asked hidden)

  Any Redis 5 or newer will do, reachable from every machine, with persistence
  off if you like (what it holds is relearnt from the next answers): Debian's
  redis-server package, or the redis container image. The key's state lives there
  under pets:ratelimit:<hash of the API origin and the key's fingerprint>, never
  the key, for two days after its last change. Every change is one compare-and-set,
  so two machines never take the same place in a window. pets quota and pets
  profile show name the store, without its password (redacted everywhere, however
  short). The Redis client loads only when a store is configured. Measured (2 s
  windows): 3 machines × 60 records at 45 per window took 1.01-1.05× the least time
  the quota allows, 10 × 60 at 150 per window 1.05-1.10× (up to 1.40× on two loaded
  cores); always 0 429s and no ban.

  When the store fails, pets never goes on alone:
  - at the start of a command (it cannot be reached, or refuses the password):
    exit 6 before anything is sent, naming the store;
  - during a batch: nothing more is sent; requests already on their way finish
    and are journaled; the run stops with exit 6. Once the store is back, the same
    command resumes where it stopped, creating nothing twice.
  - the store forgets the key (FLUSHALL, FLUSHDB, DEL, or eviction by a Redis
    run as a cache): the same stop (exit 6, "the store no longer holds this key's
    state"), never an empty state to send from. Run Redis so that it keeps
    its keys: maxmemory-policy noeviction. (A key no one changed for two days
    expires, and starts afresh.)

  Without a store, pets notices another client on its key from the answers: a 429
  to a request its own state left budget for, or a Remaining lower than its state
  can explain. It then sends one request at a time until the window's Reset, and
  says once: another client is using this key; to share its limits across
  machines, set PETS_RATE_STORE (pets help rate-limits).

Waiting

  --max-wait <s>   the most one command waits in all, 60 s by default for a single
                   request; see pets help batches for imports. A longer wait ends the
                   command at once with exit 5 and the time to retry.
  On a terminal    a wait counts down on stderr (rate limited, retrying in 4 s,
                   attempt 2/5; a narrow terminal drops the attempt, then the
                   reason); Ctrl-C ends it (exit 130).

Retries

  A GET is retried after 429 or 503 (refusals, above), 502, 504 or a network
  failure; a create only after a 429 or when the connection was never made. A create
  that may have reached the server is never sent again: exit 6 or 7 says the pet may
  have been created. At most 5 attempts, within --max-wait. A 401 or 403 stops a
  batch at the first, with the server's code and message. Once a run stops, for any
  reason, nothing more is sent or retried: requests already on their way finish, and
  the count of requests pets says it sent is what left. A timeout (--timeout,
  default 30 s) is not retried, nor is a certificate error. Redirects are never
  followed, and an answer over 8 MiB is refused (exit 7).

Where a key stands

  pets quota          its limit, remaining requests, reset, any cooldown, and the
                      store that holds its state
  pets list --debug   every attempt, its rate-limit headers, and each wait with its reason
`;

export const BATCHES_TOPIC = `Batches: pets add --file

  pets add --file imports a catalogue as fast as the key's rate limit allows and no
  faster, creating each record at most once, even across kill -9, crashes and Ctrl-C.

  pets add --file pets.csv --dry-run     check every record, show the plan, send nothing
  pets add --file pets.csv               import
  pets add --file pets.ndjson --json     one result line per record, for scripts
  cat new.ndjson | pets add --file - --journal new.journal

Input

  NDJSON (.ndjson, .jsonl), a JSON array (.json) or CSV (.csv, header
  name,categoryId,status in any order; quoted fields may hold commas, quotes and
  newlines), chosen by --format, else by the extension. - reads stdin. Stdin and
  other names are read by their first non-blank byte: [ a JSON array, { NDJSON,
  anything else CSV; the dry run says which. Each record is checked before it is
  sent: an invalid one is reported with the line it starts on, and never sent.
  Records may carry an id (pets list --json | pets add --file - --journal copy.j):
  the server assigns ids, so they are ignored, and one notice counts them. A column
  or key a pet does not have (a misspelt "stauts") stops the dry run and the run
  (exit 2), naming each and the field nearest it; --ignore-unknown leaves them out.
  Input is read as a stream, but memory still grows with it: peak 56 MiB for 10
  lines, 130 MiB for a million, 174 MiB for three million (Node 24, npm run bench).

Know before you send: --dry-run

  Reads and checks every record and sends no create. It prints the records (valid,
  invalid), what the journal already holds, the key's quota, the least time the rest
  will take under it, and the command that runs it for real (with --concurrency and
  --max-wait as given). When nothing is known of the key yet it sends one GET
  /pets?limit=1 (retried on a network failure, as any request), and says what it
  sent: nothing, when that GET never reached the server. On a protected profile it
  says whether a real run would ask for the profile's name, or, with --yes, not. It
  writes nothing: the journal is only read, never locked, started or repaired. Exit
  0 when every record is valid, 1 when some are not. With --json, the plan is one
  JSON object.

How long a batch waits

  By default a batch waits through as many windows as its records need, however long
  the window (a minute, an hour): each wait may last up to 65 minutes, an hour's
  window and five minutes for clocks. A next send further away than that (a daily
  quota used up, a ban, a Retry-After of hours) stops the batch at once with exit 5,
  saying the day and time it may resume: a person should choose when to go on, and a
  machine left waiting for hours tends to sleep, lose its network or be closed. A
  ban stops a batch at once, however short. --max-wait <s> caps the batch's waiting
  in all instead (--max-wait 86400 waits out a daily quota). It never sends into a
  known block. On the free plan (60 per minute), 300 records take one command and
  about five minutes.

Progress

  On a terminal a run starts with its plan in one line (300 to send · 60 per minute
  · about 5 min, once any command or --dry-run on the key learnt its quota; on a
  key's first run, 300 to send · quota not known yet, and the ETA follows from the
  first answer), then a progress line: how many of those to
  send are done (60/300; invalid rows and records the journal skips are not
  counted), the rate, an ETA that counts the windows the quota still imposes, and
  during a wait a countdown, every second. The line fits the terminal's width at
  each draw, and after a resize: a narrow one drops the rate, then words, then the
  bar; below 40 columns only the count and the time are left. Warnings are written
  above it. Nothing in a pipe or with --quiet. Last, a summary: created, failed,
  skipped, unknown, and not sent when the run stopped early. A record sent and
  refused by the answer the run stopped on counts as failed, never as not sent (a
  resume sends it again); with pets get --json, its line says it was sent and refused.

The journal: at most once per record

  --journal (default <file>.pets-journal, beside the file's real path, so a link
  finds the same journal; needed for stdin, but not by a dry run) is written ahead:
  before a create leaves, its intent is in the journal and synced to disk; its
  outcome follows when the answer comes. A run killed at any moment leaves each
  record created, failed or unknown (a create that may have reached the server),
  never to be sent twice. Records are known by their content, so lines inserted,
  removed or reordered in the file repeat nothing. A journal belongs to one
  profile, address and key; another is refused (exit 2). --journal names a pets
  journal or a new file: any other file, or the input itself, is refused (exit 2)
  and left as it is. A write or sync that fails (a full disk) stops all sending at
  once (exit 1, naming the journal), and the resume (free some space, run the same
  command) never sends again a record whose intent reached the file. A create whose
  intent is being written when a 429, a 401 or 403, or a lost rate store stops the
  run does not leave (a used-up quota still lets go the creates it had granted).

  A renamed, moved or copied file gets a journal of its own. So a run whose journal
  is new first reads the other journals of its profile, address and key (listed in
  the state folder): if one holds records of this file, the run is refused (exit
  2), naming that journal and the command that resumes it with this file. So is
  a run on copies of the file started at the same moment as another: each lists
  its first 1,000 records, and the list is checked and added to one run at a
  time. Records from stdin are compared by their first 1,000, read before
  anything is sent. --new-run sends those records again anyway. Journals deleted,
  or that hold no records and no run has open, drop out of the list.

  One run at a time holds a journal, however it is named, and from another PID
  namespace too (a container sharing the folder): a run there cannot be seen, so it
  renews a lease on the lock every second, and another run takes it over only after
  watching it unrenewed for 10 s.

Stopping and resuming

  Ctrl-C, SIGTERM, SIGHUP or a closed stdout, in any phase (reading, planning, a
  dry run, a wait, sending): no new request is sent, those in flight get 0.8 s to
  answer (later answers are unknown), the summary and the command to resume are
  printed, exit 130 (143 after SIGTERM, 129 after SIGHUP). A second Ctrl-C exits at
  once, still printing the command to resume. The
  resume command repeats the run's options (profile, file, --format, --journal,
  --concurrency, --max-wait, --retry-unknown, --new-run, --ignore-unknown, --json,
  --jq, --quiet), never --yes. Run it as printed: created records are skipped, and
  unknown ones are held back unless you give --retry-unknown (check with pets list
  first). A journal of another profile, address or key is refused, naming each key
  as **** and its last 4 characters.

Exit codes

  0 every record created; 1 some failed or are unknown; 130 stopped by Ctrl-C (143
  by SIGTERM, 129 by SIGHUP); else the code of what stopped the run: 4 the key, 5
  the rate limit, 6 the network, 7 the server. An unfinished batch never exits 0.

Several ids: pets get 1 2 3, pets get -

  The same engine: concurrent, within the rate limit, one NDJSON line per id with
  --json.
`;
