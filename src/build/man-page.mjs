// Writes dist/pets.1, the man page, after src/build/bundle.mjs (`npm run build`). It is made
// from the built program itself: the commands, arguments, options and examples that --help
// shows, and the topics of `pets help`, so the two cannot disagree.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const stack = require(join(root, 'dist/runtime/cli-stack.js'));

// buildProgram writes help through deps.io: here, into `captured`.
let captured = '';
const output = { write: (text) => void (captured += text) };
const deps = { io: { stdout: output, stderr: output, stdoutIsTTY: false, stderrIsTTY: false } };
const program = stack.buildProgram(deps, {});
const topics = stack.helpTopics();

/**
 * Text for roff: backslashes kept, no line read as a request, and every character beyond ASCII
 * as a named code point (\\[u2019]), since groff reads its input as Latin-1.
 */
function escape(text) {
  return text
    .replace(/\\/g, '\\e')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(/[^\x00-\x7f]/gu, (char) => {
      const hex = char.codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
      return `\\[u${hex}]`;
    });
}

/** An option or argument term, bold names and italic values: --max-wait <seconds>. */
function term(text) {
  return text
    .split(/(<[^>]+>|\[[^\]]+\])/)
    .map((part) => {
      if (part === '') return '';
      const escaped = escape(part).replace(/-/g, '\\-');
      return /^[<[]/.test(part) ? `\\fI${escaped}\\fR` : `\\fB${escaped}\\fR`;
    })
    .join('');
}

/** Lines kept as they are, columns and all. */
function preformatted(text) {
  const lines = text.replace(/^\n+|\s+$/g, '').split('\n');
  return ['.PP', '.nf', '.RS 4', ...lines.map((line) => escape(line) || ''), '.RE', '.fi'];
}

/**
 * The help text a command has besides its usage, description and lists: its examples (which
 * pets's help places after the description: src/cmd/shared/help-text.ts) and any notes
 * notes after the lists (helpTail), and any text commander prints around the rest.
 */
function extraHelp(command) {
  captured = '';
  command.outputHelp();
  const full = captured;
  const core = command.helpInformation();
  const at = full.indexOf(core);
  const around = at === -1 ? '' : `${full.slice(0, at)}\n${full.slice(at + core.length)}`;
  return `${command.helpLead ?? ''}\n${command.helpTail ?? ''}\n${around}`.trim();
}

function items(pairs) {
  return pairs.flatMap(([name, description]) => ['.TP', name, escape(description)]);
}

function commandSection(command, help) {
  const lines = [`.SS "${escape(help.commandUsage(command))}"`];
  const description = help.commandDescription(command);
  if (description) lines.push(escape(description));
  const args = help.visibleArguments(command);
  if (args.length > 0) {
    lines.push('.PP', 'Arguments:', '.RS 4');
    lines.push(
      ...items(args.map((a) => [term(help.argumentTerm(a)), help.argumentDescription(a)])),
    );
    lines.push('.RE');
  }
  const options = help.visibleOptions(command).filter((option) => option.long !== '--help');
  if (options.length > 0) {
    lines.push('.PP', 'Options:', '.RS 4');
    lines.push(...items(options.map((o) => [term(help.optionTerm(o)), help.optionDescription(o)])));
    lines.push('.RE');
  }
  // The globals that act for it, as its --help lists them (src/cmd/shared/global-scope.ts).
  const globals = help
    .visibleGlobalOptions(command)
    .filter((option) => option.long !== '--version');
  if (command.parent && globals.length > 0 && command.commands.length === 0) {
    lines.push(
      '.PP',
      `Global options that act here: ${globals.map((o) => term(o.long)).join(', ')}.`,
    );
  }
  const extra = extraHelp(command);
  if (extra) lines.push(...preformatted(extra));
  // A group's own `help` subcommand says only what `pets help` says.
  const subs = help.visibleCommands(command).filter((sub) => sub.name() !== 'help');
  for (const sub of subs) lines.push(...commandSection(sub, help));
  return lines;
}

const help = program.createHelp();
const { version } = require(join(root, 'package.json'));
// Topics with a section of their own in every man page; the rest go under HELP TOPICS.
const standard = { 'exit-codes': 'EXIT STATUS', environment: 'ENVIRONMENT' };
const topicBody = (text) => text.replace(/^[^\n]*\n/, ''); // the title is the section's

/** The topics with no standard section, each as `pets help <topic>` prints it. */
function otherTopics() {
  const others = Object.entries(topics).filter(([name]) => !(name in standard));
  if (others.length === 0) return [];
  return [
    '.SH "HELP TOPICS"',
    'Each is also shown by \\fBpets help\\fR \\fItopic\\fR.',
    ...others.flatMap(([name, text]) => [`.SS "${name}"`, ...preformatted(topicBody(text))]),
  ];
}

const page = [
  `.TH PETS 1 "" "pets ${version}" "User Commands"`,
  // Options and values are typed as printed: never hyphenated, never stretched.
  '.nh',
  '.ad l',
  '.SH NAME',
  `pets \\- ${escape(program.description().replace(/\.$/, ''))}`,
  '.SH SYNOPSIS',
  '.B pets',
  '[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]',
  '.br',
  '.B pets help',
  '\\fIcommand\\fR | \\fItopic\\fR',
  '.SH DESCRIPTION',
  escape(program.description()),
  'Each command is described below as',
  '.B pets',
  '\\fIcommand\\fR \\fB\\-\\-help\\fR',
  'shows it, and each topic as',
  '.B pets help',
  '\\fItopic\\fR',
  'shows it.',
  ...preformatted(extraHelp(program)),
  '.SH GLOBAL OPTIONS',
  'These go before or after the command. Each acts on the commands below that list it; given to',
  'another command, it is refused (exit 2) and nothing is sent. \\fBpets help\\fR and \\fB\\-\\-help\\fR',
  'accept any of them.',
  ...items(
    help.visibleOptions(program).map((o) => [term(help.optionTerm(o)), help.optionDescription(o)]),
  ),
  '.SH COMMANDS',
  ...help.visibleCommands(program).flatMap((command) => commandSection(command, help)),
  ...Object.entries(standard)
    .filter(([name]) => name in topics)
    .flatMap(([name, title]) => [`.SH "${title}"`, ...preformatted(topicBody(topics[name]))]),
  ...otherTopics(),
  '.SH "SEE ALSO"',
  '\\fBjq\\fR(1), \\fBcurl\\fR(1)',
  '',
].join('\n');

writeFileSync(join(root, 'dist/pets.1'), page);
