import { withWriteOutcome } from '../../api/create-outcome.js';
import { joinUrl, type PetsApi } from '../../api/client.js';
import type { ApiTarget } from '../../config/resolve-target.js';
import { apiPathProblem, isUnderBase } from '../../api/raw-path.js';
import { systemReason, UsageError } from '../../core/errors.js';
import { headerValue, type HttpMethod, type HttpResponse } from '../../http/types.js';
import { parseJson, stringifyJson, type JsonValue } from '../../json/int64-json.js';
import { Option } from 'commander';
import { escapeForTerminal } from '../../core/terminal-text.js';
import { confirmProtectedProfile } from '../shared/confirm.js';
import { warnDeprecated } from '../shared/deprecated.js';
import { examples } from '../shared/help-text.js';
import type { Session } from '../shared/session.js';
import type { CommandModule } from '../shared/command.js';

export const API_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
/** Methods that change nothing on the server. */
const READS: ReadonlySet<HttpMethod> = new Set(['GET', 'HEAD']);

// Headers -H may not set: the key is pets's to send, and the rest decide where and how the
// request goes, which the transport owns.
const RESERVED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'keep-alive',
  'te',
  'trailer',
  'expect',
]);

export interface ApiField {
  name: string;
  /** What the user wrote after the =, for a query parameter. */
  text: string;
  /** What goes in a JSON body. */
  value: JsonValue;
}

export interface ApiRequestOptions {
  path: string;
  method?: string;
  fields: ApiField[];
  headers: string[];
  /** The body as read from --input, when given. */
  input?: string;
}

export interface ApiCallResult {
  method: HttpMethod;
  url: string;
  response: HttpResponse;
}

/** A -f field: always a string. */
export function stringField(arg: string): ApiField {
  const [name, text] = splitField(arg, '-f');
  return { name, text, value: text };
}

/** A -F field: true, false, null and numbers (int64 exact) are typed; anything else is a string. */
export function typedField(arg: string): ApiField {
  const [name, text] = splitField(arg, '-F');
  let value: JsonValue = text;
  if (/^(true|false|null)$/.test(text) || /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text)) {
    value = parseJson(text);
  }
  return { name, text, value };
}

function splitField(arg: string, flag: string): [string, string] {
  const at = arg.indexOf('=');
  if (at <= 0) throw new UsageError(`${flag} "${arg}" is not key=value`);
  return [arg.slice(0, at), arg.slice(at + 1)];
}

/** The request `pets api` sends, checked: refused paths and headers never reach the client. */
export function buildApiRequest(options: ApiRequestOptions, target: ApiTarget) {
  const problem = apiPathProblem(options.path);
  if (problem) throw new UsageError(`the path "${options.path}" ${problem}; nothing was sent`);
  const method = methodOf(options.method, options.fields.length, options.input !== undefined);
  if (!API_METHODS.includes(method)) {
    throw new UsageError(`-X ${options.method} is not one of ${API_METHODS.join(', ')}`);
  }
  const headers: Record<string, string> = {};
  for (const line of options.headers) {
    const header = headerLine(line);
    if (!header || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(header.name)) {
      throw new UsageError(`-H "${line}" is not "Name: value"`);
    }
    const { name, value } = header;
    if (/[\u0000-\u001f\u007f]/.test(value)) {
      throw new UsageError(`-H ${name}: the value holds a control character`);
    }
    if (RESERVED_HEADERS.has(name)) {
      throw new UsageError(
        `-H ${name} is not allowed: pets sends the profile's key itself, to the base URL only`,
      );
    }
    headers[name] = value;
  }
  let path = options.path;
  let body = options.input;
  // Fields go in the query of a GET (or of a request whose body is --input), else in a JSON body.
  if (method === 'GET' || method === 'HEAD' || body !== undefined) {
    if (options.fields.length) {
      const query = new URLSearchParams(
        options.fields.map((field): [string, string] => [field.name, field.text]),
      );
      path += `${path.includes('?') ? '&' : '?'}${query}`;
    }
  } else if (options.fields.length) {
    body = stringifyJson(Object.fromEntries(options.fields.map((f) => [f.name, f.value])));
  }
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) {
    throw new UsageError(`a ${method} request cannot have a body (--input)`);
  }
  if (!isUnderBase(joinUrl(target.baseUrl, path), target.baseUrl)) {
    throw new UsageError(`the path "${options.path}" leaves the base URL; nothing was sent`);
  }
  return { method, path, headers, body };
}

/** -X, else POST for a request with fields or --input, else GET. */
function methodOf(method: string | undefined, fields: number, input: boolean): HttpMethod {
  return (method?.toUpperCase() ?? (fields || input ? 'POST' : 'GET')) as HttpMethod;
}

/** A -H line's name, lower-cased, and value, both trimmed; undefined without a name and colon. */
function headerLine(line: string): { name: string; value: string } | undefined {
  const at = line.indexOf(':');
  if (at <= 0) return undefined;
  return { name: line.slice(0, at).trim().toLowerCase(), value: line.slice(at + 1).trim() };
}

/**
 * `pets api`: one request under the base URL through the same client, gate and rules as
 * every other command. The answer is returned whatever its status, for the caller to print
 * before it reports a failure.
 */
export async function callApi(
  options: ApiRequestOptions,
  deps: { api: PetsApi; target: ApiTarget; signal?: AbortSignal },
): Promise<ApiCallResult> {
  const request = buildApiRequest(options, deps.target);
  try {
    const { url, response } = await deps.api.raw(request, { signal: deps.signal });
    return { method: request.method, url, response };
  } catch (error) {
    throw READS.has(request.method) ? error : withWriteOutcome(error);
  }
}

interface ApiOptions {
  method?: string;
  rawField: ApiField[];
  field: ApiField[];
  header: string[];
  input?: string;
  include?: boolean;
  yes?: boolean;
}

const GET_PET_PATH = /^\/pets\/[^/?]+(\?|$)/;

export const apiCommand: CommandModule = {
  define(program, getSession) {
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
          'pets --profile production api -X DELETE /pets/42 --yes',
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
      .option('--yes', 'write to a protected profile without typing its name')
      .addHelpText(
        'after',
        '\nFor GET, fields become query parameters; otherwise a JSON body (or, with --input, the query).\n' +
          'The path must stay under the base URL: absolute URLs, //host and .. are refused.\n' +
          'On a protected profile, any method but GET and HEAD (or a write named by an\n' +
          "X-HTTP-Method-Override, X-HTTP-Method or X-Method-Override header) asks you to type the profile's name\n" +
          '(or needs --yes where nobody can answer). --yes on a GET or HEAD is refused: nothing to confirm.\n' +
          'Exit codes: 0 for 2xx, 3 for 404, 4 for 401, 5 for 429, 7 for 5xx, 1 for any other answer.\n',
      )
      .action((path: string, options: ApiOptions) => sendRequest(getSession(), path, options));
  },
};

/** The request the flags describe, sent through the gate: the answer printed, its status the exit code. */
async function sendRequest(session: Session, path: string, options: ApiOptions): Promise<void> {
  const fields = options.rawField.length + options.field.length;
  const sends = methodOf(options.method, fields, options.input !== undefined);
  const override = methodOverride(options.header);
  const reads = READS.has(sends) && (override === undefined || READS.has(override));
  if (options.yes && reads) {
    throw new UsageError(
      `--yes only applies to a write (a method other than GET or HEAD); this is a ${sends}, nothing was sent`,
    );
  }
  const target = await session.target();
  // A request that may change data gets the protected badge, as add does, and on a
  // protected profile a confirmation, as a batch does; a read, the environment line.
  if (reads) await session.terminal.environmentLine(target);
  else {
    const acts = override && override !== sends ? `${sends} (${override} by its header)` : sends;
    await confirmProtectedProfile(session, target, {
      doing: `${acts} ${path} on`,
      action: `a ${acts} to it`,
      nothingDone: 'nothing was sent',
      yes: options.yes === true,
      stdinBusy: options.input === '-',
    });
  }
  const input = options.input === undefined ? undefined : await readInput(session, options.input);
  const { api } = await session.api(target);
  const result = await callApi(
    {
      path,
      method: options.method,
      fields: [...options.rawField, ...options.field],
      headers: options.header,
      input,
    },
    { api, target, signal: session.signal },
  );
  try {
    await printAnswer(session, result, target.apiKey, options.include === true);
  } finally {
    if (result.method === 'GET' && GET_PET_PATH.test(path)) {
      await warnDeprecated(session, {
        sunset: headerValue(result.response.headers, 'sunset'),
      });
    }
  }
  const { status } = result.response;
  if (status < 200 || status > 299) throw api.failure(result.method, result.url, result.response);
}

// Headers by which some servers and gateways act on another method than the request line's
// (a POST or GET tunnelling a DELETE): the method they name is the one a protected profile
// guards.
const METHOD_OVERRIDES = new Set(['x-http-method-override', 'x-http-method', 'x-method-override']);

/** The method an override header among `headers` (as -H gives them) names, upper-cased. */
function methodOverride(headers: readonly string[]): HttpMethod | undefined {
  const override = headers
    .map(headerLine)
    .find((header) => header && METHOD_OVERRIDES.has(header.name));
  return override?.value.toUpperCase() as HttpMethod | undefined;
}

function add<T>(parse: (arg: string) => T) {
  return (arg: string, previous: T[]): T[] => [...previous, parse(arg)];
}

async function readInput(session: Session, file: string): Promise<string> {
  if (file === '-') {
    const { readStdin } = await import('../../terminal/read-stdin.js');
    return readStdin(session.terminal.stdin, undefined, session.signal);
  }
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--input ${file} cannot be read: ${systemReason(error)}`);
  }
}

/** Status line and headers (with --include), then the body, with the key never shown. */
async function printAnswer(
  session: Session,
  result: ApiCallResult,
  apiKey: string,
  include: boolean,
): Promise<void> {
  const tty = session.terminal.stdoutIsTTY;
  // Before the terminal escape, which would show an invisible character between two of the
  // key's as text of its own; and before anything reformats the server's words (a terminal's
  // pretty-printing, a --jq filter), after which the key need not be in any form redaction
  // knows: a filter can reverse it.
  const redact = (text: string) => session.secrets.add(apiKey).redact(text);
  const shown = (text: string) => (tty ? escapeForTerminal(text) : text);
  const { response } = result;
  if (include) {
    const { STATUS_CODES } = await import('node:http');
    const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trimEnd()];
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        lines.push(shown(redact(`${name}: ${one}`)));
      }
    }
    session.terminal.print(`${lines.join('\r\n')}\r\n\r\n`);
  }
  if (response.text === '') return;
  const text = redact(response.text);
  // --jq filters an answer that succeeded; a failure's words are in the error's detail.
  if (session.globals.jq !== undefined) {
    if (response.status >= 200 && response.status <= 299) await session.terminal.printAnswer(text);
    return;
  }
  const type = headerValue(response.headers, 'content-type') ?? '';
  if (tty && /^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    try {
      session.terminal.print(`${stringifyJson(parseJson(text), 2)}\n`);
      return;
    } catch {
      // Not JSON after all (or no longer, where a key was taken out): shown as text below.
    }
  }
  const body = shown(text);
  session.terminal.print(tty && !body.endsWith('\n') ? `${body}\n` : body);
}
