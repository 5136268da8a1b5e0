// `pets help json`: what a script may rely on. The shapes are data, and the page is made
// from them, so test/cmd/help/json-topic.test.ts can hold each one against real output:
// a field documented here that a command stops printing fails the suite.

/** An object's fields, each stable; a name ending in ? is left out when it has no value. */
export interface Shape {
  name: string;
  fields: readonly string[];
  about?: string;
}

export const PET: Shape = {
  name: 'Pet',
  fields: ['id', 'name', 'categoryId', 'status?'],
  about: 'id and categoryId are int64, written as exact integers (also beyond 2^53)',
};

export const LINE_ERROR: Shape = {
  name: 'LineError',
  fields: ['code', 'message', 'status', 'exitCode', 'detail?'],
  about: 'status is null when no server answered; detail holds the server\u2019s own words',
};

export const BATCH_LINE: Shape = {
  name: 'Line',
  fields: ['line', 'pet?', 'skipped?', 'error?'],
  about:
    'one per input line or id, in input order: {"line":N,"pet":Pet} or {"line":N,"error":LineError}; ' +
    'skipped:true marks a pet an earlier run of the same journal created',
};

export const QUOTA: Shape = {
  name: 'Quota',
  fields: [
    'profile',
    'limit',
    'remaining',
    'resetAt',
    'resetInSeconds',
    'cooldownUntil',
    'cooldownCode',
    'source',
    'store',
    'storeKey',
    'taken',
  ],
  about:
    'null where the server states no limit; source is "server" or "cached"; store is the rate store URL without its password, null for files on this machine (storeKey: the Redis key or the state file); taken is the places in the window held now by every process the store counts: requests in flight, and those a process took ahead for its next sends',
};

export const AUTH_STATUS: Shape = {
  name: 'AuthStatus',
  fields: [
    'profile',
    'profileSource',
    'baseUrl',
    'baseUrlSource',
    'key',
    'keySource',
    'valid',
    'quota',
  ],
  about: 'key shows its last 4 characters only; quota is a Quota',
};

export const PROFILE: Shape = {
  name: 'Profile',
  fields: [
    'name',
    'active',
    'activeSource',
    'baseUrl',
    'baseUrlSource',
    'key',
    'keySource',
    'protected',
    'rateStore',
    'rateStoreSource',
  ],
  about:
    'the settings commands use now, environment applied; *Source says where each came from; rateStore is the store URL without its password, null for files',
};

export const SANDBOX: Shape = {
  name: 'Sandbox',
  fields: ['baseUrl', 'key', 'plan', 'rpm', 'rpd', 'profile'],
};

export const PLAN: Shape = {
  name: 'Plan',
  fields: [
    'dryRun',
    'file',
    'format',
    'formatFrom',
    'profile',
    'baseUrl',
    'protected',
    'asks',
    'journal',
    'records',
    'invalid',
    'quota',
    'estimate',
    'command',
  ],
  about:
    'add --file --dry-run: formatFrom is "flag", "extension" or "content" (the first ' +
    'non-blank byte); records is PlanRecords (null for none read); invalid is ' +
    '[{"line":N,"problem":"…"}, …]; estimate is {"seconds":N,"endsAt":ISO} or null when no ' +
    'limit is known; asks is true when a real run on this protected profile would ask for ' +
    'its name (false with --yes); command runs the plan for real, without --yes',
};

export const DRY_RUN: Shape = {
  name: 'DryRun',
  fields: ['dryRun', 'method', 'url', 'body', 'profile', 'host', 'protected', 'sent'],
  about:
    'add --dry-run without --file: the request one pet would make; body is the JSON it ' +
    'would carry; sent is always false',
};

export const PLAN_RECORDS: Shape = {
  name: 'PlanRecords',
  fields: ['total', 'valid', 'invalid', 'toSend', 'created', 'unknown', 'failedBefore'],
  about: 'records, not lines; created, unknown and failedBefore are what the journal holds',
};

export const PLAN_QUOTA: Shape = {
  name: 'PlanQuota',
  fields: ['known', 'limit', 'remaining', 'resetAt', 'windowSeconds', 'blockedUntil', 'asked'],
  about:
    'known is "window", "unlimited" or "unknown"; asked is true when a GET was sent to ' +
    'learn it (false when it never reached the server)',
};

/** What each command with JSON output prints on stdout (cmd/shared/json-output.ts lists them). */
export const STDOUT: Readonly<Record<string, string>> = {
  list: '[Pet, …], the server\u2019s array; [] when there are none',
  get: 'one id: Pet; several ids, or - for ids on stdin: NDJSON of Line',
  add: 'Pet, or DryRun; with --file: NDJSON of Line, or Plan (--dry-run)',
  quota: 'Quota',
  api: 'the body of the answer, as the server sent it',
  'auth status': 'AuthStatus',
  'profile list': '[Profile, …]',
  'profile show': 'Profile',
  sandbox: 'Sandbox, one line, while it runs',
};

export const ERROR: Shape = {
  name: 'Error',
  fields: ['code', 'message', 'status', 'exitCode', 'hint?', 'retryAfter?', 'resetAt?', 'detail?'],
  about: 'the run\u2019s failure, its last line; retryAfter in seconds, resetAt an ISO date',
};

/** One code of a kind of stderr object: the fields it adds to code and message, and when. */
export interface StderrCode {
  fields: readonly string[];
  when: string;
}

/** The other objects on stderr: each has code and message, and some codes have more. */
export const STDERR_KINDS: ReadonlyArray<{
  kind: string;
  codes: Readonly<Record<string, StderrCode>>;
}> = [
  {
    kind: 'warning',
    codes: {
      deprecated: {
        fields: ['operation', 'sunset'],
        when: 'pets get, pets api /pets/{id}; sunset is YYYY-MM-DD',
      },
      protected_profile: { fields: ['profile', 'host'], when: 'a write to a protected profile' },
      profile_overridden: { fields: [], when: '--profile or PETS_PROFILE is not the active one' },
      base_url_overridden: { fields: [], when: 'PETS_BASE_URL is set' },
      key_overridden: { fields: [], when: 'PETS_API_KEY is set' },
      key_unchecked: { fields: [], when: 'auth login could not check the key' },
      node_warning: {
        fields: ['name', 'nodeCode'],
        when: "one of Node's own: name is its class, nodeCode its code (DEP0040) or null",
      },
      extra_ca_unreadable: {
        fields: ['file', 'reason'],
        when: 'NODE_EXTRA_CA_CERTS names a file that cannot be opened; pets runs without it',
      },
      extra_ca_partly_unreadable: {
        fields: ['file', 'reason', 'kept'],
        when: 'Node stops loading NODE_EXTRA_CA_CERTS at a broken block; kept: certificates before it',
      },
      config_readable: {
        fields: [],
        when: 'the config file can be read by others; the next save sets 0600',
      },
    },
  },
  {
    kind: 'notice',
    codes: {
      plan: { fields: [], when: 'a batch on a terminal starts: its plan in one line' },
      stopped: { fields: ['resume'], when: 'a batch stopped early; resume is the command' },
      ids_ignored: {
        fields: ['count'],
        when: 'add --file: records carry an id, which the server assigns',
      },
      unknown_outcomes: { fields: ['resume'], when: 'creates that may or may not have happened' },
      profile_in_use: {
        fields: ['profile', 'inUse'],
        when: 'pets sandbox: a live sandbox holds inUse, so this one is saved as profile',
      },
      paste_key: { fields: [], when: 'auth login --with-key with a terminal on stdin' },
      notice: { fields: [], when: 'any other notice: saved, removed, now using' },
      jq_stderr: { fields: [], when: "--jq: the text the filter's stderr wrote, raw" },
    },
  },
  {
    kind: 'hint',
    codes: {
      environment: { fields: ['profile', 'host'], when: 'where a read went (terminals only)' },
      full_page: { fields: ['shown'], when: 'a full page: more may exist (terminals only)' },
    },
  },
  {
    kind: 'summary',
    codes: {
      batch: {
        fields: ['created', 'failed', 'skipped', 'unknown', 'notSent', 'journal'],
        when: 'the end of add --file',
      },
    },
  },
  {
    kind: 'trace',
    codes: {
      http: { fields: [], when: '--debug: a request or its answer' },
      jq_debug: { fields: [], when: '--jq: a line of the filter\'s debug, ["DEBUG:",value]' },
    },
  },
];

/** `words` joined by spaces into lines of at most 88 columns, each after `indent`. */
function wrap(words: readonly string[], indent: string, first = indent): string {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > 88) {
      lines.push(line);
      line = indent;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  return [...lines, line].join('\n');
}

function shape({ name, fields, about }: Shape, indent = '  '): string {
  const names = fields.map((field) =>
    field.endsWith('?') ? `"${field.slice(0, -1)}"?` : `"${field}"`,
  );
  const listed = wrap(
    names.map((n, i) => (i < names.length - 1 ? `${n},` : `${n}}`)),
    `${indent}  `,
    `${indent}${name}: {`,
  );
  return about ? `${listed}\n${wrap(about.split(' '), `${indent}    `)}` : listed;
}

/** The page itself. */
export function jsonTopic(): string {
  const commands = Object.entries(STDOUT)
    .map(([command, what]) => `  ${`pets ${command}`.padEnd(19)}${what}`)
    .join('\n');
  const kinds = STDERR_KINDS.map(
    ({ kind, codes }) =>
      `  {"${kind}":{"code","message",…}}\n` +
      Object.entries(codes)
        .map(([code, { fields, when }]) => {
          const words = [
            ...fields.map((field, i) => (i < fields.length - 1 ? `${field},` : `${field}:`)),
            ...when.split(' '),
          ];
          const indent = ' '.repeat(24);
          // A code wider than its column has a line of its own.
          return code.length < 20
            ? wrap(words, indent, `    ${code.padEnd(20)}`)
            : `    ${code}\n${wrap(words, indent, indent)}`;
        })
        .join('\n'),
  ).join('\n');
  return `JSON output, for scripts

--json prints exact JSON on stdout and, on stderr, one JSON object per line and
nothing else, Node's own warnings included. --jq <expression> implies --json. The
field names below are stable; a field marked ? is left out when it has no value.
Match on code, never on message: messages are for people. --json takes no field
list (pets list --json id,name is refused, with a hint): to pick fields, use
--jq '.[] | {id, name}'.

stdout
${commands}

${[PET, BATCH_LINE, LINE_ERROR, QUOTA, AUTH_STATUS, PROFILE, SANDBOX, DRY_RUN, PLAN, PLAN_RECORDS, PLAN_QUOTA].map((one) => shape(one)).join('\n')}

stderr: each line is one object, its one key saying what it is
${shape({ ...ERROR, name: '{"error":{…}}' })}
${kinds}
  -q leaves only the error. Nothing asks a question under --json or --jq: what a command
  lacks is an error (exit 2) that names it, as with --no-input.

--jq <expression>
  jq 1.8, built in: no jq to install. It filters the exact JSON stdout would carry:
  the whole output, or each NDJSON line on its own. Strings print raw, other values as
  JSON (indented on a terminal, one per line in a pipe). Integers beyond 2^53 stay
  exact unless arithmetic touches them. An expression that does not compile: exit 2,
  nothing sent (code jq_invalid). A failure while filtering: exit 1 (code jq_error),
  after the rest. Results print as jq makes them, each line whole: a line over 32 MiB
  stops the filter (exit 1, code jq_output_too_long), and so does a filter that needs
  more than 64 MiB of memory beyond its input (code jq_error). A closed stdout stops
  it. debug and stderr write to stderr (codes jq_debug, jq_stderr); halt_error ends
  the run with its message and exit code, as jq does (code jq_halt). input and inputs
  have no more input: each run of the filter has one.
  Example: pets list --jq '.[] | select(.status == "available") | .id'

Exit codes: pets help exit-codes.
`;
}
