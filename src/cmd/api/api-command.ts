import { Option, type Command } from 'commander';
import type { ApiField, ApiCallResult } from './api.js';
import { API_METHODS, stringField, typedField } from './api.js';
import { headerValue } from '../../http/types.js';
import { escapeForTerminal } from '../../output/terminal-text.js';
import { warnDeprecated } from '../pets/get-command.js';
import { examples, type SessionSource } from '../root.js';
import type { Session } from '../shared/session.js';

interface ApiOptions {
  method?: string;
  rawField: ApiField[];
  field: ApiField[];
  header: string[];
  input?: string;
  include?: boolean;
}

const GET_PET_PATH = /^\/pets\/[^/?]+(\?|$)/;

export function registerApiCommand(program: Command, session: SessionSource): void {
  program
    .command('api')
    .description(
      'send any request under the base URL, with the key, rate gate and retry rules of pets',
    )
    .argument('<path>', 'path under the base URL, such as /store/orders')
    .addHelpText(
      'before',
      examples(
        'pets api /store/orders',
        'pets api /pets -f name=Rex -F categoryId=3',
        'pets api /pets --input new.json',
      ),
    )
    .addOption(
      new Option(
        '-X, --method <method>',
        'HTTP method (default GET, or POST with fields or --input)',
      ).choices(API_METHODS),
    )
    .option('-f, --raw-field <key=value>', 'a string field (repeatable)', add(stringField), [])
    .option(
      '-F, --field <key=value>',
      'a typed field: true, false, null and numbers (int64 exact) as JSON (repeatable)',
      add(typedField),
      [],
    )
    .option(
      '-H, --header <name:value>',
      'an extra request header (repeatable); not Authorization or Host',
      add(String),
      [],
    )
    .option('--input <file>', 'the request body from a file, or - for stdin')
    .option('-i, --include', 'print the status line and response headers first')
    .addHelpText(
      'after',
      '\nFor GET, fields become query parameters; otherwise a JSON body (or, with --input, the query).\n' +
        'The path must stay under the base URL: absolute URLs, //host and .. are refused.\n' +
        'Exit codes: 0 for 2xx, 3 for 404, 4 for 401, 5 for 429, 7 for 5xx, 1 for any other answer.\n',
    )
    .action(async (path: string, options: ApiOptions) => {
      const run = session();
      const target = await run.target();
      const input = options.input === undefined ? undefined : await readInput(run, options.input);
      const sends =
        options.method ??
        (options.rawField.length + options.field.length || input !== undefined ? 'POST' : 'GET');
      // A request that may change data gets the protected badge, as add does; a read, the line.
      if (['GET', 'HEAD'].includes(sends)) await run.environmentLine(target);
      else await run.protectedBadge(target);
      const [{ callApi }, api] = await Promise.all([import('./api.js'), run.api(target)]);
      const result = await callApi(
        {
          path,
          method: options.method,
          fields: [...options.rawField, ...options.field],
          headers: options.header,
          input,
        },
        { api, target, signal: run.deps.signal },
      );
      try {
        await printAnswer(run, result, target.apiKey, options.include === true);
      } finally {
        if (result.method === 'GET' && GET_PET_PATH.test(path)) {
          await warnDeprecated(run, deprecationHeaders(result), '`pets api`');
        }
      }
      const { status } = result.response;
      if (status < 200 || status > 299)
        throw api.failure(result.method, result.url, result.response);
    });
}

function add<T>(parse: (arg: string) => T) {
  return (arg: string, previous: T[]): T[] => [...previous, parse(arg)];
}

async function readInput(run: Session, file: string): Promise<string> {
  if (file === '-') {
    const { readAll } = await import('../pets/read-ids.js');
    return readAll(run.deps.io.stdin);
  }
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const { UsageError } = await import('../../core/errors.js');
    throw new UsageError(
      `--input ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}

function deprecationHeaders(result: ApiCallResult) {
  const said: Record<string, string> = {};
  for (const name of ['deprecation', 'sunset', 'link']) {
    const value = headerValue(result.response.headers, name);
    if (value !== undefined) said[name] = value;
  }
  return said;
}

/** Status line and headers (with --include), then the body, with the key never shown. */
async function printAnswer(
  run: Session,
  result: ApiCallResult,
  apiKey: string,
  include: boolean,
): Promise<void> {
  const tty = run.deps.io.stdoutIsTTY;
  const redact = (text: string) => (apiKey ? text.split(apiKey).join('***') : text);
  const shown = (text: string) => (tty ? escapeForTerminal(redact(text)) : redact(text));
  const { response } = result;
  if (include) {
    const { STATUS_CODES } = await import('node:http');
    const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trimEnd()];
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        lines.push(shown(`${name}: ${one}`));
      }
    }
    run.print(`${lines.join('\r\n')}\r\n\r\n`);
  }
  const text = response.text;
  if (text === '') return;
  const type = headerValue(response.headers, 'content-type') ?? '';
  if (tty && /^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    const { parseJson, stringifyJson } = await import('../../json/int64-json.js');
    try {
      run.print(`${redact(stringifyJson(parseJson(text), 2))}\n`);
      return;
    } catch {
      // Not JSON after all: shown as text below.
    }
  }
  const body = shown(text);
  run.print(tty && !body.endsWith('\n') ? `${body}\n` : body);
}
